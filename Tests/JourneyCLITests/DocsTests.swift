import Foundation
import Testing

@Suite("journey docs")
struct DocsTests {
    @Test("the committed docs/journeys are what `journey docs` generates now")
    func committedDocsAreFresh() throws {
        let result = try runJourney(["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: Paths.root)
        #expect(result.status == Exit.ok, "\(result.stderr)")
    }

    @Test("editing a journey without regenerating fails --check, naming the stale page")
    func stalePagesAreNamed() throws {
        try withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("docs"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("docs/journeys"),
                to: directory.appendingPathComponent("docs/journeys"))
            let journey = journeys.appendingPathComponent("examples/unlock.journey.yaml")
            try writeText(
                try String(contentsOf: journey, encoding: .utf8).replacingOccurrences(
                    of: "title: Unlock with a PIN", with: "title: Unlock with your PIN"), to: journey)
            let result = try runJourney(["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: directory)
            #expect(result.status == Exit.failed)
            #expect(result.stderr.contains("docs/journeys/examples.unlock.md: stale"), "\(result.stderr)")
            #expect(result.stderr.contains("docs/journeys/index.md: stale"))
            #expect(!result.stderr.contains("eduid.onboarding.md"), "only stale pages are named")
            #expect(result.stderr.contains("regenerate with `journey docs journeys --out docs/journeys`"))
        }
    }

    @Test("every journey gets a page with a diagram, a steps table and a walkthrough per scenario; output is stable")
    func pagesAndDeterminism() throws {
        try withTemporaryDirectory { directory in
            let first = directory.appendingPathComponent("a").path
            let second = directory.appendingPathComponent("b").path
            for out in [first, second] {
                let result = try runJourney(["docs", "journeys", "--out", out], cwd: Paths.root)
                #expect(result.status == Exit.ok, "\(result.stderr)")
            }
            let journeyFiles = files(under: Paths.journeys, endingWith: ".journey.yaml")
            let pages = entries(of: URL(fileURLWithPath: first)).filter { $0.hasSuffix(".md") && $0 != "index.md" }
            #expect(pages.count == journeyFiles.count)
            for page in pages {
                let a = try String(contentsOfFile: first + "/" + page, encoding: .utf8)
                let b = try String(contentsOfFile: second + "/" + page, encoding: .utf8)
                #expect(a == b, "\(page) differs between two runs")
                #expect(a.contains("```mermaid\nflowchart TD"), "\(page) has no diagram")
                #expect(a.contains("| step | what the user sees | handler | outcome → next |"))
            }
            let unlock = try String(contentsOfFile: first + "/examples.unlock.md", encoding: .utf8)
            let scenarios = files(
                under: Paths.journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml")
            #expect(unlock.components(separatedBy: "\n### ").count - 1 == scenarios.count)
            #expect(unlock.contains("pin = •••"), "walkthroughs come from transcripts, secrets masked")
            #expect(!unlock.contains("0420"))
        }
    }

    @Test("--format dot writes Graphviz sources")
    func dotFormat() throws {
        try withTemporaryDirectory { directory in
            let result = try runJourney(
                ["docs", "journeys", "--out", directory.path, "--format", "dot"], cwd: Paths.root)
            #expect(result.status == Exit.ok)
            let dot = try String(contentsOf: directory.appendingPathComponent("diia.pin-enter.dot"), encoding: .utf8)
            #expect(dot.hasPrefix("digraph \"diia.pin-enter\" {"))
            #expect(dot.contains("style=dashed"), "an exceeded limit is drawn dashed")
        }
    }

    @Test("--format html without Graphviz says what is missing")
    func htmlWithoutGraphviz() throws {
        try withTemporaryDirectory { directory in
            let result = try runJourney(
                ["docs", "journeys", "--out", directory.path, "--format", "html"], cwd: Paths.root,
                environment: ["PATH": "/nonexistent"])
            #expect(result.status == Exit.invalid)
            #expect(result.stderr.contains("apt-get install graphviz"), "\(result.stderr)")
            #expect(entries(of: directory).isEmpty, "nothing is written")
        }
    }

    @Test("the HTML site renders in headless Chromium with diagrams and tables", .timeLimit(.minutes(3)))
    func htmlRendersInChromium() throws {
        let binary = try #require(Paths.journeyBinary)
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "Tests/docs/check_screenshots.py", "--journey-bin", binary.path], cwd: Paths.root, timeout: 170)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdoutLines.last?.hasSuffix(" passed, 0 failed") == true)
    }
}
