public import Foundation
import Glibc
public import MastheadJSON

/// One headless Chromium with one page, driven over the DevTools protocol's pipe
/// (`--remote-debugging-pipe`), for tests of pages in a real browser.
///
/// Everything is synchronous on the caller's thread: a command is written, then messages are read
/// until its answer, recording the events met on the way (page loads; console errors,
/// exceptions and CSP violations in ``problems``). ``close()`` kills the browser and removes its
/// temporary profile; so does deinit.
public final class HeadlessChromium {
    /// The browser's process id (also its process group: its helpers are in that group).
    public let processId: pid_t
    /// The folder ``screenshot(_:)`` writes to.
    public let screenshots: URL
    /// How long one command may take to be answered.
    public var commandTimeout: Duration = .seconds(60)
    /// What went wrong in the page so far.
    public private(set) var problems = BrowserProblems()

    /// The temporary folder holding the profile and the browser's log; removed by ``close()``.
    public let folder: String
    private let pipe: DevToolsPipe
    /// The flattened session of the page.
    private var session: String?
    private var lastCommandId: Int64 = 0
    /// `Page.loadEventFired` events seen.
    private var loads = 0
    private var isClosed = false

    private init(processId: pid_t, pipe: DevToolsPipe, folder: String, screenshots: URL) {
        self.processId = processId
        self.pipe = pipe
        self.folder = folder
        self.screenshots = screenshots
    }

    deinit { close() }

    /// Starts `binary` headless with a fresh profile and attaches to a new blank page.
    public static func launch(binary: String, screenshots: URL) throws(BrowserError) -> HeadlessChromium {
        guard access(binary, X_OK) == 0 else { throw .notInstalled(binary) }
        var template = Array((NSTemporaryDirectory() + "/masthead-chromium-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw .cannotLaunch("mkdtemp errno \(errno)") }
        let folder = String(cString: created)
        let spawned: (pid_t, DevToolsPipe)
        do {
            spawned = try spawn(binary, folder: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        let browser = HeadlessChromium(processId: spawned.0, pipe: spawned.1, folder: folder, screenshots: screenshots)
        let target = try browser.command("Target.createTarget", inSession: false) { $0.field("url", "about:blank") }
        guard let targetId = target["targetId"]?.string else { throw .malformedMessage("Target.createTarget answered no targetId") }
        let attached = try browser.command("Target.attachToTarget", inSession: false) {
            $0.field("targetId", targetId)
            $0.field("flatten", true)
        }
        guard let session = attached["sessionId"]?.string else { throw .malformedMessage("Target.attachToTarget answered no sessionId") }
        browser.session = session
        for domain in ["Page", "Runtime", "Log"] { _ = try browser.command(domain + ".enable") }
        return browser
    }

    /// Starts the browser with its fd 3 and fd 4 on two new pipes, in its own process group.
    private static func spawn(_ binary: String, folder: String) throws(BrowserError) -> (pid_t, DevToolsPipe) {
        // [read, write] of each pipe, moved at once to 10 and above, closing on exec (but for the
        // child's 3 and 4), so that the moves onto 3 and 4 in the child cannot overwrite one another.
        var commands: [Int32] = [-1, -1]
        var events: [Int32] = [-1, -1]
        guard Glibc.pipe(&commands) == 0 else { throw .cannotLaunch("pipe errno \(errno)") }
        guard Glibc.pipe(&events) == 0 else {
            commands.forEach { Glibc.close($0) }
            throw .cannotLaunch("pipe errno \(errno)")
        }
        let descriptors = (commands + events).map { descriptor in
            let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
            Glibc.close(descriptor)
            return moved
        }
        let (childReads, ourWrites, ourReads, childWrites) = (descriptors[0], descriptors[1], descriptors[2], descriptors[3])
        defer {
            Glibc.close(childReads)
            Glibc.close(childWrites)
        }
        guard !descriptors.contains(-1) else {
            [ourWrites, ourReads].forEach { Glibc.close($0) }
            throw .cannotLaunch("fcntl errno \(errno)")
        }
        let arguments = [
            binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--user-data-dir=\(folder)/profile",
            "--window-size=1280,900", "about:blank",
        ]
        // Its own process group, so that close() can end its helpers too.
        let processId: pid_t
        do {
            processId = try ChildProcess.spawn(arguments, log: folder + "/chromium.log", descriptors: [(childReads, 3), (childWrites, 4)], ownGroup: true)
        } catch {
            [ourWrites, ourReads].forEach { Glibc.close($0) }
            throw .cannotLaunch(error.description)
        }
        return (processId, DevToolsPipe(toBrowser: ourWrites, fromBrowser: ourReads))
    }

    /// Ends the browser (politely, then by SIGKILL to its process group) and removes its profile.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        lastCommandId += 1
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("id", lastCommandId)
        writer.field("method", "Browser.close")
        writer.endObject()
        try? pipe.send(writer.bytes)
        if !waitForExit(within: .seconds(10)) {
            kill(processId, SIGKILL)
            _ = waitForExit(within: .seconds(10))
        }
        // Helpers left behind by a browser that did not end cleanly.
        kill(-processId, SIGKILL)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Reaps the browser; answers whether it exited within `limit`.
    private func waitForExit(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let reaped = waitpid(processId, &status, WNOHANG)
            if reaped == processId || (reaped < 0 && errno == ECHILD) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Sends `method` (to the page's session unless `inSession` is false) with the parameters
    /// `parameters` writes into an object, and answers its `result`.
    @discardableResult
    public func command(_ method: String, inSession: Bool = true, parameters: (inout JSONWriter) -> Void = { _ in }) throws(BrowserError) -> JSONValue {
        lastCommandId += 1
        let id = lastCommandId
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("id", id)
        writer.field("method", method)
        if inSession, let session { writer.field("sessionId", session) }
        writer.key("params")
        writer.beginObject()
        parameters(&writer)
        writer.endObject()
        writer.endObject()
        do { try pipe.send(writer.bytes) } catch { throw closedWithLog() }
        let deadline = ContinuousClock.now + commandTimeout
        while true {
            guard let message = try receive(before: deadline) else { throw .timedOut("the answer to \(method)") }
            let root = message.root
            guard root["id"]?.int64 == id else {
                handleEvent(root)
                continue
            }
            if let error = root["error"] { throw .commandFailed(method: method, message: error["message"]?.string ?? "an error") }
            guard let result = root["result"] else { throw .malformedMessage("the answer to \(method) has no result") }
            return result
        }
    }

    /// Reads messages until `deadline`, recording their events, until `done()` holds.
    func pumpEvents(until done: () -> Bool, before deadline: ContinuousClock.Instant, awaiting what: String) throws(BrowserError) {
        while !done() {
            guard let message = try receive(before: deadline) else { throw .timedOut(what) }
            handleEvent(message.root)
        }
    }

    /// How many loads the page has finished so far.
    var loadCount: Int { loads }

    private func receive(before deadline: ContinuousClock.Instant) throws(BrowserError) -> JSONDocument? {
        do { return try pipe.receive(before: deadline) } catch {
            if case .browserClosed = error { throw closedWithLog() }
            throw error
        }
    }

    private func handleEvent(_ message: JSONValue) {
        guard let method = message["method"]?.string, let params = message["params"] else { return }
        if method == "Page.loadEventFired" { loads += 1 }
        problems.record(method, params)
    }

    /// `browserClosed` with the last lines of the browser's log.
    private func closedWithLog() -> BrowserError {
        let log = (try? String(contentsOfFile: folder + "/chromium.log", encoding: .utf8)) ?? ""
        return .browserClosed(log.split(separator: "\n").suffix(20).joined(separator: "\n"))
    }
}
