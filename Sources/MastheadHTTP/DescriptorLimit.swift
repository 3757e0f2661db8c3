import Glibc

/// The process's open-file limit (`RLIMIT_NOFILE`) against what a server's configuration needs:
/// a descriptor per connection (`threads × maxConnectionsPerThread`) and ``reserved`` more for
/// the listener, the pollers, the database and the outgoing connections.
public struct DescriptorLimit: Sendable, Hashable {
    /// Descriptors kept beside the connections.
    public static let reserved = 64

    /// The descriptors the configuration needs.
    public var needed: Int
    /// The soft limit now.
    public var limit: Int
    /// The hard limit, past which the soft one cannot be raised.
    public var hardLimit: Int

    /// Whether the limit lets every connection the configuration allows be open at once.
    public var isEnough: Bool { limit >= needed }

    /// The most connections each of `threads` event loops may hold so that ``reserved``
    /// descriptors stay free under the limit (at least 1).
    public func connectionsPerThread(threads: Int) -> Int { max(1, (limit - DescriptorLimit.reserved) / max(1, threads)) }

    /// The descriptors `configuration` needs.
    public static func needed(by configuration: HTTPServerConfiguration) -> Int {
        let connections = max(1, configuration.threads).multipliedReportingOverflow(by: max(0, configuration.maxConnectionsPerThread))
        guard !connections.overflow else { return Int.max }
        let total = connections.partialValue.addingReportingOverflow(reserved)
        return total.overflow ? Int.max : total.partialValue
    }

    /// Raises the soft open-file limit towards what `configuration` needs, up to the hard limit,
    /// and says where it stands (never lowers it).
    public static func raise(toServe configuration: HTTPServerConfiguration) -> DescriptorLimit {
        let needed = needed(by: configuration)
        var current = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &current) == 0 else {
            return DescriptorLimit(needed: needed, limit: 0, hardLimit: 0)
        }
        let soft = Int(clamping: current.rlim_cur)
        let hard = Int(clamping: current.rlim_max)
        guard soft < needed && soft < hard else { return DescriptorLimit(needed: needed, limit: soft, hardLimit: hard) }
        var raised = current
        raised.rlim_cur = rlim_t(min(needed, hard))
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else {
            return DescriptorLimit(needed: needed, limit: soft, hardLimit: hard)
        }
        return DescriptorLimit(needed: needed, limit: min(needed, hard), hardLimit: hard)
    }
}
