import Foundation
import Testing

/// The shape of the code, read from the sources: which target imports which, and which of
/// JourneyCore's folders use which. Targets form the graph below and nothing else; the
/// folders form no cycle, so each can be read, tested and changed with only those below it.
@Suite("Architecture: the target graph, and no cycle between JourneyCore's folders")
struct ArchitectureTests {
    /// Each target and the JourneyKit targets it may import: exactly these.
    static let targetGraph: [String: Set<String>] = [
        "JourneyCore": [],
        "JourneyHandlers": ["JourneyCore"],
        "JourneySuite": ["JourneyCore"],
        "JourneyDocs": ["JourneyCore"],
        "JourneyCLI": ["JourneyCore", "JourneyHandlers", "JourneySuite", "JourneyDocs"],
        "journey": ["JourneyCLI"],
    ]

    static let sources = Paths.root.appendingPathComponent("Sources")

    /// The JourneyKit modules the Swift files under `folder` import.
    static func imports(under folder: URL) throws -> Set<String> {
        let ours = Set(targetGraph.keys)
        var found: Set<String> = []
        let regex = try Regex(#"^\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?(\w+)"#)
        for file in files(under: folder, endingWith: ".swift") {
            for (_, line) in SourceRulesTests.code(of: try String(contentsOf: file, encoding: .utf8)) {
                if let match = line.firstMatch(of: regex), let name = match.output[1].substring.map(String.init),
                    ours.contains(name)
                {
                    found.insert(name)
                }
            }
        }
        return found
    }

    @Test("every target imports exactly the JourneyKit targets the graph gives it")
    func targetGraphHolds() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            !$0.hasPrefix(".")
        }
        #expect(Set(targets) == Set(Self.targetGraph.keys), "a target was added or removed: update the graph")
        for (target, allowed) in Self.targetGraph.sorted(by: { $0.key < $1.key }) {
            let imported = try Self.imports(under: Self.sources.appendingPathComponent(target))
            #expect(
                imported == allowed, "\(target) imports \(imported.sorted()), the graph gives it \(allowed.sorted())")
        }
    }

    /// A type one folder uses from another: the edge `from → to`, with an example.
    struct Use: Sendable, CustomStringConvertible {
        var from: String
        var to: String
        var name: String
        var file: String
        var description: String { "\(from) → \(to) (\(name) in \(file))" }
    }

    /// The folders of a target, each with the types it declares at the top level, and every
    /// use of one folder's types in another's code (comments and string literals aside).
    static func folderUses(of target: String) throws -> (declared: [String: Set<String>], uses: [Use]) {
        let root = sources.appendingPathComponent(target)
        var declared: [String: Set<String>] = [:]
        var code: [(folder: String, file: String, text: String)] = []
        let declaration = try Regex(
            #"^(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|@\w+)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)"#
        )
        for file in files(under: root, endingWith: ".swift") {
            let relative = String(file.path.dropFirst(root.path.count + 1))
            let folder = relative.split(separator: "/").first.map(String.init) ?? relative
            var lines: [String] = []
            var inMultilineString = false
            for (_, line) in SourceRulesTests.code(of: try String(contentsOf: file, encoding: .utf8)) {
                // The lines of a multi-line string literal are text, not code.
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 {
                    inMultilineString.toggle()
                    continue
                }
                if inMultilineString { continue }
                let text = Self.withoutStrings(line)
                if let match = text.firstMatch(of: declaration), let name = match.output[1].substring {
                    declared[folder, default: []].insert(String(name))
                }
                lines.append(text)
            }
            code.append((folder, relative, lines.joined(separator: "\n")))
        }
        var owner: [String: String] = [:]
        for (folder, names) in declared { for name in names { owner[name] = folder } }
        let word = try Regex(#"\b[A-Z][A-Za-z0-9_]*\b"#)
        var uses: [Use] = []
        var seen: Set<String> = []
        for (folder, file, text) in code {
            for match in text.matches(of: word) {
                let name = String(text[match.range])
                guard let to = owner[name], to != folder, seen.insert("\(folder)→\(to)").inserted else { continue }
                uses.append(Use(from: folder, to: to, name: name, file: file))
            }
        }
        return (declared, uses)
    }

    /// A line with its string literals emptied, so that words in messages are not uses.
    static func withoutStrings(_ line: String) -> String {
        var result = ""
        var inString = false
        var escaped = false
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    result.append(character)
                }
                continue
            }
            if character == "\"" { inString = true }
            result.append(character)
        }
        return result
    }

    /// A cycle in the graph, as the folders along it, if there is one.
    static func cycle(in uses: [Use]) -> [Use]? {
        var edges: [String: [Use]] = [:]
        for use in uses { edges[use.from, default: []].append(use) }
        var state: [String: Int] = [:]  // 1: on the current path, 2: done
        var path: [Use] = []
        func visit(_ node: String) -> [Use]? {
            state[node] = 1
            for use in edges[node] ?? [] {
                path.append(use)
                if state[use.to] == 1 {
                    let start = path.firstIndex { $0.from == use.to } ?? 0
                    return Array(path[start...])
                }
                if state[use.to] == nil, let found = visit(use.to) { return found }
                path.removeLast()
            }
            state[node] = 2
            return nil
        }
        for node in edges.keys.sorted() where state[node] == nil {
            if let found = visit(node) { return found }
        }
        return nil
    }

    @Test("the cycle finder finds a cycle and names its uses; a layered graph has none")
    func cycleFinderWorks() {
        func use(_ from: String, _ to: String) -> Use {
            Use(from: from, to: to, name: "T\(to)", file: "\(from)/x.swift")
        }
        let found = Self.cycle(in: [use("A", "B"), use("B", "C"), use("C", "A"), use("C", "D")])
        #expect(found?.map(\.from) == ["A", "B", "C"])
        #expect(Self.cycle(in: [use("A", "B"), use("B", "C"), use("A", "C")]) == nil)
        #expect(Self.withoutStrings(#"let x = "Journey \"quoted\" text" + Other"#) == #"let x = "" + Other"#)
    }

    @Test("JourneyCore's folders use each other without a cycle; each top-level type lives in one folder")
    func coreFoldersAreLayered() throws {
        let (declared, uses) = try Self.folderUses(of: "JourneyCore")
        #expect(declared.count >= 10, "found only \(declared.keys.sorted())")
        var homes: [String: [String]] = [:]
        for (folder, names) in declared { for name in names { homes[name, default: []].append(folder) } }
        let twice = homes.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.sorted())" }
        #expect(twice.isEmpty, "types declared in more than one folder: \(twice.sorted())")
        if let cycle = Self.cycle(in: uses) {
            Issue.record(
                "JourneyCore's folders form a cycle: \(cycle.map(\.description).joined(separator: ", ")); move the shared type to the folder below both (shared model types live in Model/)"
            )
        }
        // The pipeline sits above the stages it runs; the stages never reach back up to it.
        #expect(!uses.contains { $0.to == "Pipeline" }, "\(uses.filter { $0.to == "Pipeline" })")
    }
}
