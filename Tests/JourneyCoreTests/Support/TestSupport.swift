import Foundation
import Testing

@testable import JourneyCore

/// A handler for tests of the core: it declares the outcomes it is given and never runs
/// (machine tests feed outcomes directly).
struct StubHandler: StepHandler {
    let contract: HandlerContract

    init(_ id: String, outcomes: [String], data: [DataSpec] = [], inputs: [InputSpec] = [], actions: Bool = false) {
        contract = HandlerContract(
            id: id, summary: "test handler",
            parameters: [ParameterSpec(name: "n", kind: .value(TypeInfo(.int)), summary: "")],
            inputs: inputs, outcomes: outcomes.map { OutcomeSpec(name: $0, summary: "", data: data) },
            actionsAreOutcomes: actions)
    }

    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        throw HandlerError("stub handlers do not run")
    }
}

let testHandlers: HandlerRegistry = {
    do throws(HandlerRegistry.DuplicateID) {
        return try HandlerRegistry([
            StubHandler("t.step", outcomes: ["next", "back"]),
            StubHandler("t.check", outcomes: ["correct", "wrong", "cancel"]),
            StubHandler(
                "t.value", outcomes: ["done"], data: [DataSpec(name: "value", type: TypeInfo(.string))],
                inputs: [InputSpec(name: "text", type: TypeInfo(.string), summary: "")]),
            StubHandler(
                "t.secret", outcomes: ["done"], data: [DataSpec(name: "pin", type: TypeInfo(.string, secret: true))]),
            StubHandler("t.screen", outcomes: [], actions: true),
        ])
    } catch {
        fatalError("\(error)")
    }
}()

/// YAML with position markers (1️⃣, 2️⃣, …) removed, and where each marker was.
struct MarkedSource {
    let text: String
    let markers: [String: (line: Int, column: Int)]

    init(_ marked: String) {
        var text = ""
        var markers: [String: (Int, Int)] = [:]
        var line = 1, column = 1
        let markerScalars: Set<Character> = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]
        for character in marked {
            if markerScalars.contains(character) {
                markers[String(character)] = (line, column)
                continue
            }
            text.append(character)
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += character.unicodeScalars.count
            }
        }
        self.text = text
        self.markers = markers
    }

    func location(_ marker: String, file: String = "test.yaml") -> JourneyCore.SourceLocation {
        let m = markers[marker]!
        return JourneyCore.SourceLocation(file: file, line: m.line, column: m.column)
    }
}

/// Loads and compiles journeys given as YAML texts, returning every diagnostic.
func compile(_ texts: [String], handlers: HandlerRegistry = testHandlers) -> (CompiledLibrary?, [Diagnostic]) {
    let files = texts.enumerated().map {
        SourceFile(path: $0.offset == 0 ? "test.yaml" : "test\($0.offset).yaml", data: Data($0.element.utf8))
    }
    let project = ProjectLoader(handlers: handlers).load(files)
    return (project.library, project.diagnostics.sorted)
}

/// The diagnostics of one journey text, without "end never reached" warnings (most test
/// journeys declare a `failed` end they do not all use).
func diagnostics(_ text: String, handlers: HandlerRegistry = testHandlers) -> [Diagnostic] {
    compile([text], handlers: handlers).1.filter { $0.id != "end.unused" }
}

/// Expects exactly one diagnostic with `id`, at the marker's position.
func expectDiagnostic(
    _ id: String, at marker: String, in source: MarkedSource, containing text: String? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let found = diagnostics(source.text).filter { $0.id == id }
    #expect(
        found.count == 1, "expected one [\(id)], found: \(diagnostics(source.text))", sourceLocation: sourceLocation)
    guard let diagnostic = found.first else { return }
    #expect(diagnostic.location == source.location(marker), "\(diagnostic)", sourceLocation: sourceLocation)
    if let text {
        #expect(diagnostic.message.contains(text), "\(diagnostic.message)", sourceLocation: sourceLocation)
    }
}

/// A minimal valid journey around the given steps.
func journey(
    _ id: String = "t.j", steps: String, extra: String = "",
    ends: String = "  done: { kind: success }\n  failed: { kind: failure }\n", start: String = "a"
) -> String {
    """
    journey: \(id)
    version: 1
    title: Test
    \(extra)
    start: \(start)
    steps:
    \(steps)
    ends:
    \(ends)
    """
}
