/// Builds SVG and HTML text: escaped content and attributes, numbers with one decimal.
struct Markup {
    private(set) var text = ""

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A coordinate or length: at most one decimal, no trailing `.0`.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = abs(tenths)
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// A count with thousands separators: `85,849`.
    static func thousands(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// Appends raw markup.
    mutating func raw(_ markup: String) { text += markup }

    /// Appends escaped text.
    mutating func content(_ value: String) { text += Self.escape(value) }

    /// Appends `<name attributes…>` (self-closed when `content` and `title` are nil).
    /// Numbers are formatted with ``number(_:)``; attribute values are escaped.
    mutating func element(_ name: String, _ attributes: [(String, any AttributeValue)], content: String? = nil, title: String? = nil) {
        text += "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(Self.escape(value.attributeText))\"" }
        if content == nil && title == nil {
            text += "/>"
            return
        }
        text += ">"
        if let title { text += "<title>\(Self.escape(title))</title>" }
        if let content { text += Self.escape(content) }
        text += "</\(name)>"
    }

    /// Appends `<name attributes…>` and leaves it open; close it with ``close(_:)``.
    mutating func open(_ name: String, _ attributes: [(String, any AttributeValue)] = []) {
        text += "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(Self.escape(value.attributeText))\"" }
        text += ">"
    }

    /// Appends `</name>`.
    mutating func close(_ name: String) { text += "</\(name)>" }
}

/// A value written as an attribute.
protocol AttributeValue {
    var attributeText: String { get }
}

extension String: AttributeValue {
    var attributeText: String { self }
}

extension Double: AttributeValue {
    var attributeText: String { Markup.number(self) }
}

extension Int: AttributeValue {
    var attributeText: String { String(self) }
}
