import Foundation
import JourneyCore
import JourneyHandlers

/// Golden transcripts in files: `transcripts/NAME.txt` and `.jsonl` beside the scenarios folder.
/// The two are written as one ``FileTransaction``, so a killed `journey test --update` leaves
/// them both old, both new, or with a journal that the next update finishes and that a plain
/// `journey test` reports.
struct FileGoldenStore: GoldenStore {
    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) {
        let base = Workspace.goldenBase(for: scenario.file)
        return (
            try? String(contentsOfFile: base + ".txt", encoding: .utf8),
            try? String(contentsOfFile: base + ".jsonl", encoding: .utf8)
        )
    }

    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {
        let base = Workspace.goldenBase(for: scenario.file)
        let folder = Path.parent(base)
        let name = Path.lastComponent(base)
        try Files.makeFolders(folder)
        var pair = try FileTransaction(folder: folder, label: name)
        try pair.stage(text, as: name + ".txt")
        try pair.stage(jsonl, as: name + ".jsonl")
        try pair.commit()
    }

    func name(for scenario: CompiledScenario) -> String {
        Workspace.display(Workspace.goldenBase(for: scenario.file))
    }

    func isHalfUpdated(for scenario: CompiledScenario) -> Bool {
        let base = Workspace.goldenBase(for: scenario.file)
        return FileTransaction.isUnfinished(folder: Path.parent(base), label: Path.lastComponent(base))
    }
}
