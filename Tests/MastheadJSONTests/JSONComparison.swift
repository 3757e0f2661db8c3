import Foundation
import MastheadJSON

/// Renders a value from either parser into one canonical text so the two can be compared.
enum JSONComparison {
    static func describe(_ value: JSONValue) -> String {
        switch value.kind {
        case .object:
            // Like Foundation: the last of repeated keys wins, keys sorted.
            "{" + Dictionary(value.members.map { ($0.key.string, describe($0.value)) }, uniquingKeysWith: { _, last in last })
                .sorted { $0.key < $1.key }.map { "\($0.key.debugDescription):\($0.value)" }.joined(separator: ",") + "}"
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
        case let flag as Bool where String(describing: type(of: value)).contains("Bool"):
            flag ? "true" : "false"
        case let number as NSNumber:
            String(cString: number.objCType) == "c" ? (number.boolValue ? "true" : "false") : self.number(number.doubleValue)
        case is NSNull: "null"
        default: "?"
        }
    }

    /// Twelve significant digits, and no sign on zero: Foundation rounds the last bits of some
    /// numbers and drops the sign of -0, where this reader keeps `Double(text)` exactly.
    static func number(_ value: Double) -> String { value.isNaN ? "nan" : String(format: "%.12g", value + 0.0) }
}
