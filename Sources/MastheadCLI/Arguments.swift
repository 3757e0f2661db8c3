/// Command-line options parsed against a declared set: `--name value`, `--name=value`, and flags.
struct Arguments {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; `options` take a value, `flagNames` do not. Anything else is a usage error.
    init(_ arguments: [String], options: Set<String>, flagNames: Set<String> = [], command: String) throws(CLIError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw CLIError.usage("\(command): unexpected argument '\(argument)' (see 'masthead \(command) --help')")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagNames.contains(name) {
                guard value == nil else { throw CLIError.usage("\(command): --\(name) takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw CLIError.usage("\(command): --\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[name, default: []].append(value!)
            } else {
                throw CLIError.usage("\(command): unknown option '--\(name)' (see 'masthead \(command) --help')")
            }
        }
    }

    /// The last value given for an option.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for an option, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of a required option.
    func required(_ name: String, command: String) throws(CLIError) -> String {
        guard let value = value(name) else { throw CLIError.usage("\(command): missing --\(name) (see 'masthead \(command) --help')") }
        return value
    }
}
