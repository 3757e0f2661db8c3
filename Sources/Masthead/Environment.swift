/// The App Store environment a transaction comes from (R14).
public enum Environment: String, Hashable, Sendable, CaseIterable {
    case production
    case sandbox
}
