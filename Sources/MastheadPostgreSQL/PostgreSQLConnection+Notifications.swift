import CLibPQ
import Glibc

extension PostgreSQLConnection {
    /// Waits up to `milliseconds` for notifications on the channels this session listens on
    /// (`LISTEN`) and answers how many arrived (0 when none did in time).
    /// - Throws: ``PostgreSQLError/connection(target:message:)`` when the connection is lost.
    public func notifications(waitingUpTo milliseconds: Int32) throws(PostgreSQLError) -> Int {
        let pending = takeNotifications()
        if pending > 0 { return pending }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw .connection(target: target, message: "the connection has no socket") }
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 && errno != EINTR { throw .connection(target: target, message: String(cString: strerror(errno))) }
        if ready <= 0 { return 0 }
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            var message = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
            while message.last?.isNewline == true { message.removeLast() }
            throw .connection(target: target, message: message.isEmpty ? "the connection was closed" : message)
        }
        return takeNotifications()
    }

    /// Frees the notifications libpq has read; answers how many there were.
    private func takeNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }
}
