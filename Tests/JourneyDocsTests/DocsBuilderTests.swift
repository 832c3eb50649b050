import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import Testing

@testable import JourneyDocs

@Suite("Docs model")
struct DocsBuilderTests {
    static let journey = """
        journey: t.docs
        version: 1
        title: { en: "Docs \\"quoted\\" | piped", nl: Documentatie }
        locales: [en, nl]
        stored:
          fails: { type: int, default: 0 }
        limits:
          pin: { max: 2, counter: stored.fails, exceeded: locked }
        start: a
        steps:
          a:
            handler: ui.screen
            screen: { title: { en: Start, nl: Begin }, actions: { go: Go, quit: Quit } }
            attempts: { limit: pin, counts: [quit], resets: [go] }
            on:
              go:
                - if: device.online && !(stored.fails > 0)
                  to: done
                - else: a
              quit: a
        ends:
          done: { kind: success }
          locked: { kind: failure }
        """

    /// The journey's doc with one scenario playing `script`; `edit` changes its records first.
    func build(
        journey: String = Self.journey, script: String, expect end: String = "done", device: String = "{}",
        locale: String? = nil, title: String = "One", edit: ([TranscriptRecord]) -> [TranscriptRecord] = { $0 }
    ) async throws -> JourneyDoc {
        let text = """
            scenario: s
            journey: t.docs
            title: One
            device: \(device)
            script:
            \(script)
            expect: { end: \(end) }

            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/test/t.yaml", data: Data(journey.utf8)),
            SourceFile(path: "journeys/test/scenarios/s.yaml", data: Data(text.utf8)),
        ])
        let compiled = project.library != nil
        try #require(compiled, "\(project.diagnostics.sorted)")
        let library = project.library!
        let scenario = try #require(project.scenarios.first, "\(project.diagnostics.sorted)")
        let sink = TranscriptBuffer()
        let report = await ScenarioRunner(services: BuiltinHandlers.services).run(
            scenario, in: library, transcript: sink)
        let recording = ScenarioRecording(
            journey: "t.docs", scenario: "s", title: title, tags: [], file: scenario.file,
            records: edit(sink.records), passed: report.passed)
        return try #require(
            DocsBuilder.build(journeys: project.journeys, recordings: [recording], locale: locale)
                .first)
    }

    @Test func coverageCountsTheTransitionsScenariosTake() async throws {
        let doc = try await build(script: "  - at: a\n    action: go")
        #expect(doc.edges.count == 4, "go (if 1), go (else), quit, and the exceeded limit")
        #expect(doc.covered.count == 1)
        #expect(Set(doc.uncovered.map(\.branch)) == ["else", "always"])
        #expect(doc.uncovered.filter { $0.limit == "pin" }.map(\.to) == ["locked"])
    }

    @Test func anExceededLimitIsCoveredByItsEventsNotByTheOutcomesText() async throws {
        let script = "  - at: a\n    action: quit\n  - at: a\n    action: quit"
        let limit = { (doc: JourneyDoc) in doc.covered.contains { $0.limit == "pin" } }
        #expect(try await limit(build(script: script)), "the second quit reaches the limit")
        // The transition's outcome text is for people; coverage reads the attempt event before it.
        let reworded = try await build(script: script) { records in
            records.map { record in
                guard case .transition(let from, let outcome, let branch, let to) = record.event,
                    outcome.contains("(limit")
                else { return record }
                return TranscriptRecord(
                    time: record.time, depth: record.depth,
                    event: .transition(from: from, outcome: "quit", branch: branch, to: to))
            }
        }
        #expect(limit(reworded))
        let withoutAttempt = try await build(script: script) { records in
            records.filter {
                if case .attempt(_, _, .exceeded, _, _) = $0.event { false } else { true }
            }
        }
        #expect(!limit(withoutAttempt))
    }

    /// A journey whose limit leads two ways when it is reached: offline or not.
    static let guardedLimit = """
        journey: t.docs
        version: 1
        title: Guarded limit
        stored:
          fails: { type: int, default: 0 }
        limits:
          pin:
            max: 1
            counter: stored.fails
            exceeded:
              - if: device.online
                to: locked
              - else: offline
        start: a
        steps:
          a:
            handler: ui.screen
            screen: { title: Start, actions: { go: Go, quit: Quit } }
            attempts: { limit: pin, counts: [quit] }
            on: { go: done, quit: a }
        ends:
          done: { kind: success }
          locked: { kind: failure }
          offline: { kind: failure }
        """

    @Test("each way an exceeded limit leads is covered only by a scenario that takes it")
    func eachBranchOfAnExceededLimitIsCoveredOnItsOwn() async throws {
        let script = "  - at: a\n    action: quit"
        let limitEdges = { (doc: JourneyDoc) in doc.edges.filter { $0.limit == "pin" } }
        let online = try await build(journey: Self.guardedLimit, script: script, expect: "locked")
        #expect(limitEdges(online).map(\.branch) == ["if 1", "else"])
        #expect(limitEdges(online).map(\.to) == ["locked", "offline"])
        #expect(online.covered.filter { $0.limit != nil }.map(\.to) == ["locked"], "\(online.covered)")
        #expect(online.uncovered.map(\.to) == ["done", "a", "offline"], "go, quit (never taken), the limit's else")
        #expect(online.covered.count == 1 && online.edges.count == 4)

        let offline = try await build(
            journey: Self.guardedLimit, script: script, expect: "offline", device: "{ online: false }")
        #expect(offline.covered.filter { $0.limit != nil }.map(\.to) == ["offline"], "\(offline.covered)")
        #expect(offline.uncovered.map(\.to) == ["done", "a", "locked"])
        // The page says which way is left, as it says for an outcome's guarded branches.
        let page = MarkdownRenderer.page(offline)
        #expect(page.contains("1 of 4 transitions are taken by at least one scenario."), "\(page)")
        #expect(page.contains("- `a` — limit pin reached if `device.online` → `locked`"), "\(page)")
        #expect(page.contains("`limit pin reached` otherwise → `offline`"), "\(page)")
        let diagram = MermaidRenderer.render(offline) { $0 }
        #expect(diagram.contains(#"s0 -.->|"limit pin reached · otherwise"| e2"#), "\(diagram)")
    }

    @Test func walkthroughsFollowTheTranscript() async throws {
        let doc = try await build(script: "  - at: a\n    action: quit\n  - at: a\n    action: go")
        let walk = try #require(doc.walkthroughs.first)
        #expect(
            walk.lines == [
                "- `a` — “Start” · action = “quit” → *quit* → `a`",
                "- `a` — “Start” · action = “go” → *go* → `done`",
            ])
        #expect(walk.end == "done (success)")
        #expect(doc.covered.count == 2)
    }

    @Test func limitsAreDescribedInWords() async throws {
        let doc = try await build(script: "  - at: a\n    action: go")
        #expect(
            doc.limits == [
                "**pin**: 2 in a row → `locked` (at step `a`, `quit` counts, `go` resets it). The count is kept on the device (`stored.fails`), so it survives app restarts."
            ])
        #expect(doc.reads.contains("device.online") && doc.writes == ["stored.fails"])
    }

    @Test(
        "the device store keys a step's handler seals, keeps or reads under a key written as text are among what the journey reads and writes"
    )
    func handlersStoreKeysAreListed() async throws {
        let journey = """
            journey: t.keys
            version: 1
            title: Keys
            state:
              newPin: { type: string, secret: true }
            stored:
              pin: { type: string, secret: true }
            start: choose
            steps:
              choose:
                handler: pin.entry
                with: { length: 4 }
                on: { entered: { set: { state.newPin: "${outcome.pin}" }, to: save } }
              save:
                handler: pin.save
                with: { key: pin, pin: "${state.newPin}" }
                on: { saved: offer }
              offer:
                handler: biometry.optIn
                with: { key: bioEnabled }
                screen: { title: Use Face ID?, actions: { allow: Allow, later: Later } }
                on: { allow: check, later: check, unavailable: check }
              check:
                handler: pin.verify
                with: { key: pin, length: 4 }
                on: { correct: done, wrong: check, missing: choose }
            ends:
              done: { kind: success }

            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/t/keys.yaml", data: Data(journey.utf8))
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        let doc = try #require(
            DocsBuilder.build(journeys: project.journeys, recordings: [], locale: nil, library: library).first)
        #expect(doc.writes == ["state.newPin", "stored.bioEnabled", "stored.pin"], "\(doc.writes)")
        #expect(doc.reads.contains("stored.pin") && !doc.reads.contains("stored.bioEnabled"), "\(doc.reads)")
    }

    @Test("the journey's invariants are listed with their summaries and rules, in every format")
    func invariantsAreListed() async throws {
        let journey = Self.journey.replacingOccurrences(
            of: "start: a\n",
            with:
                "invariants:\n  a-needs-online:\n    summary: A is shown only online\n    never: step == 'a' && !device.online || end == 'failure'\nstart: a\n"
        )
        let doc = try await build(journey: journey, script: "  - at: a\n    action: go")
        #expect(doc.invariants.map(\.id) == ["invariant.a-needs-online"])
        let markdown = MarkdownRenderer.page(doc)
        #expect(
            markdown.contains(
                "| `invariant.a-needs-online` | A is shown only online | `never: step == 'a' && !device.online \\|\\| end == 'failure'` |"
            ), "\(markdown)")
        let html = HTMLRenderer.page(doc, svg: "")
        #expect(
            html.contains(
                "<td><code>invariant.a-needs-online</code></td><td>A is shown only online</td><td><code>never: step == 'a' &amp;&amp; !device.online || end == 'failure'</code></td>"
            ), "\(html)")
    }

    @Test("the HTML page says of scenarios and coverage what the Markdown page says")
    func htmlSaysWhatMarkdownSays() async throws {
        let journey = Self.journey.replacingOccurrences(
            of: "      quit: a\n", with: "      quit:\n        set: { stored.fails: 0 }\n        to: a\n")
        // A run that fails its expectation, with a tag, from a file whose name holds a `#`.
        var doc = try await build(journey: journey, script: "  - at: a\n    action: go", expect: "locked")
        doc.walkthroughs[0].tags = ["smoke"]
        doc.walkthroughs[0].file = "journeys/test/scenarios/s #1.yaml"
        let link = SourceLink(pagesFolder: "docs/journeys", workingFolder: "/p")
        let markdown = MarkdownRenderer.page(doc, link: link)
        let html = HTMLRenderer.page(doc, svg: "", link: link)
        #expect(markdown.contains("tags: `smoke`") && html.contains("tags: <code>smoke</code>"), "\(html)")
        #expect(html.contains("<a href=\"../../journeys/test/scenarios/s%20%231.yaml\">scenario</a>"), "\(html)")
        #expect(html.contains("<a href=\"../../journeys/test/t.yaml\">journeys/test/t.yaml</a>"), "\(html)")
        #expect(markdown.contains("**End:** `done (success)` ✗") && html.contains("<code>done (success)</code> ✗"))
        // An edge's sets, and an uncovered edge's condition and branch.
        #expect(markdown.contains("→ `a` (sets `stored.fails = 0`)"), "\(markdown)")
        #expect(html.contains("→ <code>a</code> (sets <code>stored.fails = 0</code>)"), "\(html)")
        #expect(markdown.contains("Not taken by any scenario:") && html.contains("Not taken by any scenario:"))
        #expect(markdown.contains("- `a` — go otherwise → `a`"), "\(markdown)")
        #expect(html.contains("<li><code>a</code> — go otherwise → <code>a</code></li>"), "\(html)")
        // A journey no scenario plays itself, whose transitions its callers' scenarios take,
        // says so in both; one whose transitions none takes, that none plays it yet.
        doc.walkthroughs = []
        let called =
            "No scenario plays this journey itself; the scenarios of journeys that call it take the transitions counted below."
        #expect(MarkdownRenderer.page(doc).contains(called))
        #expect(HTMLRenderer.page(doc, svg: "").contains("<p>\(called)</p>"))
        doc.covered = []
        #expect(MarkdownRenderer.page(doc).contains("No scenario plays this journey yet."))
        #expect(HTMLRenderer.page(doc, svg: "").contains("<p>No scenario plays this journey yet.</p>"))
        #expect(HTMLRenderer.index([doc], callGraphSVG: "").contains("1 journey, 0 scenarios;"))
    }

    @Test("what an exceeded limit tests and sets is listed with the journey's reads and writes")
    func exceededLimitsReadAndWrite() throws {
        let journey = """
            journey: t.lock
            version: 1
            title: Lock
            stored:
              fails: { type: int, default: 0 }
              lockedAt: { type: int, default: 0 }
            limits:
              pin:
                max: 3
                counter: stored.fails
                exceeded:
                  - if: params.remember
                    set: { stored.lockedAt: "${device.now}" }
                    to: locked
                  - else: locked
            params:
              remember: { type: bool, default: true }
            start: a
            steps:
              a:
                handler: ui.screen
                screen: { title: Start, actions: { go: Go, wrong: Wrong } }
                attempts: { limit: pin, counts: [wrong] }
                on: { go: done, wrong: a }
            ends:
              done: { kind: success }
              locked: { kind: failure }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/test/lock.yaml", data: Data(journey.utf8))
        ])
        try #require(project.library != nil, "\(project.diagnostics.sorted)")
        let doc = try #require(DocsBuilder.build(journeys: project.journeys, recordings: [], locale: nil).first)
        #expect(doc.writes == ["stored.fails", "stored.lockedAt"])
        #expect(doc.reads.contains("params.remember") && doc.reads.contains("device.now"), "\(doc.reads)")
    }

    @Test func localeChoosesTheTexts() async throws {
        #expect(try await build(script: "  - at: a\n    action: go", locale: "nl").title == "Documentatie")
        #expect(try await build(script: "  - at: a\n    action: go", locale: "fr").title == "Docs \"quoted\" | piped")
    }

    @Test func diagramsEscapeLabelsAndDescribeGuards() async throws {
        let doc = try await build(script: "  - at: a\n    action: go")
        let mermaid = MermaidRenderer.render(doc) { "\($0).md" }
        #expect(mermaid.contains(#"s0 -->|"go · if device.online and not (stored.fails #gt; 0)"| e0"#))
        #expect(mermaid.contains(#"s0 -->|"go · otherwise"| s0"#))
        #expect(mermaid.contains(#"s0 -.->|"limit pin reached"| e1"#))
        // A directive or an entity written in a label stays text.
        #expect(
            MermaidRenderer.escape("Enter %%{init: {'theme':'forest'}}%% #lt;")
                == "Enter #37;#37;{init: {'theme':'forest'}}#37;#37; #35;lt;")
        #expect(mermaid.contains("e0([\"done\"]):::success"))
        let markdown = MarkdownRenderer.page(doc)
        #expect(markdown.contains("# Docs \"quoted\" \\| piped"))
        #expect(markdown.contains("| `a` | **Start**"))
        let dot = DotRenderer.render(doc)
        #expect(dot.contains(#"label="Docs \"quoted\" | piped""#))
    }

    @Test(
        "a journey's HTML is text on a Markdown page, as on an HTML one; a comparison, a URL's query and backticks read as written"
    )
    func markdownShowsHTMLAsText() async throws {
        let hostile = Self.journey
            .replacingOccurrences(
                of: #"title: { en: "Docs \"quoted\" | piped", nl: Documentatie }"#,
                with: #"title: "<img src=x onerror=alert(1)> &amp; <!-- x -->""#
            )
            .replacingOccurrences(
                of: "screen: { title: { en: Start, nl: Begin }, actions: { go: Go, quit: Quit } }",
                with:
                    #"screen: { title: "<script>alert(1)</script>", text: "fails < 3 & a=1&b=2 `<b>`", actions: { go: "</td><td>Go", quit: Quit } }"#
            )
            .replacingOccurrences(
                of: "    attempts:", with: "    note: \"<iframe src=x> `<i>`\"\n    attempts:")
        let doc = try await build(journey: hostile, script: "  - at: a\n    action: go")
        let markdown = MarkdownRenderer.page(doc)
        #expect(markdown.contains("# &lt;img src=x onerror=alert(1)&gt; &amp;amp; &lt;!-- x --&gt;"), "\(markdown)")
        // A backtick of the journey's is text: it opens no code span, in which HTML would stay.
        #expect(
            markdown.contains(
                "| `a` | **&lt;script&gt;alert(1)&lt;/script&gt;**<br/>fails &lt; 3 &amp; a=1&amp;b=2 \\`&lt;b&gt;\\`<br/>actions: [&lt;/td&gt;&lt;td&gt;Go]"
            ), "\(markdown)")
        #expect(markdown.contains("<br/>*&lt;iframe src=x&gt; \\`&lt;i&gt;\\`*"), "\(markdown)")
        // The walkthrough spells the screen's title.
        #expect(markdown.contains("- `a` — “&lt;script&gt;alert(1)&lt;/script&gt;”"), "\(markdown)")
        // No tag a journey wrote is left on the page: only the renderer's own.
        for tag in ["<img", "<script", "<iframe", "</td>", "<!--  x", "<!-- x"] {
            #expect(!markdown.contains(tag), "\(tag)")
        }
        #expect(
            MarkdownRenderer.inline("a <b> <3 x<y &lt; &#60; `c` *d* [e](f) \\")
                == #"a &lt;b&gt; &lt;3 x&lt;y &amp;lt; &amp;#60; \`c\` \*d\* \[e\](f) \\"#)
    }

    @Test("links to a journey's and a scenario's files with a space, a parenthesis or a letter beyond ASCII stay links")
    func linksToAwkwardPathsAreEncoded() async throws {
        var doc = try await build(script: "  - at: a\n    action: go")
        doc.file = "journeys/app/ünlöck (2).journey.yaml"
        doc.walkthroughs = doc.walkthroughs.map { walk in
            var walk = walk
            walk.file = "journeys/app/scenarios/right pin.scenario.yaml"
            return walk
        }
        let markdown = MarkdownRenderer.page(doc)
        #expect(
            markdown.contains(
                "[journeys/app/ünlöck (2).journey.yaml](../../journeys/app/%C3%BCnl%C3%B6ck%20%282%29.journey.yaml)"),
            "\(markdown)")
        #expect(markdown.contains("[scenario](../../journeys/app/scenarios/right%20pin.scenario.yaml)"), "\(markdown)")
        #expect(MarkdownRenderer.destination("../../journeys/a-b_c.d~e/f.yaml") == "../../journeys/a-b_c.d~e/f.yaml")
    }

    @Test("a blank title is left out, as one not written: the journey's id heads its page, no empty cell or separator")
    func blankTitlesAreLeftOut() async throws {
        let journey = Self.journey.replacingOccurrences(
            of: #"title: { en: "Docs \"quoted\" | piped", nl: Documentatie }"#, with: #"title: "  ""#
        ).replacingOccurrences(of: "done: { kind: success }", with: #"done: { kind: success, title: "" }"#)
        #expect(journey != Self.journey)
        let doc = try await build(journey: journey, script: "  - at: a\n    action: go", title: " ")
        #expect(doc.title == "t.docs")
        #expect(doc.ends.first { $0.id == "done" }?.title == nil)
        #expect(doc.walkthroughs.first?.title == nil)
        let markdown = MarkdownRenderer.page(doc)
        #expect(markdown.contains("\n# t.docs\n"), "\(markdown)")
        #expect(markdown.contains("### s\n\n[scenario]("), "\(markdown)")
    }

    @Test func guardsReadAsWords() {
        #expect(Guards.words("a == 'x' && !b || c != 2") == "a is 'x' and not b or c is not 2")
        #expect(Guards.words("n >= 3") == "n ≥ 3")
    }

    @Test("a guard's string literals are kept as written: only its operators read as words")
    func guardsKeepTheirLiterals() async throws {
        #expect(
            Guards.words("state.name == 'Hi!' || state.name == 'a==b'") == "state.name is 'Hi!' or state.name is 'a==b'"
        )
        #expect(Guards.words(#"x != "a && b" && !y"#) == #"x is not "a && b" and not y"#)
        #expect(Guards.words(#"x == 'it\'s != that'"#) == #"x is 'it\'s != that'"#)
        #expect(Guards.words("startsWith(x, 'a  b')") == "startsWith(x, 'a  b')")
        let journey = Self.journey.replacingOccurrences(
            of: "- if: device.online && !(stored.fails > 0)",
            with: "- if: \"device.biometry == 'Hi!' || device.biometry == 'a>=b'\"")
        let doc = try await build(journey: journey, script: "  - at: a\n    action: go")
        let mermaid = MermaidRenderer.render(doc) { $0 }
        #expect(mermaid.contains("go · if device.biometry is 'Hi!' or device.biometry is 'a#gt;=b'"), "\(mermaid)")
        #expect(DotRenderer.render(doc).contains(#"go\nif device.biometry is 'Hi!' or device.biometry is 'a>=b'"#))
    }

    @Test("a step called start is a node of its own in DOT, not the start marker")
    func aStepCalledStartIsNotTheStartMarker() async throws {
        let journey = Self.journey.replacingOccurrences(of: "start: a\n", with: "start: start\n")
            .replacingOccurrences(of: "  a:\n", with: "  start:\n")
            .replacingOccurrences(of: "- else: a", with: "- else: start").replacingOccurrences(
                of: "quit: a", with: "quit: start")
        let doc = try await build(journey: journey, script: "  - at: start\n    action: go")
        let dot = DotRenderer.render(doc)
        #expect(dot.contains(##"  "(start)" [shape=circle, label="start", fillcolor="#ffffff"];"##), "\(dot)")
        #expect(dot.contains(#"  "(start)" -> "start";"#), "\(dot)")
        #expect(dot.contains(#"  "start" [label="start\nStart\nui.screen"];"#), "\(dot)")
        #expect(!dot.contains("  start "), "\(dot)")
    }
}

@Suite("Docs never show a secret")
struct DocsSecretTests {
    static let journey = """
        journey: t.secret
        version: 1
        title: Secrets
        params:
          note: { type: string, secret: true, default: UA213223130000026007233566001 }
          empty: { type: string, secret: true, default: "" }
          shown: { type: string, default: visible-default }
        stored:
          token: { type: string, default: "" }
          other: { type: string, default: "" }
          code: { type: string, secret: true, default: "" }
        start: a
        steps:
          a:
            handler: ui.screen
            screen: { actions: { go: Go } }
            on:
              go:
                set:
                  stored.token: literal-token-9921
                  stored.other: "${params.shown}"
                  stored.code: "${'S3CRET' + '-4410'}"
                to: done
        ends:
          done: { kind: success }
        """

    @Test(
        "a secret param's default and a literal (or a template of constants) written into a secret store key are •••, in every format"
    )
    func secretsAreRedacted() throws {
        // `token` is secret because another journey of the project declares it so.
        let declaring = """
            journey: t.declares
            version: 1
            title: Declares
            stored:
              token: { type: string, secret: true }
            start: a
            steps:
              a: { handler: flow.decide, on: { next: done } }
            ends:
              done: { kind: success }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/test/t.yaml", data: Data(Self.journey.utf8)),
            SourceFile(path: "journeys/test/d.yaml", data: Data(declaring.utf8)),
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        let docs = DocsBuilder.build(
            journeys: project.journeys.filter { $0.id.value == "t.secret" }, recordings: [], locale: nil,
            secretStoredKeys: library.secretStoredKeys)
        let doc = try #require(docs.first)
        #expect(doc.params.first { $0.name == "note" }?.defaultValue == "•••")
        #expect(doc.params.first { $0.name == "empty" }?.defaultValue == #""""#, "an empty default says nothing")
        #expect(doc.params.first { $0.name == "shown" }?.defaultValue == "visible-default")
        for format in DocsFormat.allCases {
            for (name, page) in DocsSite.files(docs, format: format, svg: { $0 }) {
                #expect(!page.contains("UA2132231300"), "\(format) \(name)")
                #expect(!page.contains("literal-token"), "\(format) \(name)")
                #expect(!page.contains("S3CRET") && !page.contains("4410"), "\(format) \(name)")
            }
        }
        #expect(doc.edges.contains { $0.sets.contains("stored.token = •••") })
        #expect(doc.edges.contains { $0.sets.contains("stored.other = ${params.shown}") })
        // A template that reads nothing is literal text, however it is written.
        #expect(doc.edges.contains { $0.sets.contains("stored.code = •••") })
    }
}
