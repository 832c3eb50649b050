import ArgumentParser
import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
              journey new project my-app    # a project that passes check and test
              journey play examples.unlock  # play a journey; :save makes a scenario
              journey check journeys/       # every problem, with file:line:column
              journey run --scenario journeys/eduid/scenarios/happy-path.scenario.yaml
              journey test journeys/        # every scenario against its goldens

            A journeykit.yaml in the working folder or any folder above names the project's \
            journey folders (what check, test and docs work on when given no path), the journeys \
            they may call from elsewhere (uses:), and defaults for the locale, --jobs and \
            kdfRounds. See docs/journey-format.md#the-project-file.

            Steps name built-in handlers (ui.screen, pin.verify, oidc.token, ...) or handlers of \
            your own, which a Swift package adds to every command by starting them with \
            JourneyCLI.main(handlers:). See docs/journey-format.md#handlers-of-your-own.

            Exit codes:
              0  success
              1  a journey or scenario failed (wrong end, failed assertion, transcript
                 differs)
              2  invalid input or usage (a file with errors, a bad option, an unwritable
                 output)
            """,
        version: "0.1.0",
        subcommands: [
            CheckCommand.self, RunCommand.self, TestCommand.self, DocsCommand.self, HandlersCommand.self,
            ExploreCommand.self, PlayCommand.self, NewCommand.self, BenchCommand.self,
        ]
    )

    /// `journey` on its own is a usage error: print the help and exit 2.
    func run() async throws {
        Console().err(Self.helpMessage())
        throw ExitCode(ExitStatus.invalid)
    }

    /// Runs the command, mapping usage errors to exit code 2 as documented. Standard output
    /// and standard error are written with `write(2)`; a write that fails (a full disk, a
    /// closed pipe) ends the command with a message and exit code 2.
    static func main() async {
        // A closed pipe is a write error to report (EPIPE), not a signal that ends the process
        // without a word. A handler that does nothing, rather than SIG_IGN, so that the
        // processes the CLI starts (Graphviz's dot) get the default again when they exec.
        signal(SIGPIPE) { _ in }
        let console = Console()
        let streams = StandardStreams.shared
        var status = ExitStatus.ok
        do {
            try await parseAndRun()
        } catch let error as CLIError {
            console.err("error: \(PrintableText.escaped(error.message))\n")
            status = ExitStatus.invalid
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                // --help and --version.
                streams.describeOutput(as: message == configuration.version ? "the version" : "the help")
                if !message.isEmpty { console.out(message + "\n") }
            } else if code.rawValue == 64 || code == .validationFailure {
                console.err(message + "\n")
                if let hint = usageHint(for: message) { console.err("hint: \(hint)\n") }
                status = ExitStatus.invalid
            } else {
                if !message.isEmpty { console.err(message + "\n") }
                status = code.rawValue
            }
        }
        Foundation.exit(streams.finish(status))
    }

    /// Ends the process before any command runs: the message on standard error, exit 2.
    static func exit(failing message: String) -> Never {
        signal(SIGPIPE) { _ in }
        Console().err(message)
        Foundation.exit(StandardStreams.shared.finish(ExitStatus.invalid))
    }
}

extension JourneyCommand {
    /// Parses the arguments and runs the command they name.
    fileprivate static func parseAndRun() async throws {
        var command = try parseAsRoot()
        if let described = command as? any DescribesStandardOutput {
            StandardStreams.shared.describeOutput(as: type(of: described).standardOutput)
        }
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }
}

extension JourneyCommand {
    /// A hint for a usage error a new user makes: `journey run X.scenario.yaml`, the scenario
    /// given where the journey goes.
    static func usageHint(
        for message: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> String? {
        guard arguments.first == "run", message.contains("Missing expected argument '--scenario"),
            let scenario = arguments.dropFirst().first(where: {
                $0.hasSuffix(".scenario.yaml") || $0.hasSuffix(".scenario.yml")
            })
        else { return nil }
        return "a scenario is played with --scenario: journey run --scenario \(scenario)"
    }
}

/// The documented exit codes.
enum ExitStatus {
    static let ok: Int32 = 0
    static let failed: Int32 = 1
    static let invalid: Int32 = 2
}
