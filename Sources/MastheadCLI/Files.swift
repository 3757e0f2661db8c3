import Glibc

/// Reading files with POSIX calls, reporting failures with `strerror`.
enum Files {
    /// The whole content of a file.
    static func read(_ path: String) throws(CLIError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether a path names a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
