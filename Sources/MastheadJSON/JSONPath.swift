/// Builds JSONPath-style locations (`$.receipt.in_app[2].product_id`) for error messages.
public enum JSONPath {
    /// The path component for an object key: `.key`, or `["key"]` when the key is not a plain name.
    public static func component(forKey key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x2D
        }
        if plain { return "." + key }
        var escaped = ""
        for character in key {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.append(character)
            }
        }
        return "[\"" + escaped + "\"]"
    }

    /// The path of a member `key` inside the value at `path`.
    public static func member(_ path: String, _ key: String) -> String { path + component(forKey: key) }

    /// The path of element `index` inside the array at `path`.
    public static func element(_ path: String, _ index: Int) -> String { path + "[\(index)]" }
}
