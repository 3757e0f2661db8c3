/// The project's version, the one every command and document that prints a version shows.
public enum MastheadVersion {
    /// The version of this release, as semantic versioning writes it.
    public static let current = "0.11.0"
}
