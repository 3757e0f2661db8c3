/// An option whose value is one of a fixed set of words, declared once with its choices (an
/// enumeration's raw values, in its order): the help lists them with the default marked, and the
/// parser accepts exactly them, so the two cannot disagree.
struct ChoiceOption<Choice: CaseIterable & RawRepresentable<String> & Sendable>: Sendable {
    /// The name without the leading dashes: `format`.
    let name: String
    /// What the value is called in the help: `FORMAT`.
    let valueName: String
    /// The choice when the option is not given.
    let defaultChoice: Choice
    /// Whether the value is lowercased before it is matched (`--environment Sandbox`).
    let lowercased: Bool

    /// Declares `--name VALUE_NAME`, one of `Choice`'s raw values, `defaultChoice` when absent.
    init(_ name: String, _ valueName: String, default defaultChoice: Choice, lowercased: Bool = false) {
        self.name = name
        self.valueName = valueName
        self.defaultChoice = defaultChoice
        self.lowercased = lowercased
    }

    /// The declaration a command lists; its help names every choice: `text (default) or json.`
    var spec: OptionSpec {
        let words = Choice.allCases.map { $0.rawValue == defaultChoice.rawValue ? "\($0.rawValue) (default)" : $0.rawValue }
        return .value(name, valueName, Self.list(words) + ".")
    }

    /// The choice given, or the default; a usage error naming the option, the value and the
    /// choices when the value is none of them.
    func value(in parsed: Arguments, command: String) throws(CLIError) -> Choice {
        guard let text = parsed.value(name) else { return defaultChoice }
        guard let choice = Choice(rawValue: lowercased ? text.lowercased() : text) else {
            throw CLIError.usage("\(command): --\(name) must be \(Self.list(Choice.allCases.map(\.rawValue))), not '\(text)'")
        }
        return choice
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }
}
