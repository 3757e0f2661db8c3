public import Masthead

/// A StoreKit 2 `appAccountToken` (a UUID the app sets at purchase) and the user the publisher
/// says owns it: a subscription whose signed transactions carry the token is linked to that user
/// on first sight, without a receipt being posted.
public struct AppAccountToken: Hashable, Sendable {
    /// The token in canonical form: a UUID in lower case (`3f2504e0-4f89-41d3-9a0c-0305e82c3301`).
    public var token: String
    /// The user who owns it.
    public var userId: String
    /// When it was first linked to the user.
    public var linked: Instant

    /// The canonical form of a token: its text in lower case when it is a UUID written 8-4-4-4-12
    /// hexadecimal digits (in either case), nil for anything else (braces, `urn:uuid:`, another
    /// grouping, surrounding space).
    public static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var canonical: [UInt8] = []
        canonical.reserveCapacity(36)
        for (offset, byte) in bytes.enumerated() {
            switch (offset, byte) {
            case (8, UInt8(ascii: "-")), (13, UInt8(ascii: "-")), (18, UInt8(ascii: "-")), (23, UInt8(ascii: "-")):
                canonical.append(byte)
            case (8, _), (13, _), (18, _), (23, _):
                return nil
            case (_, UInt8(ascii: "0")...UInt8(ascii: "9")), (_, UInt8(ascii: "a")...UInt8(ascii: "f")):
                canonical.append(byte)
            case (_, UInt8(ascii: "A")...UInt8(ascii: "F")):
                canonical.append(byte | 0x20)
            default:
                return nil
            }
        }
        return String(decoding: canonical, as: UTF8.self)
    }
}
