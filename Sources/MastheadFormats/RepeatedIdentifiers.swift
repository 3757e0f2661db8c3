import Glibc
import MastheadJSON

/// The identifiers a response repeats, made into strings once: every renewal of a subscription
/// carries its original transaction id and, most of the time, the product id of the transaction
/// read just before it. A value with the same bytes as the one remembered shares its string
/// instead of being decoded, checked and (for a product) looked up again.
///
/// Only strings without escapes are remembered, so that the bytes compared are the text itself;
/// the comparison is of exact bytes. Valid while the document read is: it holds its bytes' place.
struct RepeatedIdentifiers {
    /// The last original transaction id read.
    var original: RememberedString?
    /// The last product id read.
    var product: RememberedString?
}

/// A string value read from a document, with the place of its bytes there (a string without escapes).
struct RememberedString {
    let bytes: UnsafeBufferPointer<UInt8>
    let text: String

    /// Remembers `text`, read from `value`, when `value` is a string without escapes; nil otherwise.
    init?(_ text: String, readFrom value: UnsafeJSONValue) {
        guard let bytes = value.plainStringBytes else { return nil }
        self.bytes = bytes
        self.text = text
    }

    /// The remembered text when `value` is a string without escapes of the same bytes; nil otherwise.
    @inline(__always)
    func text(ifSameAs value: UnsafeJSONValue) -> String? {
        RememberedString.isPlainString(value, spelling: bytes) ? text : nil
    }

    /// Whether `value` is a string without escapes whose bytes are exactly `bytes`.
    @inline(__always)
    static func isPlainString(_ value: UnsafeJSONValue, spelling bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let other = value.plainStringBytes, other.count == bytes.count else { return false }
        if other.baseAddress == bytes.baseAddress { return true }
        guard let left = other.baseAddress, let right = bytes.baseAddress else { return false }
        return memcmp(left, right, bytes.count) == 0
    }
}
