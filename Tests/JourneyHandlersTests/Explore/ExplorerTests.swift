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
        #expect(result.violations.isEmpty, "\(result.violations.map { "\($0.invariant): \($0.message) \($0.path)" })")
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
            "\(result.states) \(result.violations.map { "\($0.invariant) \($0.message)" })")
        #expect(
            violation.path.map(\.description) == [
                "create: strong", "repeat: match", "biometry: allow", "locked: wrong", "restart",
            ], "\(violation.path)")
        #expect(violation.message.contains("from 1 to 0"), "\(violation.message)")
    }
}

/// Exploring on several threads: each level's moves are played side by side and merged in
/// order, so any number of jobs finds the same states, transitions and counterexamples.
extension ExplorerTests {
    /// What a result says, as text to compare: counts, verdicts with their paths, what was
    /// left out, and the transitions taken.
    static func summary(_ result: JourneyExplorer.Result) -> [String] {
        [
            "\(result.states) states, \(result.transitions) transitions, depth \(result.depth), frontier \(result.frontier), truncated \(result.truncated)"
        ]
            + result.violations.map {
                "\($0.invariant.rawValue) at \($0.step ?? "-"): \($0.message) [\($0.path.map(\.description).joined(separator: " → "))] \($0.expected.map { "\($0.variable) = \($0.value)" } ?? "")"
            }
            + result.leftOut + result.taken.sorted().map(\.description)
    }

    static func explore(
        _ path: String, id: String, bounds: JourneyExplorer.Bounds = .init(), jobs: Int
    ) async throws -> JourneyExplorer.Result {
        let (library, _) = try library([path])
        let journey = try #require(library[id])
        return await JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs
        ).explore(journey)
    }

    @Test(
        "one job and several find the same states, transitions and counterexamples",
        arguments: [
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 200_000),
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 9_000),
            ("Tests/Fixtures/explore/pin-model-bug.journey.yaml", "examples.pin-model-bug", 300, 100, 200_000),
            ("Tests/Fixtures/explore/fails.journey.yaml", "explore.fails", 30, 2, 200_000),
            ("Tests/Fixtures/explore/trap.journey.yaml", "explore.trap", 30, 2, 200_000),
        ])
    func sameOnAnyNumberOfJobs(
        _ path: String, _ id: String, _ depth: Int, _ restarts: Int, _ states: Int
    )
        async throws
    {
        let bounds = JourneyExplorer.Bounds(depth: depth, restarts: restarts, states: states)
        let one = try await Self.explore(path, id: id, bounds: bounds, jobs: 1)
        #expect(one.states > 1)
        for jobs in [2, 3, 8] {
            let many = try await Self.explore(path, id: id, bounds: bounds, jobs: jobs)
            #expect(Self.summary(many) == Self.summary(one), "\(jobs) jobs")
        }
    }

    @Test("the states bound stops the exploration at the same state on any number of jobs")
    func truncatedAlike() async throws {
        let bounds = JourneyExplorer.Bounds(depth: 2000, restarts: 1000, states: 9_000)
        let result = try await Self.explore(
            "journeys/examples/pin-model.journey.yaml", id: "examples.pin-model", bounds: bounds, jobs: 4)
        #expect(result.truncated)
        #expect(result.states == 9_000, "\(result.states)")
    }
}
