import Foundation
import Testing

/// `journey play` on a real terminal: tmux gives it one, the test types into it with
/// `send-keys` and reads the screen with `capture-pane`. A shipped journey is played to its end
/// with undo, a restart and a clock jump, the PINs typed at hidden prompts never show, and the
/// scenario saved passes `journey test`.
@Suite(
    "journey play on a terminal", .timeLimit(.minutes(30)), .enabled(if: Tmux.binary != nil, "tmux is not installed"))
struct PlayTerminalTests {
    @Test("played under tmux: hidden PINs, undo, a restart, a clock jump, colour; the scenario saved passes")
    func playUnderTmux() async throws {
        // One process slot for the whole play: the pane's program runs all along, and the tmux
        // commands that drive it must not queue behind other tests' processes mid-play.
        try await withProcessSlot { try await playUnderTmuxHoldingASlot() }
    }

    @Test("NO_COLOR on a terminal: no colour; Ctrl-C at a hidden prompt leaves the terminal echoing")
    func noColor() async throws {
        try await withProcessSlot {
            let journey = try #require(Paths.journeyBinary).path
            let tmux = try await Tmux.start(
                in: Paths.root, command: "NO_COLOR=1 TERM=xterm-256color \(journey) play examples.unlock")
            defer { tmux.stop() }
            try await tmux.waitFor("── examples.unlock › choosePin ──", after: 0)
            let painted = try await tmux.capture(escapes: true)
            #expect(!painted.contains("\u{1B}["), "\(painted)")
            // Ctrl-C at a hidden prompt ends play, and leaves the terminal echoing.
            try await tmux.type("")
            try await tmux.waitFor("pin (hidden):", after: 0)
            try await tmux.run(["send-keys", "-t", "play", "C-c"])
            try await tmux.waitFor("[play exited 130]", after: 0)
            try await tmux.waitFor("echo", after: 0)
            let lines = try await tmux.capture().split(separator: "\n").map(String.init)
            #expect(lines.contains("echo") && !lines.contains("-echo"), "\(lines)")
        }
    }

    @Test("at a PIN pad the prompt itself reads without echo: a PIN typed there never shows, and is played")
    func pinTypedAtThePrompt() async throws {
        try await withProcessSlot {
            let journey = try #require(Paths.journeyBinary).path
            let tmux = try await Tmux.start(
                in: Paths.root, command: "NO_COLOR=1 TERM=xterm-256color \(journey) play examples.unlock")
            defer { tmux.stop() }
            try await tmux.waitFor("pin (hidden; an action or a :command works too):", after: 0)
            let before = try await tmux.count("input pin=•••")
            try await tmux.type("5827")
            try await tmux.waitFor("input pin=•••", after: before)
            let screen = try await tmux.capture()
            #expect(!screen.contains("5827"), "a PIN shows:\n\(screen)")
            #expect(!screen.contains("press Enter to type it without echo"), "\(screen)")
            #expect(screen.contains("outcome entered"), "\(screen)")
        }
    }

    func playUnderTmuxHoldingASlot() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let journey = try #require(Paths.journeyBinary).path
            let tmux = try await Tmux.start(
                in: folder, command: "env -u NO_COLOR TERM=xterm-256color \(journey) play examples.pin-model")
            defer { tmux.stop() }
            let saved = "journeys/examples/scenarios/tmux-played.scenario.yaml"
            // Each line is typed, then what it leads to is waited for.
            let script: [(keys: String, then: String)] = [
                ("", "pin (hidden):"), ("2580", "── examples.pin-model › repeat ──"),
                ("", "pin (hidden):"), ("2580", "── examples.pin-model › biometry ──"),
                ("allow", "Attempts left: 3"), ("", "pin (hidden):"), ("1397", "attempt pinEntry charged 1/3"),
                (":restart", "▶ start examples.pin-model"), (":clock 5m", "⏱ +5m"),
                ("", "pin (hidden):"), ("1397", "attempt pinEntry charged 2/3"),
                (":undo", "↶ back one move"), ("", "pin (hidden):"), ("2580", "── examples.pin-model › unlocked ──"),
                ("finish", "■ the journey ended at 'done'"), (":save \(saved)", "save it? [y/N]"),
                ("y", "next: journey test"), (":quit", "[play exited 0]"),
            ]
            try await tmux.waitFor("── examples.pin-model › create ──", after: 0)
            for (keys, then) in script {
                let before = try await tmux.count(then)
                try await tmux.type(keys)
                try await tmux.waitFor(then, after: before)
            }
            let screen = try await tmux.capture()
            #expect(!screen.contains("2580") && !screen.contains("1397"), "a PIN shows:\n\(screen)")
            #expect(screen.contains("wrote \(saved)"), "\(screen)")
            // The question before saving names every step a hidden input was typed at.
            #expect(
                screen.contains(
                    "what was typed into a hidden input at 'create', 'repeat' and 'locked' would be written into the scenario in clear; save it? [y/N]"
                ), "\(screen)")
            // Colour on a terminal: the screen's heading is bold.
            let painted = try await tmux.capture(escapes: true)
            let heading = painted.split(separator: "\n").first { $0.contains("── examples.pin-model › create ──") }
            #expect(heading?.hasPrefix("\u{1B}[") == true && heading?.contains(";1m") == true, "\(painted)")

            let text = try String(contentsOf: folder.appendingPathComponent(saved), encoding: .utf8)
            #expect(text.contains("  - restart\n  - advance: 5m\n  - at: locked\n    pin: \"2580\"\n"), "\(text)")
            let test = try await runJourney(["test", saved], cwd: folder, timeout: 120)
            #expect(test.status == 0, "\(test)")
            #expect(test.stdout.contains("PASS examples.pin-model › tmux-played"), "\(test)")
        }
    }
}

/// A tmux server of the test's own (its own socket), running one command in one pane.
struct Tmux: Sendable {
    static let binary: URL? = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    let socket: String

    /// Starts `command` in a new pane (120 × 50) in `folder`; the pane stays after it ends and
    /// shows `[play exited STATUS]`.
    static func start(in folder: URL, command: String) async throws -> Tmux {
        let tmux = Tmux(socket: "journeykit-\(UUID().uuidString)")
        // After the command: how it exited, and whether the terminal echoes again.
        let shell =
            "cd '\(folder.path)' && \(command); echo \"[play exited $?]\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo; sleep 600"
        // The server tmux starts lives on after this command: it must not keep the descriptors
        // the test process watches its children through, or the command never seems to end.
        let closing =
            #"for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"; done; "#
        let start = try #require(Self.binary).path + " -L \(tmux.socket) new-session -d -s play -x 120 -y 50 \"$0\""
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["bash", "-c", closing + "exec " + start, shell])
        #expect(result.status == 0, "\(result)")
        _ = try await tmux.run(["set-option", "-g", "history-limit", "20000"])
        return tmux
    }

    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        let result = try await runProcess(try #require(Self.binary), ["-L", socket] + arguments, timeout: 20)
        #expect(result.status == 0, "tmux \(arguments): \(result)")
        return result.stdout
    }

    /// Types `keys` and Enter.
    func type(_ keys: String) async throws {
        if !keys.isEmpty { try await run(["send-keys", "-t", "play", "-l", keys]) }
        try await run(["send-keys", "-t", "play", "Enter"])
    }

    /// The whole pane, its history included.
    func capture(escapes: Bool = false) async throws -> String {
        try await run(["capture-pane", "-p", "-J", "-S", "-", "-t", "play"] + (escapes ? ["-e"] : []))
    }

    /// How many times the pane shows `text`.
    func count(_ text: String) async throws -> Int {
        try await capture().components(separatedBy: text).count - 1
    }

    /// Waits until the pane shows `text` more than `after` times.
    func waitFor(_ text: String, after: Int, seconds: Int = 30) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while clock.now < deadline {
            if try await count(text) > after { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("'\(text)' did not show within \(seconds) s:\n\(try await capture())")
        throw CancellationError()
    }

    /// Stops the server and the pane's programs. A program the test starts inherits the
    /// signals its thread blocks (a dispatch thread blocks nearly all), and so do the server and
    /// the pane: the hang-up `kill-server` sends them never arrives, and they would live on for
    /// the pane's ten minutes. So the pane's process group and the server are killed outright.
    func stop() {
        let ask = Process()
        let out = Pipe()
        ask.executableURL = Self.binary
        ask.arguments = ["-L", socket, "display-message", "-p", "-t", "play", "#{pid} #{pane_pid}"]
        ask.standardOutput = out
        ask.standardError = FileHandle.nullDevice
        guard (try? ask.run()) != nil else { return }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        ask.waitUntilExit()
        let pids = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard pids.count == 2 else { return }
        kill(-pids[1], SIGKILL)
        kill(pids[0], SIGKILL)
        // A server killed so leaves its socket behind.
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(folder)/tmux-\(getuid())/\(socket)")
    }
}
