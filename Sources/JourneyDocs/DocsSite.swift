import JourneyCore

/// The formats `journey docs` writes.
public enum DocsFormat: String, CaseIterable, Sendable {
    /// Markdown with Mermaid diagrams, as GitHub renders it.
    case md
    /// An offline site with SVG diagrams.
    case html
    /// Graphviz sources.
    case dot
}

/// A documentation site as files: what `journey docs` writes to its output folder, and how
/// it tells its own files from others there. No file system and no processes: the caller
/// reads and writes the folder, and turns DOT into SVG for HTML.
public enum DocsSite {
    /// The name of the page that lists every journey, in each format: `index`. A journey's
    /// page is named by its id, so a journey whose id is `index` would take the index's place;
    /// ``pageTakingTheIndex(_:)`` finds it, and `journey docs` refuses it before anything is
    /// written.
    public static let indexName = "index"

    /// The journey whose page would be written over the index (its id is ``indexName``), if
    /// one is among `docs`.
    public static func pageTakingTheIndex(_ docs: [JourneyDoc]) -> JourneyDoc? {
        docs.first { $0.id == indexName }
    }

    /// File name → content: an index and a page per journey. A journey whose page would take
    /// the index's name (``pageTakingTheIndex(_:)``) has none: the index stays.
    ///
    /// - Parameters:
    ///   - link: how pages link to the journeys' and scenarios' files.
    ///   - svg: turns a DOT graph into SVG; used only for `html`.
    public static func files(
        _ docs: [JourneyDoc], format: DocsFormat, link: SourceLink = .init(), svg: (String) throws -> String
    ) rethrows -> [String: String] {
        var files: [String: String] = [:]
        let docs = docs.filter { $0.id != indexName }
        switch format {
        case .md:
            files["index.md"] = MarkdownRenderer.index(docs)
            for doc in docs { files["\(doc.id).md"] = MarkdownRenderer.page(doc, link: link) }
        case .dot:
            files["index.dot"] = HTMLRenderer.callGraphDot(docs)
            for doc in docs { files["\(doc.id).dot"] = DotRenderer.render(doc) }
        case .html:
            files["index.html"] = HTMLRenderer.index(docs, callGraphSVG: try svg(HTMLRenderer.callGraphDot(docs)))
            for doc in docs {
                files["\(doc.id).html"] = HTMLRenderer.page(doc, svg: try svg(DotRenderer.render(doc)), link: link)
            }
        }
        return files
    }

    /// How a folder stands against the site, each list sorted by name.
    public struct Comparison: Sendable, Equatable {
        /// Pages whose content is not what would be written, missing ones included.
        public var changed: [String]
        /// Generated pages of this format that the site no longer has: to be removed.
        public var obsolete: [String]
        /// Files with a page's name that `journey docs` did not write: never overwritten.
        public var foreign: [String]
    }

    /// Compares the site with a folder's files of its format (name → content).
    public static func compare(
        _ files: [String: String], format: DocsFormat, existing: [String: String]
    ) -> Comparison {
        func generated(_ content: String) -> Bool { GeneratedMark.isGenerated(content, extension: format.rawValue) }
        let changed = files.keys.filter { existing[$0] != files[$0] }.sorted()
        let obsolete = existing.filter { name, content in
            files[name] == nil && name.hasSuffix(".\(format.rawValue)") && generated(content)
        }.keys.sorted()
        let foreign = files.keys.filter { name in existing[name].map { !generated($0) } ?? false }.sorted()
        return Comparison(changed: changed, obsolete: obsolete, foreign: foreign)
    }
}

/// How a generated page links to a source file: the path from the folder the pages are written
/// to, wherever that folder is. Paths are plain strings (the docs never touch the file system):
/// relative ones are taken from `workingFolder`.
public struct SourceLink: Sendable {
    /// The folder the pages are written to, as given (relative to `workingFolder`, or absolute).
    public var pagesFolder: String
    /// The absolute path of the folder relative paths start from.
    public var workingFolder: String

    /// Pages in `docs/journeys` of the working folder, as the shipped docs are.
    public init(pagesFolder: String = "docs/journeys", workingFolder: String = "/") {
        self.pagesFolder = pagesFolder
        self.workingFolder = workingFolder
    }

    /// The link from the pages' folder to `file` (a path from the working folder, or absolute).
    public func callAsFunction(_ file: String) -> String {
        let from = PathText.absoluteComponents(pagesFolder, from: workingFolder)
        let to = PathText.absoluteComponents(file, from: workingFolder)
        var shared = 0
        while shared < from.count, shared < to.count - 1, from[shared] == to[shared] { shared += 1 }
        let up = Array(repeating: "..", count: from.count - shared)
        return (up + to[shared...]).joined(separator: "/")
    }
}
