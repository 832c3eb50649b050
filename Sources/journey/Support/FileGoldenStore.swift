import Foundation
import JourneyCore
import JourneyHandlers

/// Golden transcripts in files: `transcripts/NAME.txt` and `.jsonl` beside the scenarios folder.
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
        try FileManager.default.createDirectory(atPath: Path.parent(base), withIntermediateDirectories: true)
        try AtomicFile.write(text, to: base + ".txt")
        try AtomicFile.write(jsonl, to: base + ".jsonl")
    }

    func name(for scenario: CompiledScenario) -> String {
        Workspace.display(Workspace.goldenBase(for: scenario.file))
    }
}
