/// One command-line option as a command declares it: what the parser accepts and what the help
/// shows, from the same value.
package struct OptionSpec: Sendable {
    /// The name without the leading dashes: `catalog` for `--catalog`.
    package let name: String
    /// What the value is called in the help (`DIR`); nil for a flag, which takes no value.
    package let valueName: String?
    /// The help text; a line break continues it on the next line of the help.
    package let help: String
    /// Whether it may be given more than once (the values are kept in order).
    package let repeatable: Bool
    /// Whether the command cannot run without it.
    package let required: Bool

    /// An option that takes a value: `--name VALUE` or `--name=VALUE`.
    package static func value(
        _ name: String, _ valueName: String, _ help: String, repeatable: Bool = false, required: Bool = false
    ) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable, required: required)
    }

    /// An option that takes no value: `--name`.
    package static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, repeatable: false, required: false)
    }

    /// Whether it takes no value.
    package var isFlag: Bool { valueName == nil }

    /// The option as the help and the usage line write it: `--catalog DIR`, `--fail-on-discrepancy`.
    package var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}
