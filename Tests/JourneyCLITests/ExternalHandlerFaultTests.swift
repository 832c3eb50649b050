import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A project whose journeykit.yaml declares one program handler, `acme.x`, written in Python
/// (standard library only): the program's step logic is given, the rest of the protocol
/// (initialize, shutdown, exit) is shared. The program appends its pid to `prog-pids.txt` as it
/// starts, so a test can count starts and check that none outlives the run.
struct ExternalProject {
    let folder: URL
    /// The secret parameter the journey passes (`pin`) and the secret input scenarios type (`code`).
    static let pin = "PIN-8817-SECRET"
    static let code = "CODE-5521-SECRET"

    /// The program's prelude: `send`, `read`, `call` (a request of the program's, answered),
    /// `answer`, `fail`, `note` (appends a line to a file beside it), and `serve(step)`, the
    /// main loop that calls `step(message)` for every `step/run`.
    static let prelude = """
        import json, os, signal, subprocess, sys, time
        HERE = os.path.dirname(os.path.abspath(__file__))
        def note(name, text):
            with open(os.path.join(HERE, name), "a") as f:
                f.write(str(text) + "\\n")
        note(os.path.splitext(os.path.basename(__file__))[0] + "-pids.txt", os.getpid())
        def send(m):
            sys.stdout.write(json.dumps(m) + "\\n")
            sys.stdout.flush()
        def read():
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)
            return json.loads(line)
        calls = [0]
        def call(method, params=None):
            calls[0] += 1
            send({"jsonrpc": "2.0", "id": "c%d" % calls[0], "method": method, "params": params})
            return read()
        def answer(i, result):
            send({"jsonrpc": "2.0", "id": i, "result": result})
        def fail(i, message):
            send({"jsonrpc": "2.0", "id": i, "error": {"code": -32000, "message": message}})
        def serve(step, version=1):
            while True:
                m = read()
                method = m.get("method")
                if method == "initialize":
                    answer(m["id"], {"protocolVersion": version})
                elif method == "step/run":
                    step(m)
                elif method == "shutdown":
                    answer(m["id"], None)
                elif method == "exit":
                    sys.exit(0)

        """

    /// A project in `folder` whose program runs `body` (Python, after the prelude; it must
    /// call `serve`), with `timeout` per message, and one journey, `acme.flow`: step `ask`
    /// runs `acme.x` with `word` and the secret `pin`; `yes` ends at `done`, `no` at `nope`.
    /// `scenarios` are written into journeys/scenarios by name.
    init(
        in folder: URL, program body: String, timeout: String = "2s", journey: String? = nil,
        scenarios: [String: String] = ["yes": ExternalProject.yesScenario]
    ) throws {
        self.folder = folder
        try writeText(Self.prelude + body, to: folder.appendingPathComponent("prog.py"))
        try writeText(
            "journeys: [journeys]\nhandlers:\n"
                + Self.handler("acme.x", file: "prog.py", folder: folder, timeout: timeout),
            to: folder.appendingPathComponent("journeykit.yaml"))
        try writeText(
            journey ?? Self.journey(word: "hello"), to: folder.appendingPathComponent("journeys/flow.journey.yaml"))
        for (name, text) in scenarios {
            try writeText(text, to: folder.appendingPathComponent("journeys/scenarios/\(name).scenario.yaml"))
        }
    }

    /// The declaration of handler `id`, the program `file` in `folder`, in journeykit.yaml.
    static func handler(_ id: String, file: String, folder: URL, timeout: String) -> String {
        """
          \(id):
            command: [python3, \(file), "\(folder.path)"]
            summary: A program under test.
            timeout: \(timeout)
            parameters:
              word: {type: string, required: true}
              pin: {type: string, secret: true}
            inputs:
              answer: {type: string, classes: [yes, no]}
              code: {type: string, secret: true}
            outcomes:
              yes: {summary: said yes, data: {heard: string}}
              no: {}

        """
    }

    static func journey(word: String) -> String {
        """
        journey: acme.flow
        version: 1
        title: Flow
        stored:
          note: {type: string, default: ""}
        start: ask
        steps:
          ask:
            handler: acme.x
            with: {word: "\(word)", pin: "\(pin)"}
            on:
              yes: done
              no: nope
        ends:
          done: {kind: success}
          nope: {kind: failure}

        """
    }

    /// A scenario that gives no input (for programs that ask none) and expects `done`.
    static let yesScenario = "scenario: yes\njourney: acme.flow\nscript: []\nexpect: {end: done}\n"

    /// A scenario that answers `yes` and, when `code` is set, types the secret code.
    static func answering(_ name: String, code: Bool = false) -> String {
        """
        scenario: \(name)
        journey: acme.flow
        script:
          - at: ask
            answer: "yes"
        \(code ? "    code: \"\(Self.code)\"\n" : "")expect:
          end: done

        """
    }

    /// `journey run` of scenario `name`, its JSON Lines transcript written to transcript.jsonl.
    func run(_ name: String = "yes", timeout: TimeInterval = 30) async throws -> RunResult {
        try await runJourney(
            [
                "run", "--scenario", "journeys/scenarios/\(name).scenario.yaml", "--transcript", "transcript.jsonl",
                "--format", "jsonl",
            ], cwd: folder, timeout: timeout)
    }

    /// `journey run` with the text transcript on standard output.
    func runText(_ name: String = "yes") async throws -> RunResult {
        try await runJourney(["run", "--scenario", "journeys/scenarios/\(name).scenario.yaml"], cwd: folder)
    }

    var transcript: String {
        (try? String(contentsOf: folder.appendingPathComponent("transcript.jsonl"), encoding: .utf8)) ?? ""
    }

    /// The lines a program wrote to `name` with `note`.
    func notes(_ name: String) -> [String] {
        RunResult.lines((try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? "")
    }

    /// The pids of the programs started, in order.
    var pids: [pid_t] { notes("prog-pids.txt").compactMap { pid_t($0) } }

    /// The processes whose command line names this project's folder: the programs and
    /// whatever they started, while any is left.
    var leftovers: [String] { ExternalProject.processes(mentioning: folder.path) }

    /// Every process (not a zombie) whose command line holds `marker`, as `pid command`.
    static func processes(mentioning marker: String) -> [String] {
        var found: [String] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            guard let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), !raw.isEmpty else {
                continue
            }
            let command = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            guard command.contains(marker) else { continue }
            let status = (try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)) ?? ""
            if status.contains("State:\tZ") { continue }
            found.append("\(pid) \(command)")
        }
        return found
    }

    /// The leftovers once they had `seconds` to go (a killed group takes a moment to be reaped).
    func leftovers(after seconds: Double) async -> [String] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if leftovers.isEmpty { return [] }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return leftovers
    }

    /// Fails the test if a secret shows anywhere in the run's output or transcript.
    func expectNoSecret(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [Self.pin, Self.code] {
            #expect(!result.output.contains(secret), "\(result)", sourceLocation: sourceLocation)
            #expect(!transcript.contains(secret), "\(transcript)", sourceLocation: sourceLocation)
        }
    }
}

/// What users see when a handler program misbehaves: each fault fails its step with a message
/// naming the handler and what happened, quotes the end of the program's standard error, never
/// shows a secret, and leaves no process behind.
@Suite(.timeLimit(.minutes(30)))
struct ExternalHandlerFaultTests {
    /// The message of the run's failure, from `journey run`'s verdict on standard error.
    static func failure(_ result: RunResult) -> String {
        let lines = result.stderrLines
        guard let index = lines.firstIndex(where: { $0.hasPrefix("FAIL ") }), index + 1 < lines.count else { return "" }
        return lines[index + 1].trimmingCharacters(in: .whitespaces)
    }

    /// A run and how long it took, not counting the wait for a process slot.
    static func timed(_ body: () async throws -> RunResult) async throws -> (RunResult, Duration) {
        try await withProcessSlot {
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await body()
            return (result, clock.now - start)
        }
    }

    @Test func aProgramThatRaisesFailsTheStepSayingHowItEndedAndQuotingItsStandardError() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        print("checking the word", file=sys.stderr, flush=True)
                        raise ValueError("no dictionary for " + m["params"]["parameters"]["word"])
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stderrLines.first == "FAIL acme.flow › yes", "\(result)")
            let message = Self.failure(result)
            #expect(
                message.hasPrefix(
                    "handler 'acme.x' failed: its program exited with status 1 while running step 'ask'; its standard error ends: "
                ),
                "\(result)")
            #expect(message.hasSuffix("| ValueError: no dictionary for hello"), "\(result)")
            project.expectNoSecret(result)
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramKilledBySignalMidStepFailsTheStepNamingTheSignal() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        print("about to go", file=sys.stderr, flush=True)
                        os.kill(os.getpid(), signal.SIGKILL)
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program was killed by SIGKILL while running step 'ask'; its standard error ends: about to go",
                "\(result)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramThatNeverAnswersFailsAfterItsTimeoutAndIsStopped() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        print("thinking hard", file=sys.stderr, flush=True)
                        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", HERE])
                        time.sleep(1000)
                    serve(step)
                    """, timeout: "1s")
            let (result, took) = try await Self.timed { try await project.run() }
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program did not answer within 1s while running step 'ask'; its standard error ends: thinking hard",
                "\(result)")
            #expect(took < .seconds(8), "the run took \(took)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test(arguments: [
        (
            "send('this is not json')",
            "handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message"
        ),
        (
            "send({'hello': 'world'})",
            "handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message (a message must have \"jsonrpc\": \"2.0\"): '{\"hello\": \"world\"}' while running step 'ask'"
        ),
        (
            "answer(m['id'] + 41, {'outcome': 'yes'})",
            "handler 'acme.x' failed: its program answered a request it was not sent (id 42) while running step 'ask'"
        ),
        (
            "sys.stdout.write('\\n'); sys.stdout.flush()",
            "handler 'acme.x' failed: its program wrote an empty line where a JSON-RPC message belongs while running step 'ask'"
        ),
        (
            "sys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": 1\\n'); sys.stdout.flush()",
            "handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message (the line ends in the middle of the message at byte 27)"
        ),
        (
            "sys.stdout.write('[' * 100 + '\\n'); sys.stdout.flush()",
            "handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message (values nest more than 64 deep at byte 65)"
        ),
    ])
    func aProgramThatWritesGarbageFailsTheStepSayingWhat(line: String, expected: String) async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        print("replying", file=sys.stderr, flush=True)
                        \(line)
                        time.sleep(1000)
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            let message = Self.failure(result)
            #expect(message.hasPrefix(expected), "\(result)")
            #expect(message.hasSuffix("; its standard error ends: replying"), "\(result)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramThatExitsRightAfterInitializeFailsTheStep() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    m = read()
                    answer(m["id"], {"protocolVersion": 1})
                    print("leaving early", file=sys.stderr, flush=True)
                    sys.exit(3)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program exited with status 3 while running step 'ask'; its standard error ends: leaving early",
                "\(result)")
        }
    }

    @Test func aProgramThatExitsBeforeAnsweringInitializeFailsTheStep() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    print("no config file", file=sys.stderr, flush=True)
                    sys.exit(4)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program exited with status 4 while starting, before it answered 'initialize'; its standard error ends: no config file",
                "\(result)")
        }
    }

    @Test func aProgramThatSpeaksAnotherProtocolVersionIsRefused() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        answer(m["id"], {"outcome": "yes"})
                    serve(step, version=2)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program speaks protocol version 2; this JourneyKit speaks version 1 while starting",
                "\(result)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramThatDoesNotReadItsInputFailsTheStepAfterItsTimeout() async throws {
        try await withTemporaryDirectory { folder in
            // The step's request is larger than a pipe holds (60 000 backslashes, each written
            // twice in JSON): writing it waits for the program.
            let project = try ExternalProject(
                in: folder,
                program: """
                    m = read()
                    answer(m["id"], {"protocolVersion": 1})
                    print("busy elsewhere", file=sys.stderr, flush=True)
                    time.sleep(1000)
                    """, timeout: "1s", journey: ExternalProject.journey(word: String(repeating: "\\\\", count: 60_000))
            )
            let (result, took) = try await Self.timed { try await project.run() }
            #expect(took < .seconds(8), "the run took \(took)")
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program did not read its input within 1s while running step 'ask'; its standard error ends: busy elsewhere",
                "\(result)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    // MARK: - Secrets

    @Test func aSecretInALineThatIsNotJSONRPCIsShownAsDotsWhereverTheQuoteIsCut() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        send("x" * 75 + m["params"]["parameters"]["pin"])
                        time.sleep(1000)
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message (a message must be a JSON object): "
                    + "'\"\(String(repeating: "x", count: 75))•••\"' while running step 'ask'",
                "\(result)")
            project.expectNoSecret(result)
            #expect(!result.output.contains("PIN-"), "\(result)")
        }
    }

    @Test(
        "a secret it was given (a parameter, an input) returned in data the contract does not declare secret fails the step without showing it",
        arguments: [
            (
                """
                def step(m):
                    answer(m["id"], {"outcome": "yes", "data": {"heard": "pin " + m["params"]["parameters"]["pin"]}})
                serve(step)
                """, ExternalProject.yesScenario
            ),
            (
                """
                def step(m):
                    got = call("driver/ask", {"inputs": ["answer", "code"]})
                    answer(m["id"], {"outcome": "yes", "data": {"heard": got["result"]["values"]["code"]}})
                serve(step)
                """, ExternalProject.answering("yes", code: true)
            ),
        ])
    func aSecretReturnedInOutcomeDataFailsTheStepWithoutShowingIt(_ program: String, _ scenario: String) async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(in: folder, program: program, scenarios: ["yes": scenario])
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program answered step 'ask' with a secret it was given in data 'heard' of outcome 'yes', which the contract does not declare secret: declare it '{type: string, secret: true}'",
                "\(result)")
            project.expectNoSecret(result)
        }
    }

    /// Python's `%r` escapes a quote and doubles a backslash: the secret, written as a string
    /// literal, is still the secret.
    @Test(
        "a secret written back escaped as a string literal is found: in outcome data it fails the step, in a message it is •••",
        arguments: [
            (
                #"answer(m["id"], {"outcome": "yes", "data": {"heard": repr(code)}})"#,
                "handler 'acme.x' failed: its program answered step 'ask' with a secret it was given in data 'heard' of outcome 'yes', which the contract does not declare secret: declare it '{type: string, secret: true}'"
            ),
            (
                #"fail(m["id"], "bad code %r" % code)"#,
                "handler 'acme.x' failed: its program failed step 'ask': bad code '•••'"
            ),
        ])
    func anEscapedSecretIsStillTheSecret(_ reply: String, _ failure: String) async throws {
        try await withTemporaryDirectory { folder in
            let scenario = """
                scenario: yes
                journey: acme.flow
                script:
                  - at: ask
                    answer: "yes"
                    code: 'it''s "C:\\Users\\Zq9wX7vK"'
                expect:
                  end: done

                """
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["answer", "code"]})
                        code = got["result"]["values"]["code"]
                        \(reply)
                    serve(step)
                    """, scenarios: ["yes": scenario])
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(Self.failure(result) == failure, "\(result)")
            #expect(!result.output.contains("Zq9wX7vK") && !project.transcript.contains("Zq9wX7vK"), "\(result)")
        }
    }

    @Test func aSecretInAnErrorMessageOrOnStandardErrorIsShownAsDots() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["answer", "code"]})
                        print("pin was " + m["params"]["parameters"]["pin"], file=sys.stderr, flush=True)
                        fail(m["id"], "wrong code " + got["result"]["values"]["code"])
                    serve(step)
                    """, scenarios: ["yes": ExternalProject.answering("yes", code: true)])
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result) == "handler 'acme.x' failed: its program failed step 'ask': wrong code •••",
                "\(result)")
            project.expectNoSecret(result)

            let crashing = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        print("pin was " + m["params"]["parameters"]["pin"], file=sys.stderr, flush=True)
                        sys.exit(9)
                    serve(step)
                    """)
            let crashed = try await crashing.run()
            #expect(
                Self.failure(crashed)
                    == "handler 'acme.x' failed: its program exited with status 9 while running step 'ask'; its standard error ends: pin was •••",
                "\(crashed)")
            crashing.expectNoSecret(crashed)

            // Written as a JSON encoder may escape it, every character as \uXXXX: the same secret.
            let escaping = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        pin = m["params"]["parameters"]["pin"]
                        escaped = "".join("\\\\u%04X" % ord(c) for c in pin)
                        print('{"pin": "' + escaped + '"}', file=sys.stderr, flush=True)
                        sys.stdout.write('{"id": 1, "echo": "' + escaped + '"}\\n')
                        sys.stdout.flush()
                        time.sleep(30)
                    serve(step)
                    """)
            let escaped = try await escaping.run()
            #expect(
                Self.failure(escaped)
                    == #"handler 'acme.x' failed: its program wrote a line that is not a JSON-RPC message (a message must have "jsonrpc": "2.0"): '{"id": 1, "echo": "•••"}' while running step 'ask'; its standard error ends: {"pin": "•••"}"#,
                "\(escaped)")
            #expect(!escaped.output.contains("\\u0050"), "\(escaped)")
            escaping.expectNoSecret(escaped)
        }
    }

    @Test(
        "a secret a program writes encoded (a form body, a URL, Base64), or one it gave back as secret outcome data, is ••• in what it writes next"
    )
    func aSecretEncodedOrMadeByTheProgramIsShownAsDots() async throws {
        try await withTemporaryDirectory { folder in
            let pin = "p@ss w/ré+1"
            let project = try ExternalProject(
                in: folder,
                program: """
                    import base64, urllib.parse
                    def step(m):
                        pin = m["params"]["parameters"]["pin"]
                        print("sent " + urllib.parse.quote(pin), file=sys.stderr, flush=True)
                        fail(m["id"], "a=" + urllib.parse.urlencode({"p": pin}) + " b=" + urllib.parse.quote(pin, safe="")
                            + " c=" + base64.b64encode(pin.encode()).decode() + " d=" + urllib.parse.quote(pin).lower())
                    serve(step)
                    """,
                journey: ExternalProject.journey(word: "hello").replacingOccurrences(of: ExternalProject.pin, with: pin)
            )
            let result = try await project.runText()
            #expect(result.status == Exit.failed, "\(result)")
            // Its standard error, where a failure quotes it, is held to the same; the loop below
            // looks for every form in all the output.
            #expect(
                result.stdout.contains(
                    "handler 'acme.x' failed: its program failed step 'ask': a=p=••• b=••• c=••• d=•••"),
                "\(result)")
            for shown in ["p%40ss", "p@ss", "cEBzcyB3L3LDqSsx", "r%C3%A9", "r%c3%a9"] {
                #expect(!result.output.contains(shown), "\(shown): \(result)")
            }

            // A session the program gave as secret outcome data, quoted in its next failure.
            let declaration = folder.appendingPathComponent("journeykit.yaml")
            try writeText(
                try String(contentsOf: declaration, encoding: .utf8).replacingOccurrences(
                    of: "yes: {summary: said yes, data: {heard: string}}",
                    with: "yes: {summary: said yes, data: {heard: string, session: {type: string, secret: true}}}"),
                to: declaration)
            let sessions = """
                scenario: twice
                journey: acme.flow
                sessions:
                  - script: []
                    expect: { end: done }
                  - script: []
                    expect: { end: done }

                """
            try writeText(sessions, to: folder.appendingPathComponent("journeys/scenarios/twice.scenario.yaml"))
            try writeText(
                ExternalProject.prelude + """
                    issued = []
                    def step(m):
                        if issued:
                            fail(m["id"], "session " + issued[0] + " is still open")
                            return
                        issued.append("sess-6d380740dfd6aaac")
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "hi", "session": issued[0]}})
                    serve(step)
                    """, to: folder.appendingPathComponent("prog.py"))
            let twice = try await project.runText("twice")
            #expect(twice.status == Exit.failed, "\(twice)")
            #expect(
                twice.stdout.contains("its program failed step 'ask': session ••• is still open"), "\(twice)")
            #expect(!twice.output.contains("sess-6d380740dfd6aaac"), "\(twice)")
        }
    }

    @Test func aSecretStoredUnderAKeyNotDeclaredSecretIsStoredAsASecret() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        call("store/set", {"key": "note", "value": "remember " + m["params"]["parameters"]["pin"]})
                        got = call("store/get", {"key": "note"})
                        note("stored.txt", json.dumps(got["result"]["secret"]))
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.ok, "\(result)")
            #expect(project.notes("stored.txt") == ["true"])
            #expect(
                project.transcript.contains(#""event":"state.set","variable":"stored.note","value":"•••""#),
                "\(project.transcript)")
            project.expectNoSecret(result)
            let text = try await project.runText()
            #expect(text.stdoutLines.contains { $0.hasSuffix("  set stored.note = •••") }, "\(text)")
            #expect(!text.output.contains(ExternalProject.pin), "\(text)")
        }
    }

    @Test func aSecretInAStoredKeyIsRefusedAndOneSentBackAsANumberOrAnIdIsNeverShown() async throws {
        try await withTemporaryDirectory { folder in
            let digits = "48151623"
            let journey = ExternalProject.journey(word: "hello").replacingOccurrences(
                of: ExternalProject.pin, with: digits)
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        pin = m["params"]["parameters"]["pin"]
                        refused = call("store/set", {"key": "k" + pin, "value": "v"})
                        note("refused.txt", refused["error"]["code"])
                        call("store/set", {"key": "n", "value": int(pin)})
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                    serve(step)
                    """, journey: journey)
            let result = try await project.runText()
            #expect(result.status == Exit.ok, "\(result)")
            #expect(project.notes("refused.txt") == ["-32602"])
            #expect(result.stdoutLines.contains { $0.hasSuffix("  set stored.n = •••") }, "\(result)")
            #expect(!result.output.contains(digits), "\(result)")

            let answering = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        answer("id-" + m["params"]["parameters"]["pin"], {"outcome": "yes", "data": {"heard": "ok"}})
                        time.sleep(30)
                    serve(step)
                    """, journey: journey)
            let failed = try await answering.runText()
            #expect(failed.status == Exit.failed, "\(failed)")
            #expect(failed.output.contains("answered a request it was not sent (id 'id-•••')"), "\(failed)")
            #expect(!failed.output.contains(digits), "\(failed)")
        }
    }

    @Test func aWaitPastTheEndOfTheClockIsRefusedAndTheRunGoesOn() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        last = None
                        for i in range(10):
                            got = call("clock/wait", {"milliseconds": 315360000000})
                            if "error" in got:
                                last = got["error"]
                                break
                        note("refused.txt", "%d %s" % (i, json.dumps(last)))
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                    serve(step)
                    """,
                scenarios: [
                    "yes": ExternalProject.yesScenario.replacingOccurrences(
                        of: "script: []", with: "device: {clock: 9990-01-01T00:00:00Z}\nscript: []")
                ])
            let result = try await project.runText()
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            // One wait of 3 650 days fits before 9999-12-31T23:59:59Z; the second is refused.
            #expect(
                project.notes("refused.txt") == [
                    #"1 {"code": -32602, "message": "'clock/wait' of 315360000000 ms would move the virtual clock past 9999-12-31T23:59:59Z, where it ends"}"#
                ], "\(project.notes("refused.txt"))")
        }
    }

    /// A program that goes on asking (storing, waiting, notifying) is stopped once it has sent
    /// more messages than a step may, not served until the scenario's time runs out, with what
    /// it did so far kept in the run as far as that.
    @Test(arguments: [
        (
            "storing",
            """
            def step(m):
                i = 0
                while True:
                    i += 1
                    call("store/set", {"key": "note", "value": "v%d" % i})
                    call("clock/wait", {"milliseconds": 1})
            serve(step)
            """,
            "while running step 'ask'"
        ),
        (
            "notifying before initialize is answered",
            """
            while True:
                send({"jsonrpc": "2.0", "method": "log", "params": {"text": "starting"}})
            """,
            "while starting, before it answered 'initialize'"
        ),
    ])
    func aProgramThatGoesOnAskingIsStoppedAfterTenThousandMessages(
        what: String, body: String, whileDoing: String
    ) async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(in: folder, program: body)
            let result = try await runJourney(
                [
                    "run", "--scenario", "journeys/scenarios/yes.scenario.yaml", "--transcript", "transcript.jsonl",
                    "--format", "jsonl", "--timeout", "50s",
                ], cwd: folder, timeout: 80)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(what): \(result)")
            #expect(
                result.output.contains(
                    "its program sent more than 10 000 messages (a step may make at most that many requests) \(whileDoing)"
                ), "\(what): \(result)")
            let stored = project.transcript.components(separatedBy: #""variable":"stored.note""#).count - 1
            #expect(stored <= 5_000, "\(what): \(stored) values stored")
        }
    }

    // MARK: - Requests the program may make

    @Test func anUnknownMethodGetsMethodNotFoundAndTheStepGoesOn() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("camera/snap", {})
                        note("errors.txt", json.dumps(got["error"]))
                        ask = call("driver/ask", {"inputs": ["answer"]})
                        answer(m["id"], {"outcome": ask["result"]["values"]["answer"], "data": {"heard": "ok"}})
                    serve(step)
                    """, scenarios: ["yes": ExternalProject.answering("yes")])
            let result = try await project.run()
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                project.notes("errors.txt") == [
                    #"{"code": -32601, "message": "no method 'camera/snap'; see docs/handler-protocol.md"}"#
                ])
        }
    }

    @Test func aDriverAskNamingAnInputTheStepDoesNotHaveIsRefusedAndTheStepGoesOn() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["password"]})
                        note("errors.txt", json.dumps(got["error"]))
                        none = call("driver/ask", {"inputs": []})
                        note("errors.txt", json.dumps(none["error"]))
                        ask = call("driver/ask", {"inputs": ["answer"]})
                        answer(m["id"], {"outcome": ask["result"]["values"]["answer"], "data": {"heard": "ok"}})
                    serve(step)
                    """, scenarios: ["yes": ExternalProject.answering("yes")])
            let result = try await project.run()
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                project.notes("errors.txt") == [
                    #"{"code": -32602, "message": "'inputs' must name inputs of step 'ask': answer, code"}"#,
                    #"{"code": -32602, "message": "'inputs' names no input; leave it out to ask for every input of step 'ask'"}"#,
                ])
        }
    }

    @Test func anAppRestartWhileTheProgramWaitsForInputCancelsItsRequestAndReusesIt() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["answer"]})
                        if "error" in got:
                            note("errors.txt", json.dumps(got["error"]))
                            fail(m["id"], "interrupted")
                            return
                        answer(m["id"], {"outcome": got["result"]["values"]["answer"], "data": {"heard": "ok"}})
                    serve(step)
                    """,
                scenarios: [
                    "restart": """
                    scenario: restart
                    journey: acme.flow
                    script:
                      - restart
                      - at: ask
                        answer: "yes"
                    expect:
                      end: done

                    """
                ])
            let result = try await project.runText("restart")
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                project.notes("errors.txt") == [#"{"code": -32800, "message": "the step was interrupted"}"#],
                "\(result)")
            #expect(project.pids.count == 1, "\(project.pids)")
            #expect(result.stdoutLines.filter { $0.hasSuffix("  call acme.x {pin: •••, word: \"hello\"}") }.count == 2)
            #expect(result.stdoutLines.contains("00:00.000 ⟳ app restarted"), "\(result)")
        }
    }

    // MARK: - Suites

    /// A scenario that answers `answer` for the step, named `name`.
    static func scenario(_ name: String, journey: String = "acme.flow", answer: String = "yes") -> String {
        """
        scenario: \(name)
        journey: \(journey)
        script:
          - at: ask
            answer: "\(answer)"
        expect:
          end: \(answer == "yes" ? "done" : "nope")

        """
    }

    @Test func aSuiteWithTwoJobsStartsAtMostTwoProgramsAndLeavesNone() async throws {
        try await withTemporaryDirectory { folder in
            var scenarios: [String: String] = [:]
            for index in 0..<8 {
                scenarios["s\(index)"] = Self.scenario("s\(index)", answer: index % 3 == 0 ? "no" : "yes")
            }
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["answer"]})
                        time.sleep(0.05)
                        answer(m["id"], {"outcome": got["result"]["values"]["answer"], "data": {"heard": "ok"}})
                    serve(step)
                    """, scenarios: scenarios)
            let result = try await runJourney(["test", "--update", "--jobs", "2"], cwd: folder, timeout: 60)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdoutLines.last == "8 passed, 0 failed", "\(result)")
            #expect((1...2).contains(project.pids.count), "\(project.pids)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramThatEndsRightAfterItsAnswerEndedBetweenStepsHoweverSoon() async throws {
        try await withTemporaryDirectory { folder in
            // Eight steps in a row of the same handler, each given to the program at once.
            let steps = (1...8).map { n in
                "  s\(n):\n    handler: acme.x\n    with: {word: \"w\", pin: \"\(ExternalProject.pin)\"}\n"
                    + "    on: {yes: \(n == 8 ? "done" : "s\(n + 1)"), no: nope}\n"
            }
            let journey =
                "journey: acme.flow\nversion: 1\ntitle: Flow\nstart: s1\nsteps:\n" + steps.joined()
                + "ends:\n  done: {kind: success}\n  nope: {kind: failure}\n"
            let script = (1...8).map { "  - at: s\($0)\n    answer: \"yes\"\n" }.joined()
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        call("driver/ask", {"inputs": ["answer"]})
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                        os._exit(0)
                    serve(step)
                    """, journey: journey,
                scenarios: ["eight": "scenario: eight\njourney: acme.flow\nscript:\n\(script)expect: {end: done}\n"])
            // Whether its end is seen before the next step is sent or after, the next step goes
            // to a fresh program: every run passes alike.
            for _ in 1...4 {
                let result = try await project.runText("eight")
                #expect(result.status == Exit.ok, "\(result)")
            }
            #expect(project.pids.count == 32, "\(project.pids)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    /// A program writes only while it runs a step: what it wrote after its answer (a request
    /// too late for its step, a second answer) fails the next step, which never serves it.
    @Test(arguments: [
        (
            "late",
            "{'jsonrpc': '2.0', 'id': 'late', 'method': 'store/set', 'params': {'key': 'note', 'value': 'late'}}",
            "'{\"jsonrpc\": \"2.0\", \"id\": \"late\", \"method\": \"store/set\", \"params\": {\"key\": \"note\"'"
        ),
        (
            "twice",
            "{'jsonrpc': '2.0', 'id': m['id'], 'result': {'outcome': 'no'}}",
            "'{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"outcome\": \"no\"}}'"
        ),
    ])
    func whatAProgramWritesBetweenStepsFailsTheNextStep(kind: String, extra: String, quoted: String) async throws {
        try await withTemporaryDirectory { folder in
            let journey = """
                journey: acme.flow
                version: 1
                title: Flow
                stored:
                  note: {type: string, default: ""}
                start: first
                steps:
                  first:
                    handler: acme.x
                    with: {word: "one"}
                    on: {yes: second, no: nope}
                  second:
                    handler: acme.x
                    with: {word: "two"}
                    on: {yes: done, no: nope}
                ends:
                  done: {kind: success}
                  nope: {kind: failure}

                """
            // The answer and what follows it in one write: both are there before the next step.
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        if m["params"]["parameters"]["word"] == "one":
                            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"outcome": "yes", "data": {"heard": "one"}}}) + "\\n" + json.dumps(\(extra)) + "\\n")
                            sys.stdout.flush()
                        else:
                            answer(m["id"], {"outcome": "yes", "data": {"heard": "two"}})
                    serve(step)
                    """, journey: journey)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program wrote \(quoted) after its answer to the last step, before step 'second' was sent (a program writes only while it runs a step) while running step 'second'",
                "\(result)")
            // Never served: the store keeps nothing the late request asked for.
            #expect(!project.transcript.contains("store.set"), "\(project.transcript)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func aProgramThatClosesItsOutputIsSaidToHaveDoneSoNotToHaveBeenKilled() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        os.close(1)
                        print("closed my output", file=sys.stderr, flush=True)
                        time.sleep(30)
                    serve(step)
                    """)
            let result = try await project.run()
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                Self.failure(result)
                    == "handler 'acme.x' failed: its program closed its output and was stopped while running step 'ask'; its standard error ends: closed my output",
                "\(result)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }

    @Test func explorationNeverRunsAProgramNotDeclaredDeterministic() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        note("steps.txt", m["params"]["step"])
                        call("driver/ask", {"inputs": ["answer"]})
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                    serve(step)
                    """, scenarios: ["yes": Self.scenario("yes")])
            let explored = try await runJourney(["explore", "journeys"], cwd: folder, timeout: 60)
            #expect(explored.status == Exit.ok, "\(explored)")
            #expect(
                explored.stdout.contains(
                    "acme.flow.ask: acme.x is not declared deterministic (for a program, 'deterministic: true' in journeykit.yaml), so where its step leads is not judged"
                ), "\(explored)")
            // Not started at all: what it would do (a live service, a side effect) is not caused.
            #expect(project.pids.isEmpty, "\(project.pids)")
            #expect(project.notes("steps.txt").isEmpty)
            // A run still runs it.
            let run = try await project.run()
            #expect(run.status == Exit.ok, "\(run)")
            #expect(project.notes("steps.txt") == ["ask"])
        }
    }

    @Test func theScenariosAfterOneWhoseProgramCrashedStartItAfreshAndPass() async throws {
        try await withTemporaryDirectory { folder in
            let project = try ExternalProject(
                in: folder,
                program: """
                    def step(m):
                        got = call("driver/ask", {"inputs": ["answer"]})
                        if got["result"]["values"]["answer"] == "no":
                            print("cannot take no", file=sys.stderr, flush=True)
                            os._exit(7)
                        answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
                    serve(step)
                    """,
                scenarios: [
                    "a-crash": Self.scenario("a-crash", answer: "no"), "b": Self.scenario("b"),
                    "c": Self.scenario("c"),
                ])
            let result = try await runJourney(["test", "--update", "--jobs", "1"], cwd: folder, timeout: 60)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdoutLines.contains(
                    "    handler 'acme.x' failed: its program exited with status 7 while running step 'ask'; its standard error ends: cannot take no"
                ),
                "\(result)")
            #expect(result.stdoutLines.filter { $0.hasPrefix("PASS acme.flow › ") }.count == 2, "\(result)")
            #expect(result.stdoutLines.last == "2 passed, 1 failed", "\(result)")
            #expect(project.pids.count == 2, "\(project.pids)")
            #expect(await project.leftovers(after: 2) == [])
        }
    }
}

/// `journey bench`'s section on handler programs.
@Suite(.timeLimit(.minutes(30)))
struct ExternalHandlerBenchTests {
    @Test func theBenchRunsStepsThroughAPythonProgramAndACOneAndSaysHowFast() async throws {
        let bench = try await runJourney(
            [
                "bench", "--scenarios", "100", "--load-megabytes", "1", "--process-runs", "0", "--external-steps",
                "300", "--json",
            ], timeout: 120)
        #expect(bench.status == Exit.ok, "\(bench)")
        let json = try JSONSerialization.jsonObject(with: bench.stdoutData) as? [String: String] ?? [:]
        let figures = #/^[0-9]+ steps/s \(CPU per step: JourneyKit [0-9.]+ µs, the program [0-9.]+ µs\)$/#
        #expect(json["external handler, Python"]?.wholeMatch(of: figures) != nil, "\(bench)")
        let alone = #/^[0-9.]+ µs per step \(json.loads \+ json.dumps, no pipe\): at most [0-9]+ steps/s$/#
        #expect(json["external handler, Python's own side alone"]?.wholeMatch(of: alone) != nil, "\(bench)")
        let c = json["external handler, C"] ?? ""
        #expect(c.wholeMatch(of: figures) != nil || c.hasPrefix("skipped: "), "\(bench)")
        let skipped = try await runJourney(
            [
                "bench", "--scenarios", "100", "--load-megabytes", "1", "--process-runs", "0", "--external-steps", "0",
                "--json",
            ], timeout: 120)
        #expect(skipped.status == Exit.ok, "\(skipped)")
        #expect(!skipped.stdout.contains("external handler"), "\(skipped)")
    }
}
