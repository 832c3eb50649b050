import Foundation
import Testing

@testable import JourneyCore

/// The journeys of a project's folders are parsed only when what a command names reaches
/// them, and a stored key any journey of the project declares secret stays secret however
/// little of the project was parsed.
@Suite("Loading only what a scenario reaches")
struct LazyLoadingTests {
    /// A journey that calls `calls` (or runs a step), with `stored` as its stored values.
    static func journey(_ id: String, calls: String? = nil, stored: String = "") -> String {
        let step =
            calls.map { "call: \($0)\n    on: { fin: fin }" } ?? "handler: t.step\n    on: { next: fin, back: fin }"
        return """
            journey: \(id)
            version: 1
            title: T
            \(stored)
            start: a
            steps:
              a:
                \(step)
            ends:
              fin: { kind: success }

            """
    }

    static func scenario(_ journey: String, store: String = "{}") -> String {
        "scenario: s\njourney: \(journey)\ndevice: { store: \(store) }\nscript: []\nexpect: { end: fin }\n"
    }

    static func file(_ path: String, _ text: String, named: Bool = false) -> SourceFile {
        SourceFile(path: path, data: Data(text.utf8), journeyOnly: !named)
    }

    static let unparseable = "journey: b.broken\nversion: 1\ntitle: \"unclosed\nstart: a\n"

    static func load(_ files: [SourceFile]) -> (project: Project, parsed: [String]) {
        ProjectLoader(handlers: testHandlers).loadTracingParsed(files)
    }

    @Test("a scenario parses its journey and what that calls, nothing else; a broken journey elsewhere is not reported")
    func onlyWhatIsReached() {
        let (project, parsed) = Self.load([
            Self.file("a/scenarios/s.yaml", Self.scenario("a.main"), named: true),
            Self.file("a/main.journey.yaml", Self.journey("a.main", calls: "a.sub")),
            Self.file("a/scenarios/other.yaml", Self.scenario("a.main")),
            Self.file("a/sub.journey.yaml", Self.journey("a.sub")),
            Self.file("b/broken.journey.yaml", Self.unparseable),
            Self.file("b/other.journey.yaml", Self.journey("b.other", calls: "b.broken")),
        ])
        #expect(parsed == ["a/main.journey.yaml", "a/sub.journey.yaml"])
        #expect(project.diagnostics.items.isEmpty, "\(project.diagnostics.sorted)")
        #expect(project.scenarios.map(\.id) == ["s"])
        #expect(project.compiled.ids == ["a.main", "a.sub"])
    }

    @Test("a broken journey that is called is reported at its own file, and the scenario says so")
    func brokenCalledJourney() {
        let (project, parsed) = Self.load([
            Self.file("a/scenarios/s.yaml", Self.scenario("a.main"), named: true),
            Self.file("a/main.journey.yaml", Self.journey("a.main", calls: "b.broken")),
            Self.file("b/broken.journey.yaml", Self.unparseable),
            Self.file("c/broken.journey.yaml", Self.unparseable.replacingOccurrences(of: "b.broken", with: "c.broken")),
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(errors.map(\.location.file) == ["b/broken.journey.yaml"], "\(errors)")
        #expect(parsed == ["a/main.journey.yaml", "b/broken.journey.yaml"])
        #expect(
            project.unrunnable.first?.reason
                == "its journey 'a.main' calls 'b.broken', which has errors (b/broken.journey.yaml)")
    }

    @Test("a journey whose `journey:` line does not spell its id plainly is still found, from the files holding it")
    func idNotSpelledPlainly() {
        let folded = Self.journey("a.sub").replacingOccurrences(of: "journey: a.sub\n", with: "journey: >-\n  a.sub\n")
        let (project, parsed) = Self.load([
            Self.file("a/main.journey.yaml", Self.journey("a.main", calls: "a.sub"), named: true),
            Self.file("a/other.journey.yaml", Self.journey("a.other")),
            Self.file("a/sub.journey.yaml", folded),
        ])
        #expect(project.diagnostics.items.isEmpty, "\(project.diagnostics.sorted)")
        #expect(project.compiled["a.sub"] != nil)
        #expect(parsed == ["a/sub.journey.yaml"])
    }

    @Test(
        "when two files declare the same journey, the id is reported twice used, as when all are parsed, and not called"
    )
    func twoDeclarations() {
        let second = Self.journey("a.sub").replacingOccurrences(of: "title: T", with: "title: Second")
        let (project, _) = Self.load([
            Self.file("a/main.journey.yaml", Self.journey("a.main", calls: "a.sub"), named: true),
            Self.file("a/sub.journey.yaml", Self.journey("a.sub")),
            Self.file("b/sub.journey.yaml", second),
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(
            errors.map { "\($0.location.file) \($0.id) \($0.message)" } == [
                "b/sub.journey.yaml id.duplicate journey id 'a.sub' is already used by a/sub.journey.yaml:1"
            ], "\(project.diagnostics.sorted)")
        // Neither is called: which one a run would reach is not the file's order to decide.
        #expect(project.compiled["a.main"] == nil)
        // All parsed, the same error at the same place.
        let all = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "a/main.journey.yaml", data: Data(Self.journey("a.main", calls: "a.sub").utf8)),
            SourceFile(path: "a/sub.journey.yaml", data: Data(Self.journey("a.sub").utf8)),
            SourceFile(path: "b/sub.journey.yaml", data: Data(second.utf8)),
        ])
        #expect(
            all.diagnostics.items.filter { $0.id == "id.duplicate" }.map { "\($0.location.file) \($0.message)" } == [
                "b/sub.journey.yaml journey id 'a.sub' is already used by a/sub.journey.yaml:1"
            ])
    }

    /// A scenario copied to a new file keeps its id until renamed: the copy is the one
    /// reported, whichever name sorts first, and the message says where the id is taken.
    @Test("two scenarios with one id: the one whose file is not named after it is reported, pointing at the other")
    func duplicateScenarioIdBlamesTheCopy() {
        for copy in ["a/scenarios/a-copy.scenario.yaml", "a/scenarios/z-copy.scenario.yaml"] {
            let files = [
                SourceFile(path: "a/main.journey.yaml", data: Data(Self.journey("a.main").utf8)),
                SourceFile(path: "a/scenarios/s.scenario.yaml", data: Data(Self.scenario("a.main").utf8)),
                SourceFile(path: copy, data: Data(Self.scenario("a.main").utf8)),
            ]
            let project = ProjectLoader(handlers: testHandlers).load(files.sorted { $0.path < $1.path })
            let stem = copy.split(separator: "/").last!.dropLast(".scenario.yaml".count)
            #expect(
                project.diagnostics.items.map { "\($0.location.file):\($0.location.line) \($0.id) \($0.message)" } == [
                    "\(copy):1 id.duplicate scenario 's' of 'a.main' is already defined at a/scenarios/s.scenario.yaml:1:11; give this one an id of its own, such as its file's name '\(stem)'"
                ], "\(project.diagnostics.sorted)")
            #expect(project.scenarios.map(\.file) == ["a/scenarios/s.scenario.yaml"])
        }
    }

    // MARK: Secrets

    static let secretToken = "stored:\n  token: { type: string, secret: true, default: \"\" }"

    @Test("a stored key that only a journey the scenario never reaches declares secret is secret")
    func secretOnlyInAnUnreachedJourney() {
        let (project, parsed) = Self.load([
            Self.file("a/scenarios/s.yaml", Self.scenario("a.main", store: "{ token: user-token-4711 }"), named: true),
            Self.file("a/main.journey.yaml", Self.journey("a.main")),
            Self.file("b/plain.journey.yaml", Self.journey("b.plain", stored: "stored:\n  token: { type: string }")),
            Self.file(
                "b/other.journey.yaml",
                Self.journey("b.other", stored: "stored:\n  other: { type: string, secret: true }")),
            Self.file("c/declares.journey.yaml", Self.journey("c.declares", stored: Self.secretToken)),
        ])
        // The device's `token` is read by nothing a.main plays: said, and still kept secret.
        #expect(project.diagnostics.items.map(\.id) == ["scenario.store"], "\(project.diagnostics.sorted)")
        let library = project.compiled
        #expect(library.isSecretStored("token"))
        #expect(!library.isSecretStored("mobileUID"))
        // Only the file that can declare `token` secret was parsed to find out: the one
        // without `secret` and the one without `token` were not.
        #expect(parsed == ["a/main.journey.yaml", "c/declares.journey.yaml"])
        #expect(library.secretStoredKeys == ["token", "other"])
    }

    @Test(
        "a journey file whose YAML does not parse may declare any key it holds secret: each is taken to be, named or not",
        arguments: [false, true])
    func anUnreadableDeclarationFailsClosed(named: Bool) {
        // `token` declared secret, then a line that breaks the file's YAML.
        let broken = Self.journey("c.declares", stored: Self.secretToken) + "oops: [unclosed\n"
        let (project, _) = Self.load([
            Self.file("a/scenarios/s.yaml", Self.scenario("a.main", store: "{ token: user-token-4711 }"), named: true),
            Self.file("a/main.journey.yaml", Self.journey("a.main", stored: "stored:\n  token: { type: string }")),
            Self.file("c/declares.journey.yaml", broken, named: named),
        ])
        // Named, its errors are reported; not named, nothing reaches it but the question.
        #expect(project.diagnostics.items.contains { $0.id == "yaml.syntax" } == named, "\(project.diagnostics.sorted)")
        #expect(project.compiled.isSecretStored("token"))
        // A key whose bytes it does not hold, it cannot declare.
        #expect(!project.compiled.isSecretStored("mobileUID"))
        // Nor one that a file without `secret` in it holds.
        let unsaid = Self.journey("c.plain", stored: "stored:\n  token: { type: string }") + "oops: [unclosed\n"
        let (plain, _) = Self.load([
            Self.file("a/main.journey.yaml", Self.journey("a.main"), named: true),
            Self.file("c/plain.journey.yaml", unsaid, named: named),
        ])
        #expect(!plain.compiled.isSecretStored("token"))
    }

    @Test("a key the scenario's own journey declares not secret is secret when another journey declares it secret")
    func declaredNotSecretHereButSecretElsewhere() {
        let (project, _) = Self.load([
            Self.file("a/scenarios/s.yaml", Self.scenario("a.main", store: "{ token: user-token-4711 }"), named: true),
            Self.file("a/main.journey.yaml", Self.journey("a.main", stored: "stored:\n  token: { type: string }")),
            Self.file("c/declares.journey.yaml", Self.journey("c.declares", stored: Self.secretToken)),
        ])
        #expect(project.diagnostics.items.isEmpty, "\(project.diagnostics.sorted)")
        #expect(project.compiled.isSecretStored("token"))
    }

    @Test(
        "a key declared secret under any spelling YAML allows is found: an escape, or a character Swift equates",
        arguments: [
            (key: "token", declaration: #"  "\x74oken": { type: string, secret: true }"#),
            (key: "token", declaration: #"  token: { type: string, "s\u0065cret": true }"#),
            (key: "token", declaration: #"  "\U00000074oken": { type: string, secret: true }"#),
            // An escaped line break, in an explicit key: `"tok\` then `en"` on the next line;
            // then the same with CRLF, and with a Unicode line separator.
            (key: "token", declaration: "  ? \"tok\\\n    en\"\n  : { type: string, secret: true }"),
            (key: "token", declaration: "  ? \"tok\\\r\n    en\"\n  : { type: string, secret: true }"),
            (key: "token", declaration: "  ? \"tok\\\u{2028}    en\"\n  : { type: string, secret: true }"),
            // KELVIN SIGN, which Swift compares equal to the letter K.
            (key: "Key", declaration: "  \u{212A}ey: { type: string, secret: true }"),
        ])
    func unusualSpellings(key: String, declaration: String) {
        let declaring = Self.journey("c.declares", stored: "stored:\n" + declaration)
        let (project, _) = Self.load([
            Self.file("a/main.journey.yaml", Self.journey("a.main"), named: true),
            Self.file("c/declares.journey.yaml", declaring),
        ])
        // Read whole, the file declares the key secret (with an error for a name that is not
        // an identifier); loaded lazily, the library says the same.
        let whole = ProjectLoader(handlers: testHandlers).load([Self.file("c.yaml", declaring, named: true)])
        #expect(whole.journeys.first?.secretStoredKeys.contains(key) == true, "\(whole.diagnostics.sorted)")
        #expect(project.compiled.isSecretStored(key))
        #expect(project.compiled.secretStoredKeys.contains(key))
    }

    @Test("the escapes people write in texts (\\n, \\\", \\t) or patterns (\\d) do not make a file parsed for a key")
    func commonEscapesAreNoReasonToParse() {
        let texts = Self.journey(
            "b.texts",
            stored: #"stored:\#n  other: { type: string, secret: true, description: "a\nb \"c\" \t \d" }"#)
        let plain = ProjectJourneyFiles(
            [Self.file("b/texts.journey.yaml", texts)], loader: ProjectLoader(handlers: testHandlers))
        #expect(!plain.declaresSecret("token"))
        #expect(plain.parsed.isEmpty)
        // With an escape that could spell a letter, the file is parsed to be sure. (Without the
        // tab, which a value may not hold: a file that does not read may declare any key.)
        let readable = texts.replacingOccurrences(of: #"\d"#, with: #"\x64"#).replacingOccurrences(
            of: #" \t"#, with: "")
        let escaped = ProjectJourneyFiles(
            [Self.file("b/texts.journey.yaml", readable)],
            loader: ProjectLoader(handlers: testHandlers))
        #expect(!escaped.declaresSecret("token"))
        #expect(escaped.parsed == ["b/texts.journey.yaml"])
        for (text, escapes) in [
            (#"a: "\n\"\t\d\\""#, false), (#"a: "\x41""#, true), (#"a: "\u0041""#, true), (#"a: "\U00000041""#, true),
            ("a: \"b\\\nc\"", true), ("a: \"b\\\r\nc\"", true), ("a: \"b\\\u{2028}c\"", true), ("a: b\\", false),
        ] {
            #expect(ProjectJourneyFiles.mayEscape(Data(text.utf8)) == escapes, "\(text)")
        }
    }

    @Test("only an ASCII letter other than K, a digit, `_`, `-` or `.` is plain: YAML can hold it only as its bytes")
    func plainKeys() {
        #expect(ProjectJourneyFiles.isPlain("incorrectPincodeCount_2.a-b"))
        for key in ["Key", "a key", "pin'", "é", "", "a\\b", "x;"] {
            #expect(!ProjectJourneyFiles.isPlain(key), "\(key)")
        }
    }

    @Test("no Unicode character compares equal in Swift to an ASCII character but K, ; and `")
    func asciiLookAlikes() {
        let ascii = Set((0..<128).map { String(UnicodeScalar(UInt8($0))) })
        var equal: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if ascii.contains(String(scalar)) { equal.append(value) }
        }
        #expect(equal == [0x037E, 0x1FEF, 0x212A], "\(equal.map { String($0, radix: 16) })")
    }

    @Test(
        "a file's `journey:` line is found in its bytes, as text: comments, quotes, CRLF, spaces, only the first 64 KiB"
    )
    func declaredKey() {
        let long = String(repeating: "# filler line\n", count: 5000)
        let cases: [(text: String, journey: String?, isJourney: Bool)] = [
            ("journey: a.b\nsteps: {}\n", "a.b", true),
            ("# comment\r\njourney: \"a.b\" # note\r\n", "a.b", true),
            ("\u{FEFF}journey: a.b\n", nil, false),
            // A combining mark after the colon makes another character: the next line counts.
            ("journey:\u{301} a.b\njourney: a.c\n", "a.c", true),
            ("scenario: s\njourney: a.b\n", "a.b", false),
            ("title: x\n  journey: a.b\n", nil, false),
            (long + "journey: a.b\n", nil, false),
            ("journey: 'a.b'\t \n", "a.b", true),
            ("journey:\u{3000}a.b\u{3000}\n", "a.b", true),
            ("x: 1\nscenario: s\n", nil, false),
            ("", nil, false),
        ]
        for (text, journey, isJourney) in cases {
            let data = Data(text.utf8)
            #expect(ProjectLoader.declaredKey("journey", in: data) == journey, "\(text.prefix(40))")
            #expect(ProjectLoader.looksLikeJourney(data) == isJourney, "\(text.prefix(40))")
        }
    }

    @Test("the byte search finds exactly what a plain search finds, at every alignment")
    func byteSearch() {
        var generator = SystemRandomNumberGenerator()
        func naive(_ needle: [UInt8], _ bytes: [UInt8]) -> Int? {
            guard bytes.count >= needle.count else { return nil }
            return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
        }
        for _ in 0..<3000 {
            // Few distinct bytes, so that near misses and borrows across bytes are common.
            let alphabet: [UInt8] = [0, 1, 0x5C, 0x73, 0x74, 0xFF, 0x80]
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let needle = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let found = bytes.withUnsafeBytes { ByteSearch.firstIndex(of: needle, in: $0) }
            #expect(found == naive(needle, bytes), "\(needle) in \(bytes)")
        }
        #expect(ByteSearch.contains(Array("secret".utf8), in: Data("a: { secret: true }".utf8)))
        #expect(!ByteSearch.contains(Array("secret".utf8), in: Data("a: { secre t: true }".utf8)))
    }
}
