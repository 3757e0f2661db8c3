import MastheadFormats

/// Command-line arguments parsed against a command's ``CommandSpec``: `--name value`,
/// `--name=value`, flags, and the operands the spec declares; anything the spec does not declare
/// is a usage error.
package struct Arguments {
    private let spec: CommandSpec
    /// The arguments that are not options, in order: as many as the spec's operands.
    package private(set) var operands: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (without the program and command names). Unknown options (with the
    /// nearest declared one suggested), a repeated option that is not repeatable, a missing
    /// required option and a group of alternatives given none or more than one of are usage errors.
    package init(_ arguments: [String], spec: CommandSpec) throws(CLIError) {
        self.spec = spec
        let command = spec.name
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                guard operands.count < spec.operands.count else {
                    throw CLIError.usage("\(command): unexpected argument '\(argument)' \(spec.seeHelp)")
                }
                operands.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.option(name) else {
                let suggestion = Spelling.suggestion(for: "--" + name, among: spec.options.map { "--" + $0.name } + ["--help"])
                throw CLIError.usage("\(command): unknown option '--\(name)'\(suggestion) \(spec.seeHelp)")
            }
            guard option.repeatable || (values[name] == nil && !flags.contains(name)) else {
                throw CLIError.usage("\(command): --\(name) may be given only once")
            }
            if option.isFlag {
                guard value == nil else { throw CLIError.usage("\(command): --\(name) takes no value") }
                flags.insert(name)
            } else {
                if value == nil {
                    guard index < arguments.count else { throw CLIError.usage("\(command): --\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[name, default: []].append(value ?? "")
            }
        }
        if operands.count < spec.operands.count {
            throw CLIError.usage("\(command): missing \(spec.operands[operands.count...].joined(separator: " ")) \(spec.seeHelp)")
        }
        for option in spec.options {
            if option.required && values[option.name] == nil {
                throw CLIError.usage("\(command): missing --\(option.name) \(spec.seeHelp)")
            }
            guard let group = spec.alternatives.first(where: { $0.first == option.name }) else { continue }
            let given = group.filter { values[$0] != nil || flags.contains($0) }
            if given.isEmpty {
                let synopses = group.compactMap { spec.option($0)?.synopsis }
                throw CLIError.usage("\(command): missing \(synopses.joined(separator: " or ")) \(spec.seeHelp)")
            }
            if given.count > 1 {
                throw CLIError.usage("\(command): give \(group.map { "--" + $0 }.joined(separator: " or ")), not both")
            }
        }
    }

    /// The value given for an option, if any.
    package func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option, in order.
    package func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag was given.
    package func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option the parser has made sure is there: a required one, or the one given
    /// of a group of alternatives.
    package func required(_ name: String) -> String {
        guard let value = values[name]?.last else { preconditionFailure("--\(name) of \(spec.name) may be absent") }
        return value
    }

    /// The whole number given for an option, nil when absent; a usage error when it is not a
    /// whole number within `range`.
    package func integer(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            let bounds = range.upperBound == .max ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw CLIError.usage("\(spec.name): --\(name) must be a whole number \(bounds), not '\(text)'")
        }
        return number
    }

    /// The unsigned 64-bit number given for an option (a seed), nil when absent; a usage error
    /// when it is not one.
    package func unsigned(_ name: String) throws(CLIError) -> UInt64? {
        guard let text = value(name) else { return nil }
        guard let number = UInt64(text) else {
            throw CLIError.usage("\(spec.name): --\(name) must be a whole number from 0 to \(UInt64.max), not '\(text)'")
        }
        return number
    }
}
