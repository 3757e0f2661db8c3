public import Foundation

/// The Chromium the browser tests drive, and where their screenshots go.
///
/// The binary is the one `MASTHEAD_TEST_CHROMIUM` names, else `/usr/bin/chromium`. When it is
/// not installed, every browser test fails saying how to install it, unless
/// `MASTHEAD_SKIP_BROWSER=1` leaves those tests out.
public enum TestChromium {
    /// Whether the developer left the browser tests out (`MASTHEAD_SKIP_BROWSER=1`).
    public static let isSkipped = ProcessInfo.processInfo.environment["MASTHEAD_SKIP_BROWSER"] == "1"

    /// The Chromium executable.
    public static let binary: String = {
        if let given = ProcessInfo.processInfo.environment["MASTHEAD_TEST_CHROMIUM"], !given.isEmpty { return given }
        return "/usr/bin/chromium"
    }()

    /// The folder screenshots are written to: `MASTHEAD_SCREENSHOTS`, else
    /// `.build/console-screenshots/` in the package.
    public static let screenshots: URL = {
        if let given = ProcessInfo.processInfo.environment["MASTHEAD_SCREENSHOTS"], !given.isEmpty {
            return URL(fileURLWithPath: given, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/console-screenshots", isDirectory: true)
    }()

    /// A new headless browser with one blank page; close it when done.
    public static func launch() throws(BrowserError) -> HeadlessChromium {
        try HeadlessChromium.launch(binary: binary, screenshots: screenshots)
    }
}
