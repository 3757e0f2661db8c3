/// Carries any error through the typed transaction APIs of the SQLite and PostgreSQL wrappers,
/// for their untyped forms.
package struct AnyBodyError: Error {
    /// The body's error, or the connection's.
    package let error: any Error

    package init(_ error: any Error) { self.error = error }

    /// Runs `body`, which throws errors of any type, through `typed`, which takes bodies of one
    /// error type; rethrows `body`'s error as it was, and the connection's as itself.
    package static func passing<R>(_ body: () throws -> R, through typed: (() throws(AnyBodyError) -> R) throws(AnyBodyError) -> R) throws -> R {
        try withoutActuallyEscaping(body) { (body) throws -> R in
            do throws(AnyBodyError) {
                return try typed { () throws(AnyBodyError) -> R in
                    do { return try body() } catch { throw AnyBodyError(error) }
                }
            } catch {
                throw error.error
            }
        }
    }
}
