import Glibc

/// A failed system call on a socket or poller, with `errno` and its `strerror` text.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed, such as `bind`.
    public var call: String
    public var errno: Int32
    public var message: String

    /// Captures the current `errno` for `call`.
    public init(_ call: String) { self.init(call, errno: Glibc.errno) }

    /// An error for `call` with a given error number.
    public init(_ call: String, errno code: Int32) {
        self.call = call
        errno = code
        message = String(cString: strerror(code))
    }

    public var description: String { "\(call) failed: \(message) (errno \(errno))" }
}
