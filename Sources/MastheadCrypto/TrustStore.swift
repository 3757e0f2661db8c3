import COpenSSL

/// The configured root certificates in an OpenSSL `X509_STORE`, judging chains offline.
///
/// One store serves every thread: OpenSSL 3 locks its lookups, and each verification has its own
/// `X509_STORE_CTX`.
final class TrustStore: @unchecked Sendable {
    let store: OpaquePointer
    let roots: [Certificate]

    /// A store trusting exactly `roots`.
    init(roots: [Certificate]) throws(SignatureError) {
        guard let store = X509_STORE_new() else {
            throw .openSSL(function: "X509_STORE_new", reason: OpenSSL.takeErrors(or: "out of memory"))
        }
        self.store = store
        self.roots = roots
        for root in roots where X509_STORE_add_cert(store, root.handle.pointer) != 1 {
            throw .openSSL(function: "X509_STORE_add_cert", reason: OpenSSL.takeErrors(or: "cannot add \(root.subject)"))
        }
    }

    deinit { X509_STORE_free(store) }

    /// Verifies that `leaf` was issued by `intermediate`, issued by one of the roots, all valid at
    /// `milliseconds` (to the second): RFC 5280 path validation as OpenSSL does it (signatures,
    /// validity, CA basic constraints and key usage, critical extensions), without CRLs or any
    /// online check. The chain must be exactly leaf → intermediate → root.
    /// - Throws: ``SignatureError/certificateExpired(_:subject:notAfter:at:)`` and
    ///   ``SignatureError/certificateNotYetValid(_:subject:notBefore:at:)`` for validity,
    ///   ``SignatureError/untrustedChain(reason:)`` for anything else, with OpenSSL's reason.
    func verify(leaf: Certificate, intermediate: Certificate, at milliseconds: Int64) throws(SignatureError) -> VerifiedChain {
        guard let context = X509_STORE_CTX_new() else {
            throw .openSSL(function: "X509_STORE_CTX_new", reason: OpenSSL.takeErrors(or: "out of memory"))
        }
        defer { X509_STORE_CTX_free(context) }
        guard let untrusted = masthead_x509_stack_new() else {
            throw .openSSL(function: "sk_X509_new_null", reason: OpenSSL.takeErrors(or: "out of memory"))
        }
        defer { masthead_x509_stack_free(untrusted) }
        guard masthead_x509_stack_push(untrusted, intermediate.handle.pointer) > 0,
            X509_STORE_CTX_init(context, store, leaf.handle.pointer, untrusted) == 1
        else { throw .openSSL(function: "X509_STORE_CTX_init", reason: OpenSSL.takeErrors(or: "out of memory")) }
        // Judged at the given instant (this sets X509_V_FLAG_USE_CHECK_TIME); no CRL flag, so no revocation check.
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(UTCTime.floorDivision(milliseconds, 1000).quotient))
        guard X509_verify_cert(context) == 1 else {
            ERR_clear_error()
            throw refusal(context, leaf: leaf, intermediate: intermediate, at: milliseconds)
        }
        guard let chain = X509_STORE_CTX_get0_chain(context), masthead_x509_stack_count(chain) == 3,
            X509_cmp(masthead_x509_stack_get(chain, 0), leaf.handle.pointer) == 0,
            X509_cmp(masthead_x509_stack_get(chain, 1), intermediate.handle.pointer) == 0,
            let root = roots.first(where: { X509_cmp(masthead_x509_stack_get(chain, 2), $0.handle.pointer) == 0 })
        else {
            let count = X509_STORE_CTX_get0_chain(context).map { masthead_x509_stack_count($0) } ?? 0
            throw .untrustedChain(reason: "OpenSSL built a chain of \(count) certificates that is not leaf → x5c intermediate → configured root")
        }
        return VerifiedChain(leaf: leaf, intermediate: intermediate, root: root)
    }

    /// The error for a chain OpenSSL refused, naming the certificate it stopped at.
    private func refusal(_ context: OpaquePointer, leaf: Certificate, intermediate: Certificate, at milliseconds: Int64) -> SignatureError {
        let code = X509_STORE_CTX_get_error(context)
        let reason = String(cString: X509_verify_cert_error_string(Int(code)))
        guard let current = X509_STORE_CTX_get_current_cert(context) else { return .untrustedChain(reason: reason) }
        let role: CertificateRole =
            X509_cmp(current, leaf.handle.pointer) == 0 ? .leaf : X509_cmp(current, intermediate.handle.pointer) == 0 ? .intermediate : .root
        let subject = X509Handle.subject(of: current)
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            if let notAfter = OpenSSL.milliseconds(X509_get0_notAfter(current)) {
                return .certificateExpired(role, subject: subject, notAfter: notAfter, at: milliseconds)
            }
        case X509_V_ERR_CERT_NOT_YET_VALID:
            if let notBefore = OpenSSL.milliseconds(X509_get0_notBefore(current)) {
                return .certificateNotYetValid(role, subject: subject, notBefore: notBefore, at: milliseconds)
            }
        default: break
        }
        return .untrustedChain(reason: "\(reason) (OpenSSL error \(code), at the \(role) certificate \(subject))")
    }
}
