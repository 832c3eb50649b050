import Foundation
import Testing

/// What the README and the format reference show of the shipped example is what the repository
/// holds and what the tool prints: a reader who copies it gets what the page says.
@Suite struct ReadmeTests {
    /// The body of the first fenced block of `language` after `anchor` in `page`.
    static func block(_ language: String, after anchor: String, in page: String) -> String? {
        guard let start = page.range(of: anchor),
            let open = page.range(of: "```\(language)\n", range: start.upperBound..<page.endIndex),
            let close = page.range(of: "\n```\n", range: open.upperBound..<page.endIndex)
        else { return nil }
        return String(page[open.upperBound..<close.lowerBound]) + "\n"
    }

    static func page(_ path: String) throws -> String {
        try String(contentsOf: Paths.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test(
        "the complete journey the README and docs/journey-format.md list is the shipped file, byte for byte",
        arguments: [
            ("README.md", "is a complete journey"), ("docs/journey-format.md", "## A complete small journey"),
        ])
    func listedJourneyIsTheShippedOne(page: String, anchor: String) throws {
        let shipped = try String(
            contentsOf: Paths.journeys.appendingPathComponent("examples/unlock.journey.yaml"), encoding: .utf8)
        let listed = Self.block("yaml", after: anchor, in: try Self.page(page))
        #expect(listed == shipped, "\(page) lists another journey than journeys/examples/unlock.journey.yaml")
    }

    @Test("the scenario the README lists is the shipped file, byte for byte")
    func listedScenarioIsTheShippedOne() throws {
        let path = "journeys/examples/scenarios/three-strikes-across-restart.scenario.yaml"
        let shipped = try String(contentsOf: Paths.root.appendingPathComponent(path), encoding: .utf8)
        let listed = Self.block("yaml", after: "`\(path)`", in: try Self.page("README.md"))
        #expect(listed == shipped, "README.md lists another scenario than \(path)")
    }

    @Test("the README's 'Check it' step prints what the README shows, with wrong: renamed to wrng:")
    func checkItShowsTheToolsOutput() async throws {
        let readme = try Self.page("README.md")
        let shown = try #require(Self.block("text", after: "rename the `wrong:` transition to `wrng:`", in: readme))
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let file = journeys.appendingPathComponent("examples/unlock.journey.yaml")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.components(separatedBy: "\n      wrong: enterPin\n").count == 2)
            try writeText(
                text.replacingOccurrences(of: "\n      wrong: enterPin\n", with: "\n      wrng: enterPin\n"), to: file)
            let result = try await runJourney(["check", "journeys/examples"], cwd: directory)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stdout + result.stderr == shown, "\(result)")
        }
    }
}
