import Dispatch
import Foundation
import Synchronization

/// A thread running a pass now and then every interval, until stopped (after the pass under way).
final class PeriodicThread: Sendable {
    private let name: String
    private let state = Mutex<(running: Bool, stopping: Bool, woken: Bool)>((false, false, false))
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    init(name: String) { self.name = name }

    /// Starts the thread running `pass` now and every `intervalSeconds`; nothing when started already.
    func start(intervalSeconds: Int, pass: @escaping @Sendable () -> Void) {
        let started = state.withLock { state -> Bool in
            guard !state.running, !state.stopping else { return false }
            state.running = true
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopping }) {
                state.withLock { $0.woken = false }
                pass()
                _ = wakeUp.wait(timeout: .now() + .seconds(intervalSeconds))
            }
            stopped.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs the next pass now rather than at the end of the interval (after the pass under way);
    /// nothing until started. Wakes made before that pass begins all ask for that one pass.
    func wake() {
        let signal = state.withLock { state -> Bool in
            guard state.running, !state.stopping, !state.woken else { return false }
            state.woken = true
            return true
        }
        if signal { wakeUp.signal() }
    }

    /// Whether ``stop()`` was called: a long pass asks between its steps.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Stops the thread after the pass under way and waits for it; nothing when it was not started.
    func stop() {
        let running = state.withLock { state -> Bool in
            state.stopping = true
            return state.running
        }
        guard running else { return }
        wakeUp.signal()
        stopped.wait()
    }
}
