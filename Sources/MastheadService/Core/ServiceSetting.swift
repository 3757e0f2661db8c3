import MastheadJSON

/// One row of the service's settings table: a key (the same in a `--config` file and as a
/// `masthead serve` flag), the kind of value it takes, its help, and the field of
/// ``ServiceConfiguration`` it reads and sets. The default is that field's value in
/// `ServiceConfiguration()`, so the help and the code cannot name different defaults. A number's
/// row also holds the range a service can start with (``required``), which
/// ``ServiceConfiguration/validate(for:)`` checks however the configuration was built.
public struct ServiceSetting: Sendable {
    /// The values a setting takes.
    public enum Kind: Sendable, Hashable {
        /// Any string.
        case text
        /// A whole number within the range (what a flag or a file may give; ``ServiceSetting/required``
        /// may narrow what a service starts with).
        case number(ClosedRange<Int>)
        /// true or false; as a flag it takes no value and means true.
        case toggle
        /// One of these words.
        case choice([String])
        /// Strings: a JSON array in a file, comma-separated as a flag (`none` for no string); each
        /// one of these words when they are given.
        case list([String]?)
    }

    /// The key in a configuration file, and the flag's name without its dashes: `maxBodyBytes`.
    public let key: String
    /// What the value is called in the help (`N`, `DIR`); nil for a toggle.
    public let valueName: String?
    /// What the setting does, one sentence.
    public let help: String
    public let kind: Kind
    /// For a number a flag or a file may give but a service (or command) cannot start with: the
    /// values it can start with; nil when every value of ``kind`` will do. The one range checked
    /// by ``ServiceConfiguration/validate(for:)`` is this one, else the kind's (``rangeProblem(in:)``).
    public let required: ClosedRange<Int>?
    private let read: @Sendable (ServiceConfiguration) -> Value
    private let write: @Sendable (inout ServiceConfiguration, Value) -> Void

    /// Why the number in `configuration` is outside its range (``required``, else the kind's),
    /// naming the setting; nil when it is within it, or the setting is not a number. A
    /// configuration set in code, not through the rows, is held to the same ranges this way.
    public func rangeProblem(in configuration: ServiceConfiguration) -> String? {
        guard case .number(let accepted) = kind, case .number(let number) = read(configuration) else { return nil }
        let required = required ?? accepted
        guard !required.contains(number) else { return nil }
        let bounds = required.upperBound == Int(Int32.max) ? "at least \(required.lowerBound)" : "from \(required.lowerBound) to \(required.upperBound)"
        return "\(key) must be \(bounds), not \(number)"
    }

    /// A setting's value, checked against its kind.
    private enum Value: Sendable {
        case text(String)
        case number(Int)
        case bool(Bool)
        case list([String])
    }

    /// A string setting.
    static func text(
        _ key: String, _ valueName: String, _ field: any WritableKeyPath<ServiceConfiguration, String> & Sendable, _ help: String
    ) -> ServiceSetting {
        ServiceSetting(
            key: key, valueName: valueName, help: help, kind: .text, required: nil, read: { .text($0[keyPath: field]) },
            write: { configuration, value in if case .text(let text) = value { configuration[keyPath: field] = text } })
    }

    /// A whole-number setting, from 0 to `Int32.max` unless `range` says otherwise; a service
    /// starts only with a value within `required` when it is given.
    static func number(
        _ key: String, _ field: any WritableKeyPath<ServiceConfiguration, Int> & Sendable, _ help: String,
        range: ClosedRange<Int> = 0...Int(Int32.max), required: ClosedRange<Int>? = nil
    ) -> ServiceSetting {
        ServiceSetting(
            key: key, valueName: "N", help: help, kind: .number(range), required: required, read: { .number($0[keyPath: field]) },
            write: { configuration, value in if case .number(let number) = value { configuration[keyPath: field] = number } })
    }

    /// The port setting (a 16-bit number).
    static func port(_ key: String, _ field: any WritableKeyPath<ServiceConfiguration, UInt16> & Sendable, _ help: String) -> ServiceSetting {
        ServiceSetting(
            key: key, valueName: "N", help: help, kind: .number(0...Int(UInt16.max)), required: nil, read: { .number(Int($0[keyPath: field])) },
            write: { configuration, value in
                if case .number(let number) = value, let port = UInt16(exactly: number) { configuration[keyPath: field] = port }
            })
    }

    /// A true-or-false setting.
    static func toggle(_ key: String, _ field: any WritableKeyPath<ServiceConfiguration, Bool> & Sendable, _ help: String) -> ServiceSetting {
        ServiceSetting(
            key: key, valueName: nil, help: help, kind: .toggle, required: nil, read: { .bool($0[keyPath: field]) },
            write: { configuration, value in if case .bool(let flag) = value { configuration[keyPath: field] = flag } })
    }

    /// A setting that takes one of an enumeration's raw values; its help is `lead`, then the
    /// values (`lead: a, b or c.`).
    static func choice<Choice: RawRepresentable<String> & CaseIterable & Sendable>(
        _ key: String, _ valueName: String, _ field: any WritableKeyPath<ServiceConfiguration, Choice> & Sendable, _ lead: String
    ) -> ServiceSetting {
        let words = Choice.allCases.map(\.rawValue)
        return ServiceSetting(
            key: key, valueName: valueName, help: "\(lead): \(describe(words)).", kind: .choice(words), required: nil,
            read: { .text($0[keyPath: field].rawValue) },
            write: { configuration, value in
                if case .text(let text) = value, let choice = Choice(rawValue: text) { configuration[keyPath: field] = choice }
            })
    }

    /// A setting that takes several strings, each one of `words` when given.
    static func list(
        _ key: String, _ valueName: String, _ field: any WritableKeyPath<ServiceConfiguration, [String]> & Sendable, _ help: String,
        words: [String]? = nil
    ) -> ServiceSetting {
        ServiceSetting(
            key: key, valueName: valueName, help: help, kind: .list(words), required: nil, read: { .list($0[keyPath: field]) },
            write: { configuration, value in if case .list(let items) = value { configuration[keyPath: field] = items } })
    }

    /// The setting's value in `configuration`, as a flag gives it: `8080`, `Catalog/the-monthly`,
    /// `false`, `Production,Sandbox`, `none`.
    public func text(in configuration: ServiceConfiguration) -> String {
        switch read(configuration) {
        case .text(let text): text
        case .number(let number): String(number)
        case .bool(let flag): String(flag)
        case .list(let items): items.isEmpty ? Self.noItems : items.joined(separator: ",")
        }
    }

    /// A list setting's flag value for no string.
    static let noItems = "none"

    /// The setting's value in `configuration`, as a configuration file gives it: `8080`,
    /// `"Catalog/the-monthly"`, `false`, `["Production","Sandbox"]`.
    public func json(in configuration: ServiceConfiguration) -> String {
        var writer = JSONWriter()
        switch read(configuration) {
        case .text(let text): writer.string(text)
        case .number(let number): writer.int(Int64(number))
        case .bool(let flag): writer.bool(flag)
        case .list(let items):
            writer.beginArray()
            for item in items { writer.string(item) }
            writer.endArray()
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The default: the value in `ServiceConfiguration()`, as a flag gives it.
    public var defaultText: String { text(in: ServiceConfiguration()) }

    /// Sets the setting from a flag: `--key value` (`text`), or `--key` alone for a toggle (nil).
    public func apply(flag text: String?, to configuration: inout ServiceConfiguration) throws(ConfigurationError) {
        let name = "--\(key)"
        switch kind {
        case .toggle:
            write(&configuration, .bool(true))
        case .text:
            write(&configuration, .text(text ?? ""))
        case .number(let range):
            guard let text, let number = Int(text), range.contains(number) else {
                throw ConfigurationError.invalid("\(name) must be a whole number \(Self.describe(range)), not '\(text ?? "")'")
            }
            write(&configuration, .number(number))
        case .choice(let words):
            guard let text, words.contains(text) else {
                throw ConfigurationError.invalid("\(name) must be \(Self.describe(words)), not '\(text ?? "")'")
            }
            write(&configuration, .text(text))
        case .list(let words):
            let text = text ?? ""
            let items = text == Self.noItems ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if let invalid = Self.invalidItem(items, words) {
                throw ConfigurationError.invalid("\(name) must be a comma-separated list\(Self.describeItems(words)), not '\(invalid)' in '\(text)'")
            }
            write(&configuration, .list(items))
        }
    }

    /// Sets the setting from a configuration file's value; `file` names the file in errors.
    func apply(json value: JSONValue, file: String, to configuration: inout ServiceConfiguration) throws(ConfigurationError) {
        let name = "\(file): \(key)"
        switch kind {
        case .toggle:
            guard let flag = value.bool else { throw ConfigurationError.invalid("\(name) must be true or false") }
            write(&configuration, .bool(flag))
        case .text:
            guard let text = value.string else { throw ConfigurationError.invalid("\(name) must be a string") }
            write(&configuration, .text(text))
        case .number(let range):
            guard let number = value.int64, number >= range.lowerBound, number <= range.upperBound else {
                throw ConfigurationError.invalid("\(name) must be a whole number \(Self.describe(range))")
            }
            write(&configuration, .number(Int(number)))
        case .choice(let words):
            guard let text = value.string else { throw ConfigurationError.invalid("\(name) must be a string") }
            guard words.contains(text) else { throw ConfigurationError.invalid("\(name) must be \(Self.describe(words)), not \"\(text)\"") }
            write(&configuration, .text(text))
        case .list(let words):
            guard value.kind == .array, value.elements.allSatisfy({ $0.string != nil }) else {
                throw ConfigurationError.invalid("\(name) must be an array of strings\(Self.describeItems(words))")
            }
            let items = value.elements.map { $0.string ?? "" }
            if let invalid = Self.invalidItem(items, words) {
                throw ConfigurationError.invalid("\(name) must be an array of strings\(Self.describeItems(words)), not \"\(invalid)\"")
            }
            write(&configuration, .list(items))
        }
    }

    /// The first item that is empty, or not one of `words` when they are given.
    private static func invalidItem(_ items: [String], _ words: [String]?) -> String? {
        items.first { item in item.isEmpty || !(words?.contains(item) ?? true) }
    }

    /// What each item must be, for errors: nothing when any non-empty string will do.
    private static func describeItems(_ words: [String]?) -> String {
        words.map { ", each \(describe($0))" } ?? " (non-empty)"
    }

    private static func describe(_ range: ClosedRange<Int>) -> String { "from \(range.lowerBound) to \(range.upperBound)" }

    private static func describe(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }
}
