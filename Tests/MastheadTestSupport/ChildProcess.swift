public import Glibc

/// Starting a server or browser a test drives: `posix_spawn` with standard input from
/// `/dev/null`, standard output and error into a log file, no signal blocked and SIGTERM and
/// SIGPIPE as by default whatever the test thread has (a blocked SIGTERM would never stop it).
public enum ChildProcess {
    /// Spawns `arguments[0]` (the binary) with `arguments`; `log` (created mode 0600) takes its
    /// output; each of `descriptors` is duplicated onto the child's `to`; `ownGroup` puts it in a
    /// process group of its own (so that its helpers can be signalled with it).
    /// - Returns: the child's process id.
    /// - Throws: ``SpawnFailure`` with the `errno` of `posix_spawn`.
    public static func spawn(
        _ arguments: [String], log: String, descriptors: [(from: Int32, to: Int32)] = [], ownGroup: Bool = false
    ) throws(SpawnFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        for (from, to) in descriptors { posix_spawn_file_actions_adddup2(&actions, from, to) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        if ownGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var processId: pid_t = 0
        let status = posix_spawn(&processId, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else { throw SpawnFailure(binary: arguments[0], errno: status) }
        return processId
    }

    /// Why a child could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public let binary: String
        public let errno: Int32
        public var description: String { "posix_spawn \(binary): errno \(errno)" }
    }
}
