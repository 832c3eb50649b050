import Testing

@testable import JourneyDocs

/// How `journey docs` judges its output folder: what is stale, what it may remove, and what
/// it must not touch.
@Suite("Docs site and its folder")
struct DocsSiteTests {
    static let mark = GeneratedMark.line(forExtension: "md")!

    static func page(_ body: String) -> String { "\(mark)\n\n\(body)\n" }

    @Test func changedObsoleteAndForeignPagesAreTold() {
        let site = ["a.md": Self.page("A"), "b.md": Self.page("B"), "new.md": Self.page("N")]
        let folder = [
            "a.md": Self.page("A"),  // up to date
            "b.md": Self.page("old B"),  // changed
            "gone.md": Self.page("G"),  // generated, no longer in the site
            "notes.md": "# Our notes\n",  // the user's: stays
            "mine.dot": "digraph mine {}\n",  // another format
        ]
        let comparison = DocsSite.compare(site, format: .md, existing: folder)
        #expect(comparison.changed == ["b.md", "new.md"])
        #expect(comparison.obsolete == ["gone.md"])
        #expect(comparison.foreign.isEmpty)
    }

    @Test func aHandWrittenFileWithAPagesNameIsForeign() {
        let site = ["index.md": Self.page("index"), "t.md": Self.page("T")]
        let comparison = DocsSite.compare(
            site, format: .md, existing: ["index.md": "# Hand-written, mentions `journey docs`\n"])
        #expect(comparison.foreign == ["index.md"])
    }

    /// What the site writes is recognised as its own, so a later run may replace it.
    @Test func everyFormatsIndexCarriesTheMark() throws {
        for format in DocsFormat.allCases {
            let files = DocsSite.files([], format: format) { _ in "<svg/>" }
            #expect(files.keys.sorted() == ["index.\(format.rawValue)"])
            #expect(GeneratedMark.isGenerated(files["index.\(format.rawValue)"]!, extension: format.rawValue))
            #expect(
                DocsSite.compare(files, format: format, existing: files)
                    == .init(changed: [], obsolete: [], foreign: []))
        }
    }
}
