import ArgumentParser
import Testing

@testable import JourneyCLI

/// A command's `--help` is read in terminals 80 columns wide and in logs, where the help is
/// laid out for 80 columns. What a command's help lays out by hand (an example with its
/// comment, a table of ids, a list) must fit them: a wider line is broken at the 80th column
/// and its end printed at the start of the next line, out of its column.
@Suite("--help at 80 columns")
struct HelpLayoutTests {
    /// Every command, as typed after `journey`, with its type.
    static let commands: [(name: String, type: any ParsableCommand.Type)] = {
        var found: [(String, any ParsableCommand.Type)] = []
        func visit(_ type: any ParsableCommand.Type, _ name: String) {
            found.append((name, type))
            for sub in type.configuration.subcommands {
                visit(sub, name.isEmpty ? sub._commandName : "\(name) \(sub._commandName)")
            }
        }
        visit(JourneyCommand.self, "")
        return found
    }()

    @Test("every line a command's help lays out by hand is printed whole at 80 columns, in its column")
    func handLaidLinesFit() {
        #expect(Self.commands.count >= 12, "\(Self.commands.map(\.name))")
        for (name, type) in Self.commands {
            let help = JourneyCommand.helpMessage(for: type, columns: 80)
            let printed = Set(help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            let laidOut = type.configuration.discussion.split(separator: "\n").map(String.init).filter {
                $0.first == " "
            }
            for line in laidOut {
                #expect(line.count <= 80, "journey \(name) --help: \(line.count) columns: \(line)")
                #expect(printed.contains(line), "journey \(name) --help at 80 columns breaks: \(line)")
            }
        }
    }

    /// (The usage line is swift-argument-parser's, printed whole as shells and man pages do.)
    @Test("no line of any help is wider than 80 columns, but the usage line")
    func noLineIsWider() {
        for (name, type) in Self.commands {
            for line in JourneyCommand.helpMessage(for: type, columns: 80).split(separator: "\n")
            where !line.hasPrefix("USAGE:") {
                #expect(line.count <= 80, "journey \(name) --help: \(line)")
            }
        }
    }
}
