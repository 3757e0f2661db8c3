import MastheadJSON

/// The JSON reader's target: parse, then read every value in every way a decoder can.
enum JSONFuzzing {
    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        do {
            let document = try JSONDocument(parsing: Array(bytes))
            document.root.withUnsafeValue { visit($0) }
        } catch {
            // The message names a line and column: building it must not trap either.
            _ = error.description
        }
        // The in-place entry point must agree with the copying one.
        let inPlace = try? JSONDocument.withUnsafeParsing(bytes) { root in root.kind }
        let copied = try? JSONDocument(parsing: Array(bytes)).root.kind
        precondition(inPlace == copied, "withUnsafeParsing and init(parsing:) disagree")
    }

    /// Reads `value` and everything inside it, checking that the accessors agree.
    static func visit(_ value: UnsafeJSONValue) {
        _ = value.line
        switch value.kind {
        case .object:
            var count = 0
            for (key, member) in value.members {
                let name = key.string
                precondition(key.utf8Count == name.utf8.count, "a key's utf8Count differs from its decoded length")
                _ = key == "status"
                precondition(value[name] != nil, "a member is not found by its own key")
                visit(member)
                count += 1
            }
            precondition(count == value.count, "an object's count differs from its members")
            _ = value.member("latest_receipt_info")
        case .array:
            var count = 0
            for element in value.elements {
                visit(element)
                count += 1
            }
            precondition(count == value.count, "an array's count differs from its elements")
        case .string:
            guard let text = value.string else { preconditionFailure("a string value without a string") }
            let bytes = value.withStringBytes { Array($0) }
            precondition(bytes == Array(text.utf8), "withStringBytes differs from string")
            if let number = value.digitsInt64 { precondition(Int64(text) == number, "digitsInt64 differs from the text") }
            _ = value.stringEquals("Production")
            // What the writer writes, the reader reads back unchanged.
            var writer = JSONWriter()
            writer.string(text)
            let reread = try? JSONDocument(parsing: writer.bytes).root.string
            precondition(reread == text, "a string written by JSONWriter reads back differently")
        case .number:
            guard let text = value.numberText else { preconditionFailure("a number value without its text") }
            if let number = value.int64 { precondition(Int64(text) == number, "int64 differs from the number's text") }
            _ = value.double
        case .true, .false:
            precondition(value.bool == (value.kind == .true), "bool differs from the kind")
        case .null:
            precondition(value.isNull, "a null value that is not isNull")
        }
    }
}
