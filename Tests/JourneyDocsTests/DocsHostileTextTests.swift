import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import Testing

@testable import JourneyDocs

/// Texts a journey, a scenario or a golden holds are text on every page, whatever Markdown they
/// spell: no raw HTML, no code span JourneyKit did not open, no block started mid-page.
@Suite("Docs show every text as text")
struct DocsHostileTextTests {
    static let img = "<img src=x onerror=alert(1)>"

    /// A journey whose every text starts with a lone backtick before HTML, and a scenario of it
    /// titled the same way, with its walkthrough taken from a run.
    static let journey = """
        journey: t.hostile
        version: 1
        title: '`<img src=x onerror=alert(1)>'
        summary: '`<img src=x onerror=alert(1)> and `<b>`'
        params:
          label: { type: string, default: "x`<img src=x onerror=alert(1)>`y", description: '`<img src=x onerror=alert(1)>' }
        state:
          name: { type: string, default: "" }
        start: a
        steps:
          a:
            handler: ui.screen
            note: '`<img src=x onerror=alert(1)>'
            screen:
              title: '`<img src=x onerror=alert(1)>'
              text: '``<img src=x onerror=alert(1)>`'
              actions: { go: '`<img src=x onerror=alert(1)>' }
            on:
              go:
                - if: "state.name == '`<img src=x onerror=alert(1)>`'"
                  set: { state.name: "a`<img src=x onerror=alert(1)>`b" }
                  to: done
                - else: done
        ends:
          done: { kind: success, title: '`<img src=x onerror=alert(1)>' }
        """

    static let scenario = """
        scenario: s
        journey: t.hostile
        title: '`<img src=x onerror=alert(1)>'
        script:
          - at: a
            action: go
        expect: { end: done }

        """

    /// The journey's docs, its scenario played; `folder` is the folder its file is in.
    static func docs(folder: String = "test") async throws -> [JourneyDoc] {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/\(folder)/t.yaml", data: Data(journey.utf8)),
            SourceFile(path: "journeys/\(folder)/scenarios/s.yaml", data: Data(scenario.utf8)),
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        let compiled = try #require(project.scenarios.first, "\(project.diagnostics.sorted)")
        let sink = TranscriptBuffer()
        let report = await ScenarioRunner(services: BuiltinHandlers.services).run(
            compiled, in: library, transcript: sink)
        let recording = ScenarioRecording(
            journey: "t.hostile", scenario: "s", title: compiled.title, tags: [], file: compiled.file,
            records: sink.records, passed: report.passed)
        return DocsBuilder.build(journeys: project.journeys, recordings: [recording], locale: nil)
    }

    /// `markdown` with every code span taken out, read as CommonMark reads them: what is left
    /// is where HTML would be HTML.
    static func outsideCodeSpans(_ markdown: String) -> String {
        let chars = Array(markdown)
        var out = ""
        var i = 0
        while i < chars.count {
            if chars[i] == "\\", i + 1 < chars.count {
                out += "··"
                i += 2
                continue
            }
            guard chars[i] == "`" else {
                out.append(chars[i])
                i += 1
                continue
            }
            let (run, closing) = CodeSpan.at(i, in: chars)
            if let closing {
                out += "[code]"
                i = closing + run
            } else {
                out += String(repeating: "·", count: run)
                i += run
            }
        }
        return out
    }

    @Test(
        "a backtick in a journey's or scenario's text opens no code span: the HTML after it is text on the page and in the index"
    )
    func backticksDoNotMakeHTMLRaw() async throws {
        let docs = try await Self.docs()
        let files = DocsSite.files(docs, format: .md) { _ in "" }
        for name in ["t.hostile.md", "index.md"] {
            let page = try #require(files[name])
            // Mermaid's labels are escaped for Mermaid (`#lt;`): no tag of the journey's is in its block.
            let outside = Self.outsideCodeSpans(page)
            #expect(!outside.contains("<img"), "\(name):\n\(page)")
        }
        let page = try #require(files["t.hostile.md"])
        #expect(page.contains("# \\`&lt;img src=x onerror=alert(1)&gt;\n"), "\(page)")
        #expect(page.contains("\n\\`&lt;img src=x onerror=alert(1)&gt; and \\`&lt;b&gt;\\`\n"), "\(page)")
        // What the user sees, the scenario's title and the walkthrough, which spells the screen.
        #expect(page.contains("**\\`&lt;img src=x onerror=alert(1)&gt;**"), "\(page)")
        #expect(page.contains("\n\\`&lt;img src=x onerror=alert(1)&gt; · [scenario]"), "\(page)")
        #expect(page.contains("- `a` — “\\`&lt;img src=x onerror=alert(1)&gt;”"), "\(page)")
        #expect(
            files["index.md"]!.contains("| \\`&lt;img src=x onerror=alert(1)&gt; | 1 |"), "\(files["index.md"]!)")
    }

    @Test(
        "a code span is read as CommonMark reads one: a run of backticks closed by the next run of the same length",
        arguments: [
            ("`foo`", 1, 4), ("`` foo ` bar ``", 2, 13), ("``foo`", 2, nil), ("`foo``bar``", 1, nil),
            ("`a``b`", 1, 5), ("```", 3, nil), ("`", 1, nil),
        ] as [(String, Int, Int?)])
    func codeSpans(text: String, run: Int, closing: Int?) {
        let found = CodeSpan.at(0, in: Array(text))
        #expect(found.run == run && found.closing == closing, "\(text): \(found)")
    }

    @Test("what JourneyKit puts in a code span stays code whatever backticks it holds")
    func codeSpansAreFencedLongerThanTheirBackticks() async throws {
        #expect(MarkdownRenderer.code("a") == "`a`")
        #expect(MarkdownRenderer.code("a`b") == "``a`b``")
        #expect(MarkdownRenderer.code("x ``` y") == "````x ``` y````")
        #expect(MarkdownRenderer.code("`x") == "`` `x ``")
        #expect(MarkdownRenderer.code("x`") == "`` x` ``")
        #expect(MarkdownRenderer.code(" x ") == "`  x  `", "CommonMark takes one space off each end")
        #expect(MarkdownRenderer.code("a|b", cell: true) == "`a\\|b`")
        let page = MarkdownRenderer.page(try #require(try await Self.docs().first))
        // A param's default, a condition and a value set, each with a code span of its own inside.
        #expect(page.contains("| ``x`<img src=x onerror=alert(1)>`y`` |"), "\(page)")
        #expect(page.contains("if ``state.name == '`<img src=x onerror=alert(1)>`'``"), "\(page)")
        #expect(page.contains("(sets ``state.name = a`<img src=x onerror=alert(1)>`b``)"), "\(page)")
    }

    @Test("a folder's name is a heading of the index as text")
    func theIndexShowsAFoldersNameAsText() async throws {
        let docs = try await Self.docs(folder: Self.img)
        #expect(docs.first?.group == Self.img)
        let index = MarkdownRenderer.index(docs)
        #expect(index.contains("\n## &lt;img src=x onerror=alert(1)&gt;\n"), "\(index)")
        #expect(!index.contains("<img"), "\(index)")
    }

    @Test(
        "a text that starts with a block's syntax starts no block: a fence, a heading, a list, a quote",
        arguments: [
            ("```", "\\`\\`\\`"), ("~~~", "\\~\\~\\~"), ("# Title", "\\# Title"), ("- item", "\\- item"),
            ("+ item", "\\+ item"), ("* item", "\\* item"), ("> quoted", "&gt; quoted"), ("1. first", "1\\. first"),
            ("12) twelfth", "12\\) twelfth"), ("    indented", "indented"), ("---", "\\---"), ("===", "\\==="),
            ("<div>", "&lt;div&gt;"), ("| a | b |", "\\| a \\| b \\|"), ("[x]: /url", "\\[x\\]: /url"),
            ("ends #", "ends \\#"), ("3.5 seconds", "3.5 seconds"),
        ])
    func textsStartNoBlock(written: String, shown: String) async throws {
        var doc = try #require(try await Self.docs().first)
        doc.summary = written
        let page = MarkdownRenderer.page(doc)
        let lines = page.components(separatedBy: "\n")
        // The summary is the paragraph after the line naming the journey's file.
        let at = try #require(lines.firstIndex { $0.hasPrefix("`t.hostile`") })
        #expect(lines[at + 2] == shown, "\(written)")
        #expect(lines[at + 4] == "## Flow", "the page goes on after the summary")
    }
}
