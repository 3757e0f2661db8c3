import Foundation
import Synchronization

/// A counter of the notifications sent on one channel, fed by a connection of its own that
/// listens on it (`LISTEN`) from a thread, and read without a query from any thread.
///
/// While the connection is down, ``count`` is nil: what was notified meanwhile cannot be told.
/// The thread reconnects with a growing delay (50 ms doubling up to 2 s); once listening again
/// it moves the count, so a reader that compares counts looks at least once more. The thread
/// stops, and closes its connection, within a quarter of a second of the listener's release.
public final class PostgreSQLListener: Sendable {
    /// What the thread and the readers share; the thread keeps it, not the listener, so that
    /// releasing the listener stops the thread.
    private final class State: Sendable {
        let count = Atomic<UInt32>(0)
        let listening = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
        let reconnections = Atomic<Int>(0)
    }

    private let state = State()
    /// The channel listened on.
    public let channel: String

    /// Connects to `url` and listens on `channel` (a plain identifier), then goes on in a thread.
    /// - Throws: ``PostgreSQLError`` when the first connection or its `LISTEN` fails.
    public init(url: String, channel: String) throws(PostgreSQLError) {
        self.channel = channel
        let handover = Handover(try PostgreSQLListener.listen(url: url, channel: channel))
        state.listening.store(true, ordering: .releasing)
        let state = self.state
        let thread = Thread { PostgreSQLListener.run(url: url, channel: channel, first: handover.take(), state: state) }
        thread.name = "postgresql-listener"
        thread.start()
    }

    deinit { state.stopped.store(true, ordering: .releasing) }

    /// How many notifications arrived (wrapping around: compare for equality only), moved once
    /// more at every reconnection; nil while the connection is down.
    public var count: UInt32? {
        guard state.listening.load(ordering: .acquiring) else { return nil }
        let value = state.count.load(ordering: .acquiring)
        // A loss noticed between the two loads: the value read may lack notifications.
        return state.listening.load(ordering: .acquiring) ? value : nil
    }

    /// How many times the connection was made again after a loss.
    public var reconnections: Int { state.reconnections.load(ordering: .relaxed) }

    private static func listen(url: String, channel: String) throws(PostgreSQLError) -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(url)
        try connection.execute("LISTEN \(channel)")
        return connection
    }

    private static func run(url: String, channel: String, first: PostgreSQLConnection, state: State) {
        var connection: PostgreSQLConnection? = first
        var delay = 0.05
        while !state.stopped.load(ordering: .acquiring) {
            guard let listening = connection else {
                Thread.sleep(forTimeInterval: delay)
                if let again = try? listen(url: url, channel: channel) {
                    connection = again
                    delay = 0.05
                    // Whatever was notified while the connection was down is looked for again.
                    state.count.add(1, ordering: .releasing)
                    state.reconnections.add(1, ordering: .relaxed)
                    state.listening.store(true, ordering: .releasing)
                } else {
                    delay = min(delay * 2, 2)
                }
                continue
            }
            do {
                let arrived = try listening.notifications(waitingUpTo: 250)
                if arrived > 0 { state.count.add(UInt32(truncatingIfNeeded: arrived), ordering: .releasing) }
            } catch {
                state.listening.store(false, ordering: .releasing)
                connection = nil
            }
        }
    }

    /// Moves the first connection, made on the caller's thread, to the listening thread (used once, in that order).
    private final class Handover: @unchecked Sendable {
        private var connection: PostgreSQLConnection?
        init(_ connection: PostgreSQLConnection) { self.connection = connection }
        func take() -> PostgreSQLConnection {
            defer { connection = nil }
            return connection!
        }
    }
}
