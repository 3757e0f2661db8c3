import Foundation
import Glibc
import Synchronization

/// The temporary files being written (an ``OutputFile``'s `*.partial-` and a random suffix), removed when a stop
/// signal ends the command.
///
/// While ``removedOnStopSignals(_:)`` runs its body, SIGINT and SIGTERM are blocked (threads
/// started meanwhile inherit the mask) and taken by one thread with `sigtimedwait`, as `serve`
/// does, so no audit worker is interrupted in the middle of a write. That thread removes every
/// registered file and then ends the process by the same signal with its default action: the
/// exit status says the command was stopped (130 for SIGINT and 143 for SIGTERM in a shell).
enum TemporaryFiles {
    /// Registered paths; the lock is never released once a stop signal arrived, so no file is
    /// created after the cleanup.
    private static let paths = Mutex<Set<String>>([])

    /// How often the signal thread checks whether the body is done.
    private static let pollNanoseconds = 100_000_000

    /// Records `path` before the file is created, so a stop signal at any moment removes it.
    static func register(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    /// Forgets `path` once it was renamed into place or removed.
    static func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// Runs `body` with SIGINT and SIGTERM removing the temporary files and ending the process.
    ///
    /// A signal the command was started ignoring (`nohup`, a background job of a script) stays
    /// ignored.
    static func removedOnStopSignals<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM] where !isIgnored(signal) { sigaddset(&signals, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &signals, &previous)
        let done = Done()
        let watched = signals
        let waiter = Thread {
            var set = watched
            var timeout = timespec(tv_sec: 0, tv_nsec: pollNanoseconds)
            while !done.flag.load(ordering: .acquiring) {
                let signal = sigtimedwait(&set, nil, &timeout)
                if signal > 0 { removeAllAndEnd(by: signal) }
            }
        }
        waiter.name = "stop-signals"
        waiter.start()
        defer {
            done.flag.store(true, ordering: .releasing)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    /// Removes every registered file, then ends the process by `signal` with its default action.
    private static func removeAllAndEnd(by signal: Int32) -> Never {
        paths.withLock { paths in
            for path in paths { unlink(path) }
            Glibc.signal(signal, SIG_DFL)
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, signal)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            raise(signal)
            // Not reached: the default action of SIGINT and SIGTERM ends the process.
            _exit(128 + signal)
        }
    }

    /// Whether the process was started with `signal` ignored.
    private static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        sigaction(signal, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Set once the body returned, to end the signal thread.
    private final class Done: Sendable {
        let flag = Atomic<Bool>(false)
    }
}
