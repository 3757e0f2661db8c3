import Masthead
import MastheadFormats

/// An option whose value is an RFC 3339 instant (`--at`, `--from`), declared once: its name, its
/// help, and how its value is read, with the same error for every command.
struct InstantOption: Sendable {
    /// The name without the leading dashes: `at`.
    let name: String
    /// The help of one value.
    let help: String

    /// The declaration of an option given at most once.
    var spec: OptionSpec { .value(name, "INSTANT", help) }

    /// The declaration of an option that may be repeated, its help followed by `more` (if any)
    /// after a space.
    func repeatable(_ more: String? = nil) -> OptionSpec { .value(name, "INSTANT", help + (more.map { " " + $0 } ?? ""), repeatable: true) }

    /// The instant given, nil when absent; a usage error when it is not an RFC 3339 instant.
    func instant(in parsed: Arguments, command: String) throws(CLIError) -> Instant? {
        try parsed.value(name).map { (text) throws(CLIError) in try instant(text, command: command) }
    }

    /// Every instant given, in order; a usage error at the first that is not an RFC 3339 instant.
    func instants(in parsed: Arguments, command: String) throws(CLIError) -> [Instant] {
        var instants: [Instant] = []
        for text in parsed.all(name) { instants.append(try instant(text, command: command)) }
        return instants
    }

    private func instant(_ text: String, command: String) throws(CLIError) -> Instant {
        guard let instant = DateText.rfc3339(text) else {
            throw CLIError.usage("\(command): --\(name) '\(text)' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z")
        }
        return instant
    }
}
