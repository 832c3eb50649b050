import Foundation
import Testing

@testable import JourneyCore

@Suite("Safe YAML")
struct SafeYAMLTests {
    func parse(_ text: String, limits: SafeYAML.Limits = .init()) -> Result<YAMLNode, DiagnosticFailure> {
        SafeYAML(limits: limits).parse(Data(text.utf8), path: "t.yaml")
    }

    func problem(_ text: String, limits: SafeYAML.Limits = .init()) -> Diagnostic? {
        if case .failure(let f) = parse(text, limits: limits) { return f.diagnostics.items.first }
        return nil
    }

    func problem(bytes: [UInt8]) -> Diagnostic? {
        if case .failure(let f) = SafeYAML().parse(Data(bytes), path: "t.yaml") { return f.diagnostics.items.first }
        return nil
    }

    /// A stub's `json:` follows the core schema: numbers become JSON numbers from their own
    /// digits; what JSON cannot hold, and numbers with leading zeros, stay strings.
    @Test(arguments: [
        ("1.5", "1.5"), ("-0.25", "-0.25"), ("+1.", "1.0"), (".5", "0.5"), ("6.02e23", "6.02e23"),
        ("1E-3", "1e-3"), ("42", "42"), ("-7", "-7"), ("0", "0"), ("0.0", "0.0"),
        ("007.5", #""007.5""#), ("0012", #""0012""#), (".inf", #"".inf""#), (".nan", #"".nan""#),
        ("1.2.3", #""1.2.3""#), ("1e", #""1e""#), (".", #"".""#), ("-x", #""-x""#), ("'1.5'", #""1.5""#),
        ("true", "true"), ("null", "null"), ("~", "null"),
    ])
    func stubJSONNumbers(yaml: String, json: String) throws {
        let root = try parse("value: \(yaml)\n").get()
        #expect(JSONText.encode(root) == #"{"value":"# + json + "}")
    }

    /// An unquoted comma in `{ … }` splits text into an entry and a key with no value: reported
    /// at that key, naming the entry, and repeating neither part of the text (a PIN or a
    /// password may be written so).
    @Test(arguments: [
        ("t: { en: Hello, world }\n", 1, 17, "the text of 'en' was read as two", ["Hello", "world"]),
        ("s: { title: Sign in, please, next: Go }\n", 1, 22, "as in title: \"…, …\"", ["Sign in", "please"]),
        ("a:\n  b: { x: 1, y: Go, now}\n", 2, 21, "the text of 'y'", ["Go", "now"]),
        ("- { at: enterPin, pin: 98, 76 }\n", 1, 28, "the text of 'pin'", ["98", "76"]),
        ("stored: { pin: S3CRET, 9876 }\n", 1, 24, "the text of 'pin'", ["S3CRET", "9876"]),
    ])
    func unquotedCommaInAFlowMapping(yaml: String, line: Int, column: Int, hint: String, unsaid: [String]) throws {
        let found = try #require(problem(yaml))
        #expect(found.id == "yaml.flow-comma")
        #expect(found.location == SourceLocation(file: "t.yaml", line: line, column: column))
        #expect(found.message.contains(hint), "\(found.message)")
        for text in unsaid { #expect(!found.message.contains(text), "\(found.message)") }
    }

    /// What is not a comma's doing: a key written with its colon, a block mapping's empty
    /// value, quoted text, a first entry without a value.
    @Test(arguments: [
        "t: { en: \"Hello, world\" }\n", "t: { en: Hello, world: }\n", "t: { en: Hello, world: x }\n",
        "a: Hello\nb:\n", "t: { x, en: y }\n", "t: { en: '', world }\n", "t: [Hello, world]\n",
    ])
    func notAnUnquotedComma(yaml: String) throws {
        #expect(problem(yaml) == nil)
    }

    /// libyaml's messages for the slips of a hand-written file, said where they are put right:
    /// a quote left open, a key out of line with its mapping, a key without its colon, a line
    /// indented under a key that has its value, a value holding ': '.
    @Test(arguments: [
        (
            "journey: a\ntitle: \"Sign in\nstart: b\nsummary: \"Two\"\n", 2, 8,
            "the text quoted here is not closed on its line, so the lines after it are read as part of it; end it with \""
        ),
        ("journey: a\ntitle: 'Sign in\n", 2, 8, "the text quoted here is never closed: end it with ' on its line"),
        (
            "steps:\n  welcome:\n    handler: ui.screen\n   screen: {}\n", 4, 4,
            "line 4 starts at column 4, but the keys of the mapping that begins at line 2 start at column 3: indent it as the keys it belongs with"
        ),
        (
            "limits:\n  pinEntry\n    max: 3\n", 2, 11,
            "line 2 has no ':' after 'pinEntry', so it is read as text with this line: write 'pinEntry:'"
        ),
        (
            "limits:\n  pinEntry:\n    max: 3\n      keep: true\n", 4, 7,
            "line 4 is indented deeper than line 3, whose key already has its value: line it up with that key (column 5), or give the key no value on its line"
        ),
        (
            "title: Note: read this\n", 1, 12,
            "this value holds ': ', which reads as another key: write the value in quotes"
        ),
    ])
    func syntaxSlipsAreExplained(text: String, line: Int, column: Int, message: String) throws {
        let found = try #require(problem(text))
        #expect(found.id == SafeYAML.syntax)
        #expect(found.message.hasPrefix(message + " (YAML: "), "\(found.message)")
        #expect((found.location.line, found.location.column) == (line, column), "\(found.location)")
    }

    /// Quotes closed on their lines, `''` and `\"` inside them, quotes inside plain text and
    /// comments: none is an open quote.
    @Test func closedQuotesAreNotOpenOnes() {
        let text = """
            a: "one \\" two"
            b: 'it''s'
            c: don't
            d: [ "x", 'y' ]
            e: x # "not a value
            f: "open
            """
        let lines = text.lines
        #expect(SafeYAML.unclosedQuote(in: lines, from: 1, before: 6)?.line == nil)
        #expect(SafeYAML.unclosedQuote(in: lines, from: 1, before: 7).map { [$0.line, $0.column] } == [6, 4])
    }

    @Test func scalarsKeepTheirTextAndStyle() throws {
        let root = try parse("pin: 0012\nquoted: '0012'\nflag: no\n").get()
        guard case .mapping(let entries) = root.kind else { throw CancellationError() }
        #expect(entries.map(\.key) == ["pin", "quoted", "flag"])
        #expect(entries[0].value.kind == .scalar("0012", plain: true))
        #expect(entries[1].value.kind == .scalar("0012", plain: false))
        #expect(entries[2].value.kind == .scalar("no", plain: true))
        #expect(entries[2].value.location == SourceLocation(file: "t.yaml", line: 3, column: 7))
    }

    @Test(arguments: [
        ("a: &x 1\nb: *x\n", "yaml.alias", 1, 4),
        ("a: !!binary aGVsbG8=\n", "yaml.tag", 1, 4),
        ("a: !!str 0012\n", "yaml.tag", 1, 4),
        ("a: !secret \"x\"\n", "yaml.tag", 1, 4),
        ("a: 1\n---\nb: 2\n", "yaml.multiple-documents", 2, 1),
        ("a: 1\na: 2\n", "yaml.duplicate-key", 2, 1),
        ("a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n", "yaml.duplicate-key", 5, 3),
        ("a:\n\tb: 1\n", "yaml.tab", 2, 1),
        ("a: \"x\\0y\"\n", "yaml.control-character", 1, 4),
        ("a: \"x\\e[31my\"\n", "yaml.control-character", 1, 4),
        ("a: *nope\n", "yaml.alias", 1, 4),
        ("a: \"open\n", "yaml.syntax", 1, 4),
        ("", "yaml.empty", 1, 1),
        ("# only a comment\n\n", "yaml.empty", 1, 1),
    ])
    func badInputsAreLocated(text: String, id: String, line: Int, column: Int) {
        let diagnostic = problem(text)
        #expect(diagnostic?.id == id, "\(String(describing: diagnostic))")
        #expect(diagnostic?.location.line == line)
        #expect(diagnostic?.location.column == column)
    }

    @Test func mergeKeysAreRefusedEvenWithoutAnAnchor() {
        #expect(problem("a:\n  <<: {b: 1}\n")?.id == "yaml.alias")
    }

    /// The same reader reads journeys, scenarios and the project file: its words fit them all.
    @Test func anAnchorIsRefusedInWordsThatFitEveryFileItReads() {
        #expect(
            problem("journeys: &j [journeys]\n")?.message
                == "anchor '&j' (or an alias to it); anchors, aliases and merge keys are not allowed in JourneyKit's files (journeys, scenarios, the project file)"
        )
    }

    @Test func encodings() {
        #expect(
            problem(bytes: [0xFF, 0xFE] + Array("a: 1\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })?.id
                == "yaml.encoding")
        let invalid = problem(bytes: Array("a: b\nc: \"".utf8) + [0xC3, 0x28] + Array("\"\n".utf8))
        #expect(invalid?.id == "yaml.encoding")
        #expect(invalid?.location.line == 2)
        #expect(invalid?.location.column == 5)
        #expect(problem(bytes: Array("a: 1\nb: x".utf8) + [0x00])?.id == "yaml.control-character")
        // A UTF-8 byte order mark is fine.
        #expect(problem(bytes: [0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8)) == nil)
    }

    @Test func sizeDepthAndNodeCaps() {
        #expect(problem(String(repeating: "x", count: 2000), limits: .init(maxBytes: 1000))?.id == "yaml.too-large")
        #expect(problem("a: " + String(repeating: "[", count: 10_000))?.id == "yaml.too-deep")
        #expect(
            problem("a: " + String(repeating: "[", count: 70) + String(repeating: "]", count: 70))?.id
                == "yaml.too-deep")
        #expect(problem("a: " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60)) == nil)
        let wide = "a: [" + Array(repeating: "1", count: 500).joined(separator: ",") + "]\n"
        #expect(problem(wide, limits: .init(maxNodes: 100))?.id == "yaml.too-large")
        #expect(problem("a: " + String(repeating: "y", count: 70_000))?.id == "yaml.too-large")
    }

    @Test func billionLaughsIsRefusedQuickly() {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for i in 1..<10 {
            lines.append("a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 9).joined(separator: ", ") + "]")
        }
        #expect(problem(lines.joined(separator: "\n"))?.id == "yaml.alias")
    }
}
