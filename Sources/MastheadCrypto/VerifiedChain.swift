/// A leaf and intermediate that chain to a configured root certificate, and the window in which
/// all three are valid.
public struct VerifiedChain: Sendable {
    /// The certificate that signs (`x5c[0]`).
    public let leaf: Certificate
    /// The certificate that issued the leaf (`x5c[1]`).
    public let intermediate: Certificate
    /// The configured root certificate the chain ends at.
    public let root: Certificate

    /// The first instant all three certificates are valid, in milliseconds since the Unix epoch.
    public var notBefore: Int64 { max(leaf.notBefore, intermediate.notBefore, root.notBefore) }
    /// The last instant all three certificates are valid, in milliseconds since the Unix epoch.
    public var notAfter: Int64 { min(leaf.notAfter, intermediate.notAfter, root.notAfter) }

    /// Whether the chain is valid at `milliseconds`, judged to the second as OpenSSL judges it.
    public func isValid(at milliseconds: Int64) -> Bool {
        let second = UTCTime.wholeSecond(milliseconds)
        return notBefore <= second && second <= notAfter
    }
}
