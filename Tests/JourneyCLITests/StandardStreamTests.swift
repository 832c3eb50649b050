import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output or standard error that cannot be written (a full disk, a closed pipe) is
/// an error the user is told about, with exit 2, never a crash.
@Suite("journey: standard output and standard error that cannot be written", .timeLimit(.minutes(30)))
struct StandardStreamTests {
    /// Runs `journey` through `sh`, with `redirection` (like `> /dev/full`) applied to it.
    static func runRedirected(_ arguments: [String], _ redirection: String) async throws -> RunResult {
        let binary = try #require(Paths.journeyBinary)
        return try await runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$@\" \(redirection)", "sh", binary.path] + arguments)
    }

    @Test("journey run > /dev/full: exit 2 and one line saying the transcript could not be written")
    func runToFullDisk() async throws {
        let result = try await Self.runRedirected(["run", "--scenario", RunTests.happyPath], "> /dev/full")
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(
            result.stderrLines == [
                "error: cannot write the transcript to standard output: No space left on device"
            ], "\(result)")
    }

    @Test("journey test > /dev/full: exit 2 and a message")
    func testToFullDisk() async throws {
        let result = try await Self.runRedirected(["test", "journeys/examples"], "> /dev/full")
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(
            result.stderrLines.last == "error: cannot write the results to standard output: No space left on device",
            "\(result)")
    }

    @Test(
        "journey check, run and test with standard error on /dev/full: exit 2, no crash",
        arguments: [
            ["check", "journeys/examples"], ["check", "Tests/Fixtures/bad/tabs.yaml"],
            ["run", "--scenario", RunTests.happyPath], ["test", "Tests/Fixtures/bad/tabs.yaml"],
        ])
    func errorsToFullDisk(arguments: [String]) async throws {
        let result = try await Self.runRedirected(arguments, "2> /dev/full")
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
    }

    @Test("journey --help > /dev/full says the help could not be written")
    func helpToFullDisk() async throws {
        let result = try await Self.runRedirected(["run", "--help"], "> /dev/full")
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(result.stderr.contains("error: cannot write the help to standard output: No space left on device"))
    }

    @Test("a closed pipe on standard output (EPIPE) is an error with exit 2, not a SIGPIPE death")
    func closedPipe() async throws {
        let binary = try #require(Paths.journeyBinary)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let errURL = directory.appendingPathComponent("stderr")
                _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
                let err = try FileHandle(forWritingTo: errURL)
                let process = Process()
                process.executableURL = binary
                process.arguments = ["run", "--scenario", RunTests.happyPath]
                process.currentDirectoryURL = Paths.root
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
                process.standardError = err
                try process.run()
                try err.close()
                _ = await waitForExit(process, seconds: 60)
                let stderr = try String(contentsOf: errURL, encoding: .utf8)
                #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus)")
                #expect(process.terminationStatus == Exit.invalid)
                #expect(
                    RunResult.lines(stderr) == ["error: cannot write the transcript to standard output: Broken pipe"],
                    "\(stderr)")
            }
        }
    }

    @Test("journey run | head -1 prints the first line and no crash")
    func pipedIntoHead() async throws {
        let binary = try #require(Paths.journeyBinary)
        let result = try await runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "\"$@\" | head -1", "sh", binary.path, "run", "--scenario", RunTests.happyPath])
        expectNoCrash(result)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdout.hasPrefix("# transcript eduid.onboarding"))
    }
}
