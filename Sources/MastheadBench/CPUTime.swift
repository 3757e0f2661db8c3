import Glibc

/// User and system CPU time of a process or of one thread, in seconds, from `/proc/…/stat`
/// (counted in clock ticks, a hundredth of a second here).
struct CPUTime {
    var user: Double
    var system: Double

    var total: Double { user + system }

    /// The whole process `pid`, all its threads; nil when it is gone.
    static func process(_ pid: Int32) -> CPUTime? { read("/proc/\(pid)/stat") }

    /// One thread of this process, by its kernel thread id (`gettid()`); nil when it is gone.
    static func thread(_ tid: Int32) -> CPUTime? { read("/proc/self/task/\(tid)/stat") }

    static func - (after: CPUTime, before: CPUTime) -> CPUTime {
        CPUTime(user: after.user - before.user, system: after.system - before.system)
    }

    /// Fields 14 and 15 of a `stat` file (`utime`, `stime`), counted after the command's closing
    /// parenthesis, since the command's name may hold spaces.
    private static func read(_ path: String) -> CPUTime? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, let close = bytes[0..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 12, let user = Int(String(decoding: fields[11], as: UTF8.self)),
            let system = Int(String(decoding: fields[12], as: UTF8.self))
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return CPUTime(user: Double(user) / ticks, system: Double(system) / ticks)
    }
}
