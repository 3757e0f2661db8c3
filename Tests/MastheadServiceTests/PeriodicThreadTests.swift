import Dispatch
import Foundation
@testable import MastheadService
import Synchronization
import Testing

/// The thread behind the acknowledgements and the sweeps: a wake runs one more pass, however many
/// wakes came while a pass was under way.
struct PeriodicThreadTests {
    @Test func wakesDuringAPass_askForOneMorePassOnly() throws {
        let thread = PeriodicThread(name: "test")
        let passes = Mutex(0)
        let firstStarted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        thread.start(intervalSeconds: 3600) {
            let count = passes.withLock { count in
                count += 1
                return count
            }
            if count == 1 {
                firstStarted.signal()
                release.wait()
            } else if count == 2 {
                secondDone.signal()
            }
        }
        defer { thread.stop() }
        firstStarted.wait()
        for _ in 0..<50 { thread.wake() }
        release.signal()
        #expect(secondDone.wait(timeout: .now() + 20) == .success)
        // Fifty wakes signalled as many passes before; one more pass would follow at once.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(passes.withLock { $0 } == 2)
    }
}
