import Foundation
import JourneyCore
import JourneyHandlers

extension TestCommand {
    /// Writes the reports asked for (each atomically, its folder made if needed); false when
    /// one could not be written, which has been said on standard error.
    func writeReports(junit junitText: String, json jsonText: String, console: Console) -> Bool {
        var written = true
        for (path, text) in [(junit, junitText), (json, jsonText)] {
            guard let path else { continue }
            do {
                try FileManager.default.createDirectory(atPath: Path.parent(path), withIntermediateDirectories: true)
                try AtomicFile.write(text, to: path)
            } catch {
                console.err("error: \(error)\n")
                written = false
            }
        }
        return written
    }
}
