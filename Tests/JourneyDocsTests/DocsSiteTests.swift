import Foundation
import JourneyCore
import JourneyHandlers
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

    @Test("a journey called index never replaces the index, in any format")
    func aJourneyCalledIndexIsFound() async throws {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(
            ["index", "other"].map { id in
                SourceFile(
                    path: "journeys/test/\(id).yaml",
                    data: Data(
                        """
                        journey: \(id)
                        version: 1
                        title: Journey \(id)
                        start: a
                        steps:
                          a: { handler: flow.decide, on: { next: done } }
                        ends:
                          done: { kind: success }
                        """.utf8))
            })
        let docs = DocsBuilder.build(journeys: project.journeys, recordings: [], locale: nil)
        #expect(docs.count == 2, "\(project.diagnostics.sorted)")
        #expect(DocsSite.pageTakingTheIndex(docs)?.id == "index")
        #expect(DocsSite.pageTakingTheIndex(docs.filter { $0.id != "index" }) == nil)
        for format in DocsFormat.allCases {
            let files = DocsSite.files(docs, format: format) { _ in "<svg/>" }
            #expect(files.keys.sorted() == ["index.\(format.rawValue)", "other.\(format.rawValue)"])
            #expect(!files["index.\(format.rawValue)"]!.contains("Journey index"), "the index stays the index")
        }
    }
}
