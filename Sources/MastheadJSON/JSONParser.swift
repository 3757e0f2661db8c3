/// A strict RFC 8259 parser that records a document as a flat tape of tokens.
///
/// It validates everything (grammar, UTF-8, escapes, surrogate pairs) in one pass over the bytes
/// and decodes nothing: strings and numbers are read later, only when asked for. Choices on the
/// points RFC 8259 leaves to parsers (the `i_` cases of JSONTestSuite):
/// - a leading UTF-8 byte order mark is skipped; any other encoding (UTF-16) is rejected;
/// - invalid UTF-8 (overlong forms, encoded surrogates, code points past U+10FFFF, truncated
///   sequences) is rejected, and so is a `\u` escape of a lone or mis-ordered surrogate;
/// - numbers of any size are accepted; a reader asking for an `Int64` or `Double` that does not
///   fit gets `nil`;
/// - nesting is limited (`maxDepth`, 512 by default), so 500 nested arrays are accepted;
/// - an object may not repeat a member name (names compared after unescaping, byte for byte),
///   so that every reader of a document sees the same members.
struct JSONParser: ~Copyable {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let maxDepth: Int
    private var position = 0
    private var depth = 0
    private(set) var tape: GrowableBuffer<JSONToken>
    /// For each open container: the index of the current array element, or the tape index of
    /// the current object key (negative while no key has been read). Used only for error paths.
    private var pathSlots = GrowableBuffer<Int>(capacity: 16)

    init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int, tapeCapacity: Int) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
        tape = GrowableBuffer(capacity: tapeCapacity)
    }

    /// The tape of a parsed document; the caller owns (and must deallocate) its memory.
    consuming func takeTape() -> UnsafeMutablePointer<JSONToken> { tape.take() }

    /// Parses the whole text as one JSON value surrounded by optional white space.
    mutating func parseDocument() throws(JSONError) {
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { position = 3 }
        skipWhitespace()
        try parseValue()
        skipWhitespace()
        if position < count { throw error("unexpected \(describeByte(position)) after the top-level value") }
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONError) {
        guard position < count else { throw error("unexpected end of input, expected a value") }
        switch base[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        case UInt8(ascii: "t"): try parseLiteral("true", kind: .true)
        case UInt8(ascii: "f"): try parseLiteral("false", kind: .false)
        case UInt8(ascii: "n"): try parseLiteral("null", kind: .null)
        default: throw error("unexpected \(describeByte(position)), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONError) {
        guard let index = try openContainer(.object, closedBy: UInt8(ascii: "}")) else { return }
        // Repeated names: two 64-bit filters of the names read so far (one bit in each per name,
        // from two parts of a hash) send a name to the exact comparison with the earlier ones
        // only when both its bits are already set. Once an object has needed `comparisonLimit`
        // such comparisons (a large object fills the filters), it is checked instead once,
        // whole, at its end.
        var firstFilter: UInt64 = 0
        var secondFilter: UInt64 = 0
        var comparisons = 0
        while true {
            guard position < count, base[position] == UInt8(ascii: "\"") else {
                throw error(position < count ? "unexpected \(describeByte(position)), expected a string key" : "unexpected end of input, expected a string key")
            }
            let key = tape.count
            pathSlots.last = key
            try parseString()
            let token = tape[key]
            let start = Int(token.start)
            let hash = token.hasEscapes
                ? unescapedKeyHash(key) : JSONParser.hash(base + start, Int(token.end &- token.start), available: count &- start)
            let first: UInt64 = 1 &<< (hash >> 58)
            let second: UInt64 = 1 &<< (hash >> 52 & 63)
            if firstFilter & first != 0 && secondFilter & second != 0 {
                comparisons &+= 1
                if comparisons <= JSONParser.comparisonLimit { try checkRepeated(key, inObject: index) }
            }
            firstFilter |= first
            secondFilter |= second
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: ":") else {
                throw error(position < count ? "unexpected \(describeByte(position)), expected ':'" : "unexpected end of input, expected ':'")
            }
            position += 1
            skipWhitespace()
            try parseValue()
            guard try continues(closedBy: UInt8(ascii: "}")) else { break }
        }
        if comparisons > JSONParser.comparisonLimit { try checkLargeObject(index) }
        closeContainer(index)
    }

    private mutating func parseArray() throws(JSONError) {
        guard let index = try openContainer(.array, closedBy: UInt8(ascii: "]")) else { return }
        var element = 0
        while true {
            pathSlots.last = element
            try parseValue()
            guard try continues(closedBy: UInt8(ascii: "]")) else { break }
            element += 1
        }
        closeContainer(index)
    }

    /// Opens the container whose first byte is at `position` and skips to its first value; nil
    /// when it is empty (`closing` comes first), then closed already.
    private mutating func openContainer(_ kind: JSONKind, closedBy closing: UInt8) throws(JSONError) -> Int? {
        if depth >= maxDepth {
            throw JSONError.tooDeep(limit: maxDepth, at: location(position))
        }
        depth += 1
        pathSlots.append(kind == .object ? -1 : 0)
        let index = tape.count
        tape.append(JSONToken(kind: kind, hasEscapes: false, start: UInt32(truncatingIfNeeded: position), end: 0))
        position += 1
        skipWhitespace()
        if position < count && base[position] == closing {
            position += 1
            closeContainer(index)
            return nil
        }
        return index
    }

    /// After a value of a container: true past a `,` (and the space after it), false past the
    /// container's `closing` byte; anything else is an error. Inlined: it runs after every value.
    @inline(__always)
    private mutating func continues(closedBy closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard position < count else { throw error("unexpected end of input, expected ',' or '\(UnicodeScalar(closing))'") }
        let byte = base[position]
        position += 1
        if byte == UInt8(ascii: ",") {
            skipWhitespace()
            return true
        }
        if byte == closing { return false }
        position -= 1
        throw error("unexpected \(describeByte(position)), expected ',' or '\(UnicodeScalar(closing))'")
    }

    private mutating func closeContainer(_ index: Int) {
        depth -= 1
        pathSlots.removeLast()
        tape[index].end = UInt32(truncatingIfNeeded: tape.count)
    }

    private mutating func parseLiteral(_ word: StaticString, kind: JSONKind) throws(JSONError) {
        let length = word.utf8CodeUnitCount
        let literal = word.utf8Start
        guard count - position >= length else { throw error("unexpected \(describeByte(position)), expected '\(word)'") }
        for offset in 0..<length where base[position + offset] != literal[offset] {
            throw error("unexpected \(describeByte(position + offset)), expected '\(word)'")
        }
        tape.append(JSONToken(kind: kind, hasEscapes: false, start: UInt32(truncatingIfNeeded: position), end: UInt32(truncatingIfNeeded: position + length)))
        position += length
    }

    // MARK: Repeated names

    /// How many names of one object are compared with the earlier ones as they are read; past
    /// that, the object is checked whole at its end, by sorting hashes of its names, so that a
    /// large object costs no more than sorting.
    static let comparisonLimit = 16

    /// The filter hash of the unescaped name of key `index`, which has escapes, so that `"a"`
    /// and `"\u0061"` hash alike.
    @inline(never)
    private func unescapedKeyHash(_ index: Int) -> UInt64 {
        keyBytes(index).withUnsafeBufferPointer { JSONParser.hash($0.baseAddress!, $0.count, available: $0.count) }
    }

    /// The filter hash of the `length` bytes at `start`, of which `available` may be read: of
    /// the length and the first and last eight bytes.
    @inline(__always)
    private static func hash(_ start: UnsafePointer<UInt8>, _ length: Int, available: Int) -> UInt64 {
        var word: UInt64 = 0
        if available >= 8 {
            let raw = UnsafeRawPointer(start)
            word = raw.loadUnaligned(as: UInt64.self)
            if length < 8 {
                word &= (1 &<< (UInt64(truncatingIfNeeded: length) &* 8)) &- 1
            } else if length > 8 {
                let last = raw.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                word ^= last << 29 | last >> 35
            }
        } else {
            for offset in 0..<length { word |= UInt64(start[offset]) << (8 * offset) }
        }
        return (word ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15
    }

    /// Throws when an earlier member of the object at tape index `object` has the name of key `key`.
    @inline(never)
    private func checkRepeated(_ key: Int, inObject object: Int) throws(JSONError) {
        let tokens = tape.base
        let token = tokens[key]
        let length = token.end &- token.start
        var cursor = object + 1
        while cursor < key {
            let earlier = tokens[cursor]
            // Most names differ in length; names with escapes are compared unescaped.
            if earlier.end &- earlier.start == length || earlier.hasEscapes || token.hasEscapes, keysEqual(cursor, key) {
                throw duplicateKey(key)
            }
            let value = tokens[cursor + 1]
            cursor = value.kind == .object || value.kind == .array ? Int(value.end) : cursor + 2
        }
    }

    /// Throws for the first member (in document order) of an object repeating an earlier
    /// member's name: names are sorted by a hash of their unescaped bytes, and names of equal
    /// hash compared.
    private mutating func checkLargeObject(_ object: Int) throws(JSONError) {
        var names: [(hash: Int, key: Int)] = []
        var cursor = object + 1
        while cursor < tape.count {
            var hasher = Hasher()
            keyBytes(cursor).withUnsafeBytes { hasher.combine(bytes: $0) }
            names.append((hasher.finalize(), cursor))
            let value = tape[cursor + 1]
            cursor = value.kind == .object || value.kind == .array ? Int(value.end) : cursor + 2
        }
        names.sort { ($0.hash, $0.key) < ($1.hash, $1.key) }
        var repeated: Int?
        var runStart = 0
        for index in names.indices {
            if names[index].hash != names[runStart].hash { runStart = index }
            for earlier in runStart..<index where keysEqual(names[earlier].key, names[index].key) {
                repeated = min(repeated ?? names[index].key, names[index].key)
            }
        }
        guard let repeated else { return }
        pathSlots.last = repeated
        throw duplicateKey(repeated)
    }

    /// Whether two keys name the same member: their bytes, unescaped when either has escapes.
    private func keysEqual(_ first: Int, _ second: Int) -> Bool {
        let a = tape[first]
        let b = tape[second]
        if !a.hasEscapes && !b.hasEscapes {
            let length = Int(a.end &- a.start)
            guard length == Int(b.end &- b.start) else { return false }
            return UnsafeBufferPointer(start: base + Int(a.start), count: length)
                .elementsEqual(UnsafeBufferPointer(start: base + Int(b.start), count: length))
        }
        return keyBytes(first) == keyBytes(second)
    }

    /// The unescaped bytes of key `index`.
    private func keyBytes(_ index: Int) -> [UInt8] {
        let token = tape[index]
        let raw = UnsafeBufferPointer(start: base + Int(token.start), count: Int(token.end &- token.start))
        return token.hasEscapes ? Array(JSONValue.unescape(raw).utf8) : Array(raw)
    }

    /// The error for key `key` repeating an earlier member's name, located at its opening quote.
    @inline(never)
    private func duplicateKey(_ key: Int) -> JSONError {
        let offset = Int(tape[key].start) - 1
        return .duplicateKey(name: String(decoding: keyBytes(key), as: UTF8.self), offset: offset, at: location(offset))
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONError) {
        let start = position
        if base[position] == UInt8(ascii: "-") { position += 1 }
        guard position < count else { throw error("unexpected end of input in a number") }
        if base[position] == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(base[position]) {
            position += 1
            skipDigits()
        } else {
            throw error("unexpected \(describeByte(position)) in a number, expected a digit")
        }
        if position < count && base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < count, isDigit(base[position]) else {
                throw error("a number's fraction needs a digit after '.'")
            }
            skipDigits()
        }
        if position < count && (base[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < count && (base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard position < count, isDigit(base[position]) else {
                throw error("a number's exponent needs a digit")
            }
            skipDigits()
        }
        tape.append(JSONToken(kind: .number, hasEscapes: false, start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: position)))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func skipDigits() {
        while position < count && isDigit(base[position]) { position += 1 }
    }

    // MARK: Strings

    /// Inlined into its two callers (keys and values): it runs for most tokens.
    @inline(__always)
    private mutating func parseString() throws(JSONError) {
        let start = position + 1
        // Kept in a local between the bytes that need a look, and stored only before those.
        var cursor = start
        var hasEscapes = false
        while true {
            cursor = JSONParser.skipPlainBytes(base, from: cursor, count: count)
            guard cursor < count else { throw error("unterminated string", at: start - 1) }
            let byte = base[cursor]
            if byte == UInt8(ascii: "\"") { break }
            position = cursor
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw error("control character U+\(hex(byte)) must be escaped in a string")
            } else {
                try scanUTF8Sequence()
            }
            cursor = position
        }
        tape.append(JSONToken(kind: .string, hasEscapes: hasEscapes, start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: cursor)))
        position = cursor &+ 1
    }

    /// The offset of the first byte at or after `offset` that is a quote, a backslash, a control
    /// byte or not ASCII; `count` when there is none.
    ///
    /// Eight bytes at a time: a block with none of those is skipped whole (SWAR "has byte less
    /// than n" and "has zero byte" tests); otherwise the lowest flagged byte, which the tests
    /// mark exactly, is the one. The last few bytes are read one at a time.
    @inline(__always)
    private static func skipPlainBytes(_ base: UnsafePointer<UInt8>, from offset: Int, count: Int) -> Int {
        var cursor = offset
        while cursor &+ 8 <= count {
            let block = UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = block ^ (ones &* 0x22)
            let backslash = block ^ (ones &* 0x5C)
            let control = (block &- ones &* 0x20) & ~block & highs
            let hasQuote = (quote &- ones) & ~quote & highs
            let hasBackslash = (backslash &- ones) & ~backslash & highs
            let flagged = control | hasQuote | hasBackslash | (block & highs)
            if flagged != 0 { return cursor &+ flagged.trailingZeroBitCount &>> 3 }
            cursor &+= 8
        }
        while cursor < count {
            let byte = base[cursor]
            guard byte &- 0x20 < 0x60 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") else { return cursor }
            cursor &+= 1
        }
        return cursor
    }

    private mutating func scanEscape() throws(JSONError) {
        guard position + 1 < count else { throw error("unterminated escape sequence") }
        switch base[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            let unit = try readHexEscape(at: position)
            position += 6
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error("lone low surrogate \\u\(hex16(unit)) in a string", at: position - 6)
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard position + 1 < count, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else {
                    throw error("high surrogate \\u\(hex16(unit)) not followed by a low surrogate", at: position - 6)
                }
                let low = try readHexEscape(at: position)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error("high surrogate \\u\(hex16(unit)) not followed by a low surrogate", at: position - 6)
                }
                position += 6
            }
        default:
            throw error("invalid escape sequence '\\\(printable(base[position + 1]))'")
        }
    }

    private func readHexEscape(at offset: Int) throws(JSONError) -> UInt16 {
        guard offset + 6 <= count else { throw error("incomplete \\u escape", at: offset) }
        var value: UInt16 = 0
        for index in offset + 2..<offset + 6 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit \(describeByte(index)) in a \\u escape", at: index)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence at `position` (RFC 3629: shortest form only, no
    /// surrogates, nothing past U+10FFFF) and steps over it.
    private mutating func scanUTF8Sequence() throws(JSONError) {
        let lead = base[position]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8 byte 0x\(hex(lead)) in a string")
        }
        guard position + length <= count else { throw error("truncated UTF-8 sequence in a string") }
        let second = base[position + 1]
        guard second >= low && second <= high else { throw error("invalid UTF-8 sequence in a string") }
        for index in position + 2..<position + length where base[index] & 0xC0 != 0x80 {
            throw error("invalid UTF-8 sequence in a string")
        }
        position += length
    }

    // MARK: White space

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    // MARK: Errors

    private func error(_ message: String) -> JSONError { error(message, at: position) }

    private func error(_ message: String, at offset: Int) -> JSONError {
        .syntax(message: message, at: location(offset))
    }

    /// Line, column and path of a byte offset: computed only when an error is reported.
    private func location(_ offset: Int) -> JSONLocation {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, count) where base[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return JSONLocation(line: line, column: offset - lineStart + 1, path: currentPath())
    }

    private func currentPath() -> String {
        // Open containers are the ones whose end is not yet written; pathSlots has one per each.
        let open = (0..<tape.count).filter { (tape[$0].kind == .object || tape[$0].kind == .array) && tape[$0].end == 0 }
        var path = "$"
        for (depth, containerIndex) in open.enumerated() where depth < pathSlots.count {
            let slot = pathSlots[depth]
            if tape[containerIndex].kind == .array {
                path += "[\(slot)]"
            } else if slot >= 0 && slot < tape.count {
                // (A key still being read has no token yet: the path stops at its object.)
                let key = tape[slot]
                let text = String(decoding: UnsafeBufferPointer(start: base + Int(key.start), count: Int(key.end - key.start)), as: UTF8.self)
                path += JSONPath.component(forKey: text)
            }
        }
        return path
    }

    private func describeByte(_ offset: Int) -> String {
        guard offset < count else { return "end of input" }
        let byte = base[offset]
        return byte >= 0x20 && byte < 0x7F ? "'\(printable(byte))'" : "byte 0x\(hex(byte))"
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "0x\(hex(byte))"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    private func hex16(_ unit: UInt16) -> String { hex(UInt8(unit >> 8)) + hex(UInt8(unit & 0xFF)) }
}
