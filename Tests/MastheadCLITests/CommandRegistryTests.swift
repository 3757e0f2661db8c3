import Foundation
import Masthead
import MastheadAudit
@testable import MastheadCLI
import Testing

/// The commands are registered once (``MastheadTool/commands``): the help, the dispatch and the
/// README's table of commands all list the same ones.
struct CommandRegistryTests {
    /// The names of the registered commands, as their bytes.
    static var registered: [[UInt8]] { MastheadTool.commands.map { Array($0.spec.name.utf8) } }

    /// The README's table of commands (`| \`masthead NAME\` | … |` rows) names every registered
    /// command, once, and no other.
    @Test func readmeCommandTable_listsExactlyTheRegisteredCommands() throws {
        let readme = try String(contentsOf: Tool.root.appendingPathComponent("README.md"), encoding: .utf8)
        var rows: [[UInt8]] = []
        for line in readme.split(separator: "\n") where line.hasPrefix("| `masthead ") {
            let cell = line.dropFirst("| `masthead ".count).prefix { $0 != "`" }
            rows.append(Array(cell.utf8))
        }
        #expect(!rows.isEmpty, "no `| \\`masthead NAME\\` | … |` rows in README.md")
        let names = { (list: [[UInt8]]) in list.map { String(decoding: $0, as: UTF8.self) }.sorted() }
        #expect(Set(rows).count == rows.count, "listed twice in the README: \(names(rows))")
        #expect(Set(rows) == Set(Self.registered), "README \(names(rows)), registered \(names(Self.registered))")
    }

    /// The program's help lists the registered commands in their order, and each runs: its
    /// `--help` is its own spec's help.
    @Test func programHelp_andDispatch_comeFromTheRegistry() throws {
        #expect(MastheadTool.spec.commands.map { Array($0.name.utf8) } == Self.registered)
        #expect(Set(Self.registered).count == Self.registered.count)
        for command in MastheadTool.commands {
            let outcome = try Tool.run([command.spec.name, "--help"])
            #expect(outcome.status == 0)
            #expect(outcome.output == command.spec.help, "\(command.spec.name)")
        }
    }

    /// Only the commands that write output files through temporary files remove them on a stop signal.
    @Test func temporaryFilesRemovedOnStopSignals_byAuditAndGenerateOnly() {
        let removing = MastheadTool.commands.filter { $0.removesTemporaryFilesOnStopSignals }.map { $0.spec.name }
        #expect(removing == ["audit", "generate"])
    }
}

/// Choice options are declared once with their choices: the help names exactly the values the
/// parser accepts, the default marked, and a value outside them is refused naming the option, the
/// value and the choices.
struct ChoiceOptionTests {
    static func parsed(_ arguments: [String], _ option: OptionSpec) throws(CLIError) -> Arguments {
        try Arguments(arguments, spec: CommandSpec(name: "try", summary: "", description: "", options: [option]))
    }

    /// The message of the usage error `body` throws; nil when it throws none.
    static func refusal(_ body: () throws(CLIError) -> Void) -> String? {
        do { try body() } catch { return error.description }
        return nil
    }

    static func check<Choice: CaseIterable & RawRepresentable<String> & Sendable>(_ option: ChoiceOption<Choice>, help: String, refusal: String) throws {
        #expect(option.spec.help == help)
        for choice in Choice.allCases {
            let value = try option.value(in: try parsed(["--\(option.name)", choice.rawValue], option.spec), command: "try")
            #expect(value.rawValue == choice.rawValue)
        }
        #expect(try option.value(in: try parsed([], option.spec), command: "try").rawValue == option.defaultChoice.rawValue)
        #expect(Self.refusal { () throws(CLIError) in _ = try option.value(in: try parsed(["--\(option.name)", "xml"], option.spec), command: "try") } == refusal)
    }

    @Test func formatsAndEnvironment_helpAndCheck_comeFromTheirChoices() throws {
        try Self.check(CheckCommand.formatOption, help: "text (default) or json.", refusal: "try: --format must be text or json, not 'xml'")
        try Self.check(AuditCommand.formatOption, help: "jsonl (default) or csv.", refusal: "try: --format must be jsonl or csv, not 'xml'")
        try Self.check(CommonOptions.environment, help: "production (default) or sandbox.", refusal: "try: --environment must be production or sandbox, not 'xml'")
    }

    /// `--environment` is matched in any case, as it always was; the formats exactly.
    @Test func environment_isMatchedInAnyCase_formatsExactly() throws {
        let environment = CommonOptions.environment
        #expect(try environment.value(in: try Self.parsed(["--environment", "Sandbox"], environment.spec), command: "try") == .sandbox)
        let format = CheckCommand.formatOption
        let refused = Self.refusal { () throws(CLIError) in _ = try format.value(in: try Self.parsed(["--format", "JSON"], format.spec), command: "try") }
        #expect(refused == "try: --format must be text or json, not 'JSON'")
    }
}

/// An instant option is read the same way for every command, and its error names the option given.
struct InstantOptionTests {
    @Test(arguments: [
        (["timeline", "--catalog", "c", "--receipt", "r", "--output", "o.svg", "--from", "May"], "timeline: --from 'May' is not an RFC 3339 instant"),
        (["generate", "--catalog", "c", "--users", "1", "--grants-at", "May"], "generate: --grants-at 'May' is not an RFC 3339 instant"),
        (["audit", "--catalog", "c", "--receipts", "r", "--at", "2020-07-02T00:00:00Z", "--at", "May"], "audit: --at 'May' is not an RFC 3339 instant"),
    ])
    func notAnInstant_isUsageError_namingTheOption(arguments: [String], message: String) throws {
        let outcome = try Tool.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.errors == "masthead: \(message) such as 2020-07-02T00:00:00Z\n")
    }
}
