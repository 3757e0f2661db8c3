import CEpoll
import Glibc

/// An epoll instance with an eventfd to wake it from other threads. One thread waits on it.
public final class Poller {
    private let descriptor: Int32
    private let wakeHandle: WakeHandle
    private var wakeDescriptor: Int32 { wakeHandle.descriptor }
    private var events: [epoll_event]

    /// What a ready descriptor can do.
    public struct Readiness: Sendable {
        public var descriptor: Int32
        public var readable: Bool
        public var writable: Bool
        /// The peer hung up or the socket has an error.
        public var closed: Bool
    }

    /// Creates an epoll instance and its wake-up eventfd.
    public init(capacity: Int = 256) throws(SocketError) {
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw SocketError("epoll_create1") }
        let wake = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wake >= 0 else {
            let error = SocketError("eventfd")
            close(descriptor)
            throw error
        }
        wakeHandle = WakeHandle(descriptor: wake)
        events = [epoll_event](repeating: epoll_event(), count: capacity)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeDescriptor
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, wakeDescriptor, &event) == 0 else {
            let error = SocketError("epoll_ctl(ADD eventfd)")
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// Watches `fd` for reading (and writing when asked); `exclusive` wakes one of several pollers (EPOLLEXCLUSIVE).
    public func add(_ fd: Int32, writable: Bool = false, exclusive: Bool = false) throws(SocketError) {
        var event = epoll_event()
        // EPOLLEXCLUSIVE accepts only EPOLLIN/EPOLLOUT beside it.
        event.events = exclusive ? EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue
            : EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SocketError("epoll_ctl(ADD)") }
    }

    /// Changes whether `fd` is watched for reading and for writing (hang-ups and errors are always reported).
    public func modify(_ fd: Int32, readable: Bool = true, writable: Bool) throws(SocketError) {
        var event = epoll_event()
        event.events = (readable ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        guard epoll_ctl(descriptor, EPOLL_CTL_MOD, fd, &event) == 0 else { throw SocketError("epoll_ctl(MOD)") }
    }

    /// Stops watching `fd` (closing it also does).
    public func remove(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, &event)
    }

    /// Waits up to `milliseconds` for ready descriptors, put in `ready` (emptied first, its
    /// storage reused, so a loop that passes the same array each time does not allocate);
    /// answers whether it was woken.
    @discardableResult
    public func wait(milliseconds: Int32, into ready: inout [Readiness]) throws(SocketError) -> Bool {
        ready.removeAll(keepingCapacity: true)
        let count = events.withUnsafeMutableBufferPointer { epoll_wait(descriptor, $0.baseAddress, Int32($0.count), milliseconds) }
        if count < 0 {
            if errno == EINTR { return false }
            throw SocketError("epoll_wait")
        }
        var woken = false
        for index in 0..<Int(count) {
            let event = events[index]
            let fd = event.data.fd
            if fd == wakeDescriptor {
                var value: UInt64 = 0
                _ = read(wakeDescriptor, &value, 8)
                woken = true
                continue
            }
            ready.append(
                Readiness(
                    descriptor: fd, readable: event.events & EPOLLIN.rawValue != 0,
                    writable: event.events & EPOLLOUT.rawValue != 0,
                    closed: event.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return woken
    }

    /// A handle other threads use to wake this poller.
    public var waker: Waker { Waker(handle: wakeHandle) }
}

/// The eventfd behind a poller's wake-ups. It is closed only when the poller and every
/// ``Waker`` are gone, so a late wake-up can never write into a descriptor number reused by
/// another socket.
final class WakeHandle: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}

/// Wakes a ``Poller`` from any thread, even after the poller has ended.
public struct Waker: Sendable {
    let handle: WakeHandle

    /// Makes the poller's current or next wait return.
    public func wake() {
        var one: UInt64 = 1
        _ = write(handle.descriptor, &one, 8)
    }
}
