extension String {
    /// The text followed by spaces up to `width` characters (unchanged when longer).
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - count)) }
}
