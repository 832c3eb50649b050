import JourneyCore
import JourneyHandlers

extension TestCommand {
    /// Writes the reports asked for, each by the rules of ``OutputFile`` (a file atomically,
    /// through a link, a device directly) with its folder made if needed; false when one could
    /// not be written, which has been said on standard error in one line.
    func writeReports(junit junitText: String, json jsonText: String, console: Console) -> Bool {
        var written = true
        for (path, text, content) in [(junit, junitText, "the JUnit report"), (json, jsonText, "the JSON report")] {
            guard let path else { continue }
            do {
                do throws(WriteError) { try Files.makeFolders(Path.parent(path)) } catch {
                    throw CLIError("cannot write \(content) to \(path): \(error.reason)")
                }
                let file = try OutputFile(path: path, content: content)
                file.write(text)
                try file.commit()
            } catch {
                console.err("error: \(error)\n")
                written = false
            }
        }
        return written
    }
}
