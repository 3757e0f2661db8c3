/// Input lines in memory of their own, shared by the records that point into it. Only the
/// bytes read into it are ever looked at.
final class LineBlock: @unchecked Sendable {
    /// The file they come from.
    let path: String
    /// Owned; written only by the reader before the block is handed on, read-only afterwards.
    let memory: UnsafeMutableBufferPointer<UInt8>

    init(path: String, capacity: Int) {
        self.path = path
        memory = .allocate(capacity: capacity)
    }

    deinit { memory.deallocate() }

    /// The bytes of `range`, valid while the block is.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: UnsafeBufferPointer(memory)[range]) }
}
