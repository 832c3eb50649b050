import Foundation
import Testing

@testable import JourneyCore

/// Every number a user writes has a range `journey check` enforces; hostile sizes (thousands
/// of problems, thousands of nested calls) stay bounded; messages are one readable line.
@Suite("Bounds: ranges, durations, caps and messages", .timeLimit(.minutes(10)))
struct BoundsTests {
    // MARK: Durations

    @Test(
        "compound durations are read from the largest unit down",
        arguments: [
            ("250ms", 250), ("1.5s", 1500), ("5m", 300_000), ("2h", 7_200_000), ("30d", 2_592_000_000),
            ("5m1s", 301_000), ("1h30m", 5_400_000), ("2d3h4m5s6ms", 183_845_006), ("3650d", 315_360_000_000),
        ])
    func compoundDurations(text: String, milliseconds: Int) {
        #expect(Duration.parse(text) == milliseconds)
    }

    @Test(
        "what is not a duration, or is longer than 3650d, is refused",
        arguments: ["", "5", "m5", "1m1h", "1h1h", "1.s", ".5s", "1e3s", "5 m", "-1s", "3651d", "1099511627776s"])
    func notDurations(text: String) {
        #expect(Duration.parse(text) == nil)
        #expect(Duration.problem(with: text) != nil)
    }

    @Test("a duration past the maximum says the maximum, at its position")
    func durationTooLong() {
        let source = MarkedSource(
            """
            journey: t.j
            version: 1
            title: T
            params:
              wait: { type: duration, default: 1️⃣99999d }
            start: a
            steps:
              a:
                handler: t.step
                on: { next: done, back: done }
            ends:
              done: { kind: success }
            """)
        expectDiagnostic("value.range", at: "1️⃣", in: source, containing: "3650d")
    }

    // MARK: Ranges

    @Test("an attempt limit's max is 1 to 1000")
    func attemptMax() {
        let text = Self.limitJourney(max: "1️⃣5000")
        expectDiagnostic("value.range", at: "1️⃣", in: text, containing: "from 1 to 1000, found 5000")
        #expect(diagnostics(Self.limitJourney(max: "1000").text).filter { $0.severity == .error }.isEmpty)
    }

    static func limitJourney(max: String) -> MarkedSource {
        MarkedSource(
            """
            journey: t.j
            version: 1
            title: T
            stored:
              n: { type: int, default: 0 }
            limits:
              pin: { max: \(max), counter: stored.n, exceeded: done }
            start: a
            steps:
              a:
                handler: t.check
                attempts: { limit: pin, counts: [wrong] }
                on: { correct: done, wrong: a, cancel: done }
            ends:
              done: { kind: success }
            """)
    }

    @Test("a handler parameter's range is checked for literals at check time")
    func parameterRange() throws {
        let handlers = try HandlerRegistry([
            RangedHandler()
        ])
        let text = """
            journey: t.j
            version: 1
            title: T
            start: a
            steps:
              a:
                handler: t.ranged
                with: { length: 99 }
                on: { next: done }
            ends:
              done: { kind: success }
            """
        let (_, found) = compile([text], handlers: handlers)
        let range = found.filter { $0.id == "value.range" }
        #expect(range.count == 1, "\(found)")
        #expect(range.first?.message.contains("is 99, outside 1…64") == true, "\(range)")
        #expect(range.first?.location.line == 8)
    }

    @Test("a template's value outside the range fails the step with a message, never reaches the handler")
    func parameterRangeAtRunTime() throws {
        let text = """
            journey: t.j
            version: 1
            title: T
            params:
              length: { type: int, default: 4 }
            start: a
            steps:
              a:
                handler: t.ranged
                with: { length: "${params.length * 1000}" }
                on: { next: done }
            ends:
              done: { kind: success }
            """
        let (library, found) = compile([text], handlers: try HandlerRegistry([RangedHandler()]))
        let lib = try #require(library, "\(found)")
        var machine = JourneyMachine(library: lib, journey: try #require(lib["t.j"]), device: DeviceState())
        guard case .failed(let result) = machine.handle(.start) else {
            Issue.record("the step ran with a length outside its range")
            return
        }
        #expect(result.failure?.contains("parameter 'length' of step 'a' is 4000, outside 1…64") == true)
    }

    struct RangedHandler: StepHandler {
        let contract = HandlerContract(
            id: "t.ranged", summary: "",
            parameters: [
                ParameterSpec(name: "length", kind: .value(TypeInfo(.int)), summary: "", range: 1...64)
            ],
            outcomes: [OutcomeSpec(name: "next", summary: "")])

        nonisolated(nonsending) func run(
            _ invocation: HandlerInvocation, context: HandlerContext
        ) async throws -> HandlerResult { HandlerResult("next") }
    }

    @Test("form field lengths are 0 to 10 000, and minLength may not pass maxLength")
    func fieldLengths() {
        let text = MarkedSource(
            """
            journey: t.j
            version: 1
            title: T
            start: a
            steps:
              a:
                handler: t.screen
                screen:
                  fields:
                    name: { minLength: 1️⃣20001 }
                    code: { minLength: 2️⃣8, maxLength: 4 }
                  actions: { ok: OK }
                on: { ok: done }
            ends:
              done: { kind: success }
            """)
        let found = diagnostics(text.text).filter { $0.id == "value.range" }
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.location == text.location("1️⃣") && $0.message.contains("from 0 to 10000") })
        #expect(found.contains { $0.location == text.location("2️⃣") && $0.message.contains("more than 'maxLength'") })
    }

    @Test(
        "a scenario's kdfRounds, clock, stub status and times keep to their ranges",
        arguments: [
            ("kdfRounds: 4294967296", "'kdfRounds' must be from 1 to 600000"),
            ("kdfRounds: 2147483647", "'kdfRounds' must be from 1 to 600000"),
            ("kdfRounds: 0", "'kdfRounds' must be from 1 to 600000"),
            ("clock: 10000-01-01T00:00:00Z", "'clock'"),
        ])
    func scenarioDevice(line: String, message: String) {
        let files = [
            journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: failed }"),
            """
            scenario: s
            journey: t.j
            device:
              \(line)
            script: []
            expect: { end: done }
            """,
        ]
        let (_, found) = compile(files)
        let errors = found.filter { $0.severity == .error }
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.message.contains(message) == true, "\(errors)")
        #expect(errors.first?.location.file == "test1.yaml")
    }

    @Test(
        "a scenario's advance takes compound durations and says the maximum when too long",
        arguments: [
            ("1h30m", nil), ("5m1s", nil), ("1099511627776s", "3650d"), ("5 minutes", "like 250ms"),
        ])
    func scenarioAdvance(value: String, message: String?) {
        let files = [
            journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: failed }"),
            """
            scenario: s
            journey: t.j
            script:
              - advance: \(value)
            expect: { end: done }
            """,
        ]
        let (_, found) = compile(files)
        let errors = found.filter { $0.severity == .error }
        if let message {
            #expect(errors.count == 1 && errors[0].message.contains(message), "\(errors)")
            #expect(errors.first?.location.line == 4)
        } else {
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    // MARK: Caps

    @Test("a file with 70 000 unknown keys reports 100 of them and counts the rest")
    func diagnosticCap() {
        var text = journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: failed }")
        for i in 0..<70_000 { text += "k\(i): 1\n" }
        let files = [SourceFile(path: "big.yaml", data: Data(text.utf8))]
        let project = ProjectLoader(handlers: testHandlers).load(files)
        #expect(project.diagnostics.items.count == DiagnosticList.perFileLimit)
        #expect(project.diagnostics.errorCount == 70_000)
        let sorted = project.diagnostics.sorted
        #expect(sorted.count == DiagnosticList.perFileLimit + 1)
        #expect(sorted.last?.severity == .note)
        #expect(sorted.last?.message.contains("69900 more errors") == true, "\(sorted.last!)")
    }

    @Test("the cap is per file: another file's problems are all still reported")
    func capIsPerFile() {
        var list = DiagnosticList()
        for i in 0..<150 { list.error("x.y", "a \(i)", at: SourceLocation(file: "a.yaml", line: i + 1, column: 1)) }
        for i in 0..<3 { list.warning("x.z", "b \(i)", at: SourceLocation(file: "b.yaml", line: i + 1, column: 1)) }
        #expect(list.items.count == 103)
        #expect(list.errorCount == 150 && list.warningCount == 3)
        var merged = DiagnosticList()
        merged.append(contentsOf: list)
        #expect(merged.errorCount == 150, "merging keeps the count of what was left out")
        #expect(merged.sorted.filter { $0.severity == .note }.count == 1)
    }

    @Test("3 000 journeys calling each other in a chain: one depth error at the call that passes 16 levels")
    func deepChain() {
        let count = 3000
        var files: [SourceFile] = []
        for i in 0..<count {
            let step =
                i + 1 < count
                ? "    call: deep.j\(i + 1)\n    on: { done: done }"
                : "    handler: t.step\n    on: { next: done, back: done }"
            let text =
                "journey: deep.j\(i)\nversion: 1\ntitle: J\nstart: s\nsteps:\n  s:\n\(step)\nends:\n  done: { kind: success }\n"
            files.append(SourceFile(path: "j\(i).yaml", data: Data(text.utf8)))
        }
        let project = ProjectLoader(handlers: testHandlers).load(files)
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(errors.count == 1, "\(errors.prefix(3))")
        let error = errors.first
        #expect(error?.id == "call.depth")
        // deep.j2982 → … → deep.j2999 is 17 levels: the first journey past the limit.
        #expect(error?.location.file == "j\(count - 18).yaml", "\(String(describing: error))")
        #expect(error?.message.contains("at most 16 levels") == true)
        // What stays within the limit still compiles and can run.
        #expect(project.compiled["deep.j\(count - 17)"] != nil)
        #expect(project.compiled["deep.j\(count - 18)"] == nil)
        #expect(project.compiled["deep.j0"] == nil)
    }

    @Test("sixteen levels of sub-journeys are allowed")
    func sixteenLevels() {
        var texts: [String] = []
        for i in 0...16 {
            let step =
                i < 16
                ? "    call: n.j\(i + 1)\n    on: { done: done }"
                : "    handler: t.step\n    on: { next: done, back: done }"
            texts.append(
                "journey: n.j\(i)\nversion: 1\ntitle: J\nstart: s\nsteps:\n  s:\n\(step)\nends:\n  done: { kind: success }\n"
            )
        }
        let (library, found) = compile(texts)
        #expect(library != nil, "\(found)")
    }

    @Test("a cycle is still found, once, in linear time")
    func cycle() {
        let a =
            "journey: c.a\nversion: 1\ntitle: A\nstart: s\nsteps:\n  s:\n    call: c.b\n    on: { done: done }\nends:\n  done: { kind: success }\n"
        let b =
            "journey: c.b\nversion: 1\ntitle: B\nstart: s\nsteps:\n  s:\n    call: c.a\n    on: { done: done }\nends:\n  done: { kind: success }\n"
        let (_, found) = compile([a, b])
        let cycles = found.filter { $0.id == "call.cycle" }
        #expect(cycles.count == 1, "\(found)")
        #expect(cycles.first?.message.contains("c.a → c.b → c.a") == true)
    }

    // MARK: Messages

    @Test("messages escape bidi and control characters and stay on one line")
    func escapedMessages() {
        let text =
            "journey: t.j\nversion: 1\ntitle: T\nstart: a\nsteps:\n  a:\n    handler: ui.scr\u{202E}een\n    on: {}\nends:\n  \"done\\nx\u{2066}\": { kind: success }\n"
        let (_, found) = compile([text])
        #expect(found.count >= 2)
        for diagnostic in found {
            let line = diagnostic.description
            #expect(!line.contains("\n"), "\(line)")
            #expect(!line.unicodeScalars.contains { PrintableText.needsEscape($0) }, "\(line)")
        }
        #expect(found.contains { $0.message.contains("ui.scr\\u{202E}een") })
        #expect(found.contains { $0.message.contains("done\\nx\\u{2066}") })
    }

    @Test("a file name with control characters is escaped too")
    func escapedPath() {
        let diagnostic = Diagnostic(
            .error, "x.y", "m", at: SourceLocation(file: "a\nb\u{202E}.yaml", line: 1, column: 1))
        #expect(diagnostic.description == "a\\nb\\u{202E}.yaml:1:1: error: m [x.y]")
    }
}
