import JourneyCore
import JourneySuite

extension TestCommand {
    /// Writes the reports asked for, each by the rules of ``OutputFile`` (a file atomically,
    /// through a link, a device directly) with its folder made if needed; false when one could
    /// not be written, which has been said on standard error in one line.
    ///
    /// - Parameter failed: paths that could not be written before in this run: not tried again
    ///   (their error has been said); paths that fail now are added.
    func writeReports(_ report: SuiteReport, console: Console, failed: inout Set<String>) -> Bool {
        var written = failed.isEmpty
        let reports = [
            (junit, JUnitReport.render(report), "the JUnit report"),
            (json, JSONReport.render(report), "the JSON report"),
        ]
        for (path, text, content) in reports {
            guard let path, !failed.contains(path) else { continue }
            do {
                let file = try OutputFile(path: path, content: content, makingFolders: true)
                file.write(text)
                try file.commit()
            } catch {
                console.err("error: \(error)\n")
                failed.insert(path)
                written = false
            }
        }
        return written
    }
}
