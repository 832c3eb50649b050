import ArgumentParser
import Foundation

@main
struct JourneyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journey",
        abstract: "Write mobile sign-in journeys in YAML, check them, run them headlessly, and regression-test them.",
        discussion: """
            A journey is a YAML file: screens, the handler that runs each step, where every outcome \
            leads and what state changes. A scenario plays one run of a journey: the device, the \
            inputs at each step, restarts and clock jumps, and the end it must reach. Every run \
            writes a transcript.

            Start here:
              journey check journeys/                       # every problem, with file:line:column
              journey run --scenario journeys/eduid/scenarios/happy-path.scenario.yaml
              journey test journeys/                        # all scenarios against their golden transcripts

            Exit codes:
              0  success
              1  a journey or scenario failed (wrong end, failed assertion, transcript differs)
              2  invalid input or usage (a file with errors, a bad option, an unwritable output)
            """,
        version: "0.1.0",
        subcommands: [CheckCommand.self, RunCommand.self, TestCommand.self, DocsCommand.self, BenchCommand.self]
    )

    /// `journey` on its own is a usage error: print the help and exit 2.
    func run() async throws {
        FileHandle.standardError.write(Data(Self.helpMessage().utf8))
        throw ExitCode(ExitStatus.invalid)
    }

    /// Runs the command, mapping usage errors to exit code 2 as documented.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            Foundation.exit(ExitStatus.invalid)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            if code.rawValue == 64 || code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.invalid)
            }
            exit(withError: error)
        }
    }
}

/// The documented exit codes.
enum ExitStatus {
    static let ok: Int32 = 0
    static let failed: Int32 = 1
    static let invalid: Int32 = 2
}
