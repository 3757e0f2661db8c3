/// RFC 4180 rows: a field holding a comma, quote, or line break is quoted, quotes doubled.
public enum CSV {
    /// One row: the fields, each quoted when it needs it, and a line break.
    public static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }

    /// One field, quoted when it holds a comma, quote or line break.
    public static func field(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" { quoted += "\"" }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
