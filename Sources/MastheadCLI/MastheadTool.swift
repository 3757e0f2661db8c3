import Glibc
public import Masthead
import MastheadFormats

/// The `masthead` command: a table of subcommands, each parsing its arguments, then running.
public enum MastheadTool {
    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    /// - Parameters:
    ///   - now: the default as-of instant.
    ///   - output, errors: file descriptors for standard output and standard error.
    public static func run(_ arguments: [String], now: Instant, output: Int32 = 1, errors: Int32 = 2) -> Int32 {
        let out = OutputFile(descriptor: output, name: "standard output")
        let err = OutputFile(descriptor: errors, name: "standard error")
        defer {
            try? out.flush()
            try? err.flush()
        }
        do {
            guard let name = arguments.first else {
                try out.write(HelpText.root)
                return 0
            }
            let rest = Array(arguments.dropFirst())
            if name == "--help" || name == "-h" || name == "help" {
                try out.write(HelpText.root)
                return 0
            }
            if rest.contains("--help") || rest.contains("-h"), let help = HelpText.command[name] {
                try out.write(help)
                return 0
            }
            switch name {
            case "check": return try CheckCommand(rest, now: now).run(output: out)
            // Stopped by SIGINT or SIGTERM, these leave no temporary output file behind.
            case "audit": return try TemporaryFiles.removedOnStopSignals { try AuditCommand(rest, now: now).run(output: out, errors: err) }
            case "timeline": return try TimelineCommand(rest, now: now).run(output: out)
            case "generate": return try TemporaryFiles.removedOnStopSignals { try GenerateCommand(rest, now: now).run(output: out) }
            case "serve": return try ServeCommand(rest).run(output: out, errors: err)
            case "refresh": return try RefreshCommand(rest).run(output: out)
            default:
                throw CLIError.usage("unknown command '\(name)' (see 'masthead --help')")
            }
        } catch let error as CLIError {
            try? out.flush()
            try? err.write("masthead: \(error)\n")
            return error.exitStatus
        } catch {
            try? err.write("masthead: \(error)\n")
            return 1
        }
    }

    /// The current instant from the system clock.
    public static func currentInstant() -> Instant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Instant(milliseconds: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}

/// Options several commands share.
enum CommonOptions {
    /// Loads `DIR/catalog.json` (or the file itself when a file is named).
    static func catalog(_ path: String) throws(CLIError) -> Catalog {
        let file = Files.isDirectory(path) ? path + "/catalog.json" : path
        let bytes = try Files.read(file)
        do { return try CatalogDecoder().decode(bytes, file: file) } catch { throw CLIError.invalidInput(path: file, error) }
    }

    /// The as-of instant from `--at`, or `now`.
    static func instant(_ text: String?, now: Instant, command: String) throws(CLIError) -> Instant {
        guard let text else { return now }
        guard let instant = DateText.rfc3339(text) else {
            throw CLIError.usage("\(command): --at '\(text)' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z")
        }
        return instant
    }

    /// The environment from `--environment` (production by default).
    static func environment(_ text: String?, command: String) throws(CLIError) -> Environment {
        guard let text else { return .production }
        guard let environment = Environment(rawValue: text.lowercased()) else {
            throw CLIError.usage("\(command): --environment must be production or sandbox, not '\(text)'")
        }
        return environment
    }
}
