import Foundation
import MastheadJSON

/// Renders a value from either parser into one canonical text so the two can be compared.
enum JSONComparison {
    static func describe(_ value: JSONValue) -> String {
        switch value.kind {
        case .object: "{" + value.members.map { "\($0.key.string.debugDescription):\(describe($0.value))" }.joined(separator: ",") + "}"
        case .array: "[" + value.elements.map(describe).joined(separator: ",") + "]"
        case .string: value.string!.debugDescription
        case .number: number(value.double ?? .nan)
        case .true: "true"
        case .false: "false"
        case .null: "null"
        }
    }

    static func describe(foundation value: Any) -> String {
        switch value {
        case let dictionary as [String: Any]:
            // Foundation keeps one of several equal keys; the suite's y_ cases have none repeated.
            "{" + dictionary.keys.sorted().map { "\($0.debugDescription):\(describe(foundation: dictionary[$0]!))" }.joined(separator: ",") + "}"
        case let array as [Any]: "[" + array.map { describe(foundation: $0) }.joined(separator: ",") + "]"
        case let string as String: string.debugDescription
        case let number as NSNumber:
            CFGetTypeID(number) == CFBooleanGetTypeID() ? (number.boolValue ? "true" : "false") : self.number(number.doubleValue)
        case is NSNull: "null"
        default: "?"
        }
    }

    static func number(_ value: Double) -> String { value.isNaN ? "nan" : String(value) }
}
