import Glibc
import MastheadSockets
import Synchronization

/// Responses waiting for their loop, filled from any thread.
final class Mailbox: Sendable {
    struct Letter: Sendable {
        var descriptor: Int32
        var requestId: UInt64
        var response: HTTPResponse
    }

    private let letters = Mutex<[Letter]>([])
    let waker: Waker
    /// The loop's thread: posting from it needs no wake-up, the loop reads the mailbox next.
    private let owner = Atomic<UInt>(0)

    init(waker: Waker) { self.waker = waker }

    /// Records the calling thread as the loop's.
    func adoptCurrentThread() { owner.store(UInt(pthread_self()), ordering: .relaxed) }

    func post(_ letter: Letter) {
        letters.withLock { $0.append(letter) }
        if owner.load(ordering: .relaxed) != UInt(pthread_self()) { waker.wake() }
    }

    /// Moves the waiting letters into `taken`, which must be empty, giving the mailbox `taken`'s
    /// storage in exchange: a loop that empties `taken` (keeping its capacity) before the next call
    /// takes its letters without allocating.
    func take(into taken: inout [Letter]) {
        letters.withLock { swap(&$0, &taken) }
    }
}
