import JourneyCore
import Testing

@testable import JourneyCLI

/// The line a long `journey explore` shows on a terminal while it runs.
@Suite("journey explore's progress line")
struct ProgressLineTests {
    @Test("it says the states, transitions and level so far; for random walks, the walks and moves")
    func text() {
        #expect(
            ProgressLine.text("examples.pin-model", .init(depth: 12, states: 4_051, transitions: 13_771))
                == "examples.pin-model: 4051 states, 13771 transitions, depth 12…")
        #expect(
            ProgressLine.text("t.one", .init(depth: 0, states: 1, transitions: 1))
                == "t.one: 1 state, 1 transition, depth 0…")
        #expect(
            ProgressLine.text(
                "examples.tree-login from tree-sign-in", .init(depth: 30, states: 45, transitions: 600, walks: 1))
                == "examples.tree-login from tree-sign-in: 1 random walk, 45 states seen, 600 moves, the longest 30…")
    }

    @Test("a short exploration shows nothing; past half a second the line shows, and clearing takes it away")
    func quiet() async throws {
        let line = ProgressLine(console: Console(), name: "examples.pin-model")
        line.show(.init(depth: 1, states: 2, transitions: 3))
        #expect(!line.hasShown)
        try await Task.sleep(for: .milliseconds(600))
        line.show(.init(depth: 2, states: 1, transitions: 1))
        #expect(line.hasShown)
        line.clear()
        #expect(!line.hasShown)
    }
}
