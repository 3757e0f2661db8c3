/// Why a browser test could not drive Chromium.
public enum BrowserError: Error, CustomStringConvertible {
    /// No executable Chromium at the path.
    case notInstalled(String)
    /// The browser could not be started.
    case cannotLaunch(String)
    /// The browser closed its end of the pipe (exited or crashed); the tail of its log.
    case browserClosed(String)
    /// Nothing answered in time: what was awaited.
    case timedOut(String)
    /// A DevTools message over the size limit.
    case messageTooLarge(Int)
    /// A DevTools message that is not the protocol's JSON.
    case malformedMessage(String)
    /// A command the browser refused: the method and the browser's message.
    case commandFailed(method: String, message: String)
    /// A script threw: the script's first line and the exception.
    case scriptFailed(script: String, exception: String)
    /// No element matches the selector.
    case noElement(String)

    public var description: String {
        switch self {
        case .notInstalled(let path):
            """
            Chromium is not installed (no executable \(path)), so the console cannot be tested in a browser: install it with \
            `apt-get install chromium` (or name another binary in MASTHEAD_TEST_CHROMIUM, or set MASTHEAD_SKIP_BROWSER=1 to leave these tests out)
            """
        case .cannotLaunch(let reason): "cannot launch Chromium: \(reason)"
        case .browserClosed(let log): "Chromium closed the DevTools pipe; its log ends with:\n\(log)"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .messageTooLarge(let limit): "a DevTools message is longer than \(limit) bytes"
        case .malformedMessage(let reason): "malformed DevTools message: \(reason)"
        case .commandFailed(let method, let message): "\(method) failed: \(message)"
        case .scriptFailed(let script, let exception): "script `\(script)` threw: \(exception)"
        case .noElement(let selector): "no element matches \(selector)"
        }
    }
}
