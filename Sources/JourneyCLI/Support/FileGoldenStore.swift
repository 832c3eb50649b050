import Foundation
import JourneyCore
import JourneySuite

/// Golden transcripts in files: `transcripts/NAME.txt` and `.jsonl` beside the scenarios folder.
/// The two are written as one ``FileTransaction``, so a killed `journey test --update` leaves
/// them both old, both new, or with a journal that the next update finishes and that a plain
/// `journey test` reports.
struct FileGoldenStore: GoldenStore {
    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) {
        let base = Workspace.goldenBase(for: scenario.file)
        return (Self.read(base + ".txt"), Self.read(base + ".jsonl"))
    }

    /// A golden's text, or nil when there is none. Bytes that are not UTF-8 (a file cut in the
    /// middle of a character) read as U+FFFD, so the comparison shows where, instead of the
    /// golden seeming absent.
    static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {
        let base = Workspace.goldenBase(for: scenario.file)
        let folder = Path.parent(base)
        let name = Path.lastComponent(base)
        try Self.requireInsideProject(folder)
        try Files.makeFolders(folder)
        var pair = try FileTransaction(folder: folder, label: name)
        try pair.stage(text, as: name + ".txt")
        try pair.stage(jsonl, as: name + ".jsonl")
        try pair.commit()
    }

    /// An update is a writer in the folder of every pair it looks at: what a killed one left
    /// there is finished (or, unreadable, stops it) as before a pair is written, whether or not
    /// this one is. A folder outside the project is never written in, so never tidied either.
    func keep(for scenario: CompiledScenario) throws {
        let folder = Path.parent(Workspace.goldenBase(for: scenario.file))
        guard (try? Self.requireInsideProject(folder)) != nil else { return }
        try FolderRecovery.shared.prepare(folder)
    }

    func inPlace(of name: String) -> String? {
        guard Files.isFolder(name) else { return nil }
        return "a folder is there, where journey test --update writes the golden; move it away, then record the golden"
    }

    func name(for scenario: CompiledScenario) -> String {
        Workspace.display(Workspace.goldenBase(for: scenario.file))
    }

    /// Goldens are written only inside the project: the real path of the golden folder must be
    /// inside the real path of the folder that holds it (the one with `scenarios/`), so a
    /// `transcripts` link out of the project is never written through.
    static func requireInsideProject(_ folder: String) throws {
        let project = Path.parent(folder)
        guard Files.exists(folder), let realProject = Files.realPath(project) else { return }
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: folder)).map {
            "a symbolic link to \($0)"
        }
        let rule = "goldens are written only inside the project's folders"
        guard let realFolder = Files.realPath(folder) else {
            guard let link else { return }
            throw CLIError("\(Workspace.display(folder)) is \(link), which does not exist; \(rule)")
        }
        let inside = realProject == "/" || realFolder == realProject || realFolder.hasPrefix(realProject + "/")
        guard !inside else { return }
        let shown = link.map { $0 == "a symbolic link to \(realFolder)" ? $0 : "\($0) (\(realFolder))" } ?? realFolder
        throw CLIError("\(Workspace.display(folder)) is \(shown), outside \(Workspace.display(project)); \(rule)")
    }

    func isHalfUpdated(for scenario: CompiledScenario) -> Bool {
        let base = Workspace.goldenBase(for: scenario.file)
        return FileTransaction.isUnfinished(folder: Path.parent(base), label: Path.lastComponent(base))
    }
}
