import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `journey run --transcript PATH` writes to what PATH is: a link is written through (the
/// link stays), a device, FIFO or socket is written directly, a regular file or a missing
/// path is replaced atomically, and a folder is refused.
@Suite("journey run --transcript: links, devices, FIFOs, sockets and folders", .timeLimit(.minutes(30)))
struct TranscriptPathTests {
    static let scenario = Paths.root.appendingPathComponent(RunTests.happyPath).path
    static var golden: Data { get throws { try Data(contentsOf: RunTests.goldenText) } }

    /// The file type bits of `path` (not following a link).
    static func kind(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// A new FIFO at `path`, and its reading end opened without waiting for a writer (so that
    /// `journey` does not block opening it), or -1.
    static func fifoWithReader(at path: String) -> Int32 {
        guard mkfifo(path, 0o600) == 0 else { return -1 }
        return open(path, O_RDONLY | O_NONBLOCK)
    }

    /// Everything that can be read now from a non-blocking descriptor.
    static func drain(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    @Test("a link is written through: the link stays and its target gets the transcript")
    func symbolicLink() async throws {
        try await withTemporaryDirectory { directory in
            let targets = directory.appendingPathComponent("targets")
            try FileManager.default.createDirectory(at: targets, withIntermediateDirectories: true)
            let target = targets.appendingPathComponent("real.txt")
            try Data("old\n".utf8).write(to: target)
            let link = directory.appendingPathComponent("link.txt")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "targets/real.txt")

            let result = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", link.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(Self.kind(link.path) == S_IFLNK, "the link was replaced")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "targets/real.txt")
            #expect(try Data(contentsOf: target) == (try Self.golden))
            #expect(entries(of: targets) == ["real.txt"], "left behind: \(entries(of: targets))")
            #expect(entries(of: directory) == ["link.txt", "targets"])

            // A link to a missing file creates the file, and the link stays.
            let dangling = directory.appendingPathComponent("dangling.txt")
            try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "targets/new.txt")
            let second = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", "dangling.txt"], cwd: directory)
            #expect(second.status == Exit.ok, "\(second)")
            #expect(Self.kind(dangling.path) == S_IFLNK)
            #expect(try Data(contentsOf: targets.appendingPathComponent("new.txt")) == (try Self.golden))
            #expect(entries(of: targets) == ["new.txt", "real.txt"])
        }
    }

    @Test(
        "a file name of up to 255 bytes is written, however long: the temporary beside it is named with a hash of the name when the name and its marks would not fit"
    )
    func longestFileName() async throws {
        try await withTemporaryDirectory { directory in
            for name in [String(repeating: "a", count: 251) + ".txt", String(repeating: "é", count: 125) + ".txt"] {
                #expect(name.utf8.count <= 255)
                for round in 1...2 {
                    let result = try await runJourney(
                        ["run", "--scenario", Self.scenario, "--transcript", name], cwd: directory)
                    expectNoCrash(result)
                    #expect(result.status == Exit.ok, "\(round): \(result)")
                    #expect(
                        try Data(contentsOf: directory.appendingPathComponent(name)) == (try Self.golden), "\(round)")
                }
                #expect(entries(of: directory) == [name], "left behind: \(entries(of: directory))")
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            // Two long names alike but for their last byte are two files.
            let twins = ["1", "2"].map { String(repeating: "b", count: 240) + $0 + ".txt" }
            for name in twins {
                let result = try await runJourney(
                    ["run", "--scenario", Self.scenario, "--transcript", name], cwd: directory)
                #expect(result.status == Exit.ok, "\(result)")
            }
            #expect(entries(of: directory) == twins, "\(entries(of: directory))")
        }
    }

    @Test("a FIFO stays a FIFO and its reader gets the transcript")
    func fifo() async throws {
        try await withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("transcript.fifo").path
            // The ~7 KB transcript fits in the FIFO's buffer.
            let reader = Self.fifoWithReader(at: fifo)
            #expect(reader >= 0)
            defer { close(reader) }
            let result = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", fifo], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(Self.drain(reader) == (try Self.golden))
            #expect(Self.kind(fifo) == S_IFIFO, "the FIFO was replaced")
            #expect(entries(of: directory) == ["transcript.fifo"])
        }
    }

    @Test(
        "a FIFO nobody reads yet: journey says on standard error that it waits for a reader, and writes once one comes"
    )
    func fifoWithoutReader() async throws {
        guard let binary = Paths.journeyBinary else { throw SubprocessError.binaryNotFound }
        try await withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("transcript.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let errors = directory.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["run", "--scenario", Self.scenario, "--transcript", fifo]
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // No reader: journey waits for one, and says so rather than stopping without a word.
            var said = ""
            for _ in 0..<6000 where !said.contains("\n") {
                try await Task.sleep(for: .milliseconds(10))
                said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            }
            #expect(said == "journey: waiting for a process to read \(fifo), a FIFO (Ctrl-C stops)\n")
            #expect(process.isRunning, "journey did not wait for a reader")
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            #expect(reader >= 0)
            defer { close(reader) }
            var transcript = Data()
            for _ in 0..<6000 where process.isRunning {
                transcript.append(Self.drain(reader))
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await waitForExit(process, seconds: 60))
            transcript.append(Self.drain(reader))
            #expect(process.terminationStatus == Exit.ok)
            #expect(transcript == (try Self.golden))
            #expect(Self.kind(fifo) == S_IFIFO, "the FIFO was replaced")
        }
    }

    #if os(Linux)
    @Test(
        "a temporary a killed process left is removed by the next write in its folder, even while that process is a zombie"
    )
    func temporaryOfAZombie() async throws {
        try await withTemporaryDirectory { directory in
            // A child that has ended but is not reaped yet: its id still answers kill(pid, 0).
            var pid: pid_t = 0
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
            defer { arguments.forEach { free($0) } }
            #expect(posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ) == 0)
            defer { waitpid(pid, nil, 0) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(kill(pid, 0) == 0, "the child is reaped already")
            let stale = ".transcript.txt.journey-\(pid).tmp"
            try writeText("half a transcript\n", to: directory.appendingPathComponent(stale))
            let result = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", "transcript.txt"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(entries(of: directory) == ["transcript.txt"], "left behind: \(entries(of: directory))")
        }
    }

    @Test("a socket is connected to and written directly")
    func socket() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("s").path
            let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            #expect(listener >= 0)
            defer { close(listener) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8) + [0])
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0)
            #expect(listen(listener, 1) == 0)
            _ = fcntl(listener, F_SETFL, O_NONBLOCK)
            let result = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            let connection = accept(listener, nil, nil)
            #expect(connection >= 0, "journey did not connect")
            defer { if connection >= 0 { close(connection) } }
            _ = fcntl(connection, F_SETFL, O_NONBLOCK)
            #expect(Self.drain(connection) == (try Self.golden))
            #expect(Self.kind(path) == S_IFSOCK)
        }
    }
    #endif

    #if os(Linux)
    @Test("a character device is written directly and not replaced", .enabled(if: getuid() == 0))
    func characterDevice() async throws {
        try await withTemporaryDirectory { directory in
            // A null device of our own (1, 3, as /dev/null on Linux), so that a wrong rename
            // cannot harm the system's.
            let device = directory.appendingPathComponent("null").path
            #expect(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
            let result = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", device], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(Self.kind(device) == S_IFCHR, "the device was replaced")
            #expect(entries(of: directory) == ["null"])
        }
    }
    #endif

    @Test("--transcript /dev/null works and leaves /dev/null alone")
    func devNull() async throws {
        let result = try await runJourney(["run", "--scenario", Self.scenario, "--transcript", "/dev/null"])
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(result.stdoutData.isEmpty)
        #expect(Self.kind("/dev/null") == S_IFCHR)
        #expect(entries(of: URL(fileURLWithPath: "/dev")).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test("--transcript /dev/stdout writes to standard output, appending when it is opened for appending")
    func devStdout() async throws {
        let binary = try #require(Paths.journeyBinary)
        let result = try await runJourney(["run", "--scenario", Self.scenario, "--transcript", "/dev/stdout"])
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(result.stdoutData == (try Self.golden))
        try await withTemporaryDirectory { directory in
            let log = directory.appendingPathComponent("log.txt")
            try Data("earlier\n".utf8).write(to: log)
            let appended = try await runProcess(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "exec \"$@\" >> log.txt", "sh", binary.path, "run", "--scenario", Self.scenario,
                    "--transcript", "/dev/stdout",
                ], cwd: directory)
            #expect(appended.status == Exit.ok, "\(appended)")
            #expect(try Data(contentsOf: log) == Data("earlier\n".utf8) + (try Self.golden))
            #expect(entries(of: directory) == ["log.txt"])
        }
    }

    @Test("a folder is refused before the run: exit 2 and `is a directory`")
    func folder() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for path in [folder.path, "out", "out/"] {
                let result = try await runJourney(
                    ["run", "--scenario", Self.scenario, "--transcript", path], cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(result)")
                #expect(
                    result.stderrLines == ["error: cannot write the transcript to \(path): is a directory"], "\(result)"
                )
                #expect(result.stdoutData.isEmpty)
            }
            // A link to a folder is refused the same way, and both stay.
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("link").path, withDestinationPath: "out")
            let linked = try await runJourney(
                ["run", "--scenario", Self.scenario, "--transcript", "link"], cwd: directory)
            #expect(linked.status == Exit.invalid, "\(linked)")
            #expect(linked.stderr.contains(": is a directory"), "\(linked)")
            #expect(Self.kind(directory.appendingPathComponent("link").path) == S_IFLNK)
            #expect(entries(of: directory) == ["link", "out"])
            #expect(entries(of: folder).isEmpty)
        }
    }
}
