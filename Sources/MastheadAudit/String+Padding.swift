extension String {
    /// The text followed by spaces up to `width` Unicode scalars (unchanged when longer): scalars,
    /// not characters, so that a reader counting code points (the Spark job) finds the columns
    /// where they are, whatever combining marks an id holds.
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - unicodeScalars.count)) }
}
