import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// `journey explore` through the real interpreter and handlers, measured against the reference
/// peers' model of the same PIN journey (explore_model.py): the same states, the same
/// transitions, and the same shortest counterexample for the planted bug.
@Suite("Exploring every path of a journey")
struct ExplorerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The library of the given journey files (paths from the repository's root).
    static func library(_ paths: [String]) throws -> (CompiledLibrary, Project) {
        let sources = try paths.map {
            SourceFile(path: $0, data: try Data(contentsOf: root.appendingPathComponent($0)))
        }
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(sources)
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        try #require(errors.isEmpty, "\(errors)")
        return (try #require(project.library), project)
    }

    static func explore(
        _ path: String, id: String, bounds: JourneyExplorer.Bounds = .init()
    ) async throws -> JourneyExplorer.Result {
        let (library, _) = try library([path])
        let journey = try #require(library[id])
        return await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
            .explore(journey)
    }

    @Test("the PIN model journey has the peers' 45 states and 140 transitions, and no violation")
    func peersCounts() async throws {
        let result = try await Self.explore("journeys/examples/pin-model.journey.yaml", id: "examples.pin-model")
        #expect(result.violations.isEmpty, "\(result.violations.map { "\($0.id): \($0.message) \($0.path)" })")
        #expect(result.leftOut.isEmpty, "\(result.leftOut)")
        #expect(
            (result.states, result.transitions, result.depth) == (45, 140, 8),
            "\(result.states) \(result.transitions) \(result.depth)")
        #expect(result.clockJumps == [300_000])
    }
}

extension ExplorerTests {
    @Test("with 1 000 restarts and depth 2 000: the peers' 15 015 states and 51 038 transitions")
    func peersLargeCounts() async throws {
        let result = try await Self.explore(
            "journeys/examples/pin-model.journey.yaml", id: "examples.pin-model",
            bounds: .init(depth: 2000, restarts: 1000))
        #expect(result.violations.isEmpty)
        #expect(
            (result.states, result.transitions, result.depth) == (15_015, 51_038, 1006),
            "\(result.states) \(result.transitions) \(result.depth)")
    }

    @Test("the planted bug: a restart resets the count, found in the peers' five moves")
    func plantedBug() async throws {
        let result = try await Self.explore(
            "Tests/Fixtures/explore/pin-model-bug.journey.yaml", id: "examples.pin-model-bug")
        let violation = try #require(
            result.violations.first { $0.invariant == .counterSurvives },
            "\(result.states) \(result.violations.map { "\($0.id) \($0.message)" })")
        #expect(
            violation.path.map(\.description) == [
                "create: strong", "repeat: match", "biometry: allow", "locked: wrong", "restart",
            ], "\(violation.path)")
        #expect(violation.message.contains("from 1 to 0"), "\(violation.message)")
    }
}
