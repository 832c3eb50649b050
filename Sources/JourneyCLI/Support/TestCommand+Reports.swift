import JourneyCore
import JourneySuite

extension TestCommand {
    /// Writes the reports asked for, each by the rules of ``OutputFile`` (a file atomically,
    /// through a link, a device directly) with its folder made if needed; false when one could
    /// not be written, which has been said on standard error in one line.
    ///
    /// - Parameters:
    ///   - failed: paths that could not be written before in this run: not tried again (their
    ///     error has been said); paths that fail now are added.
    ///   - held: the reports opened before the run that go straight to a device, a FIFO or a
    ///     socket (``writeRunningReports(_:console:)``): written here, once.
    func writeReports(
        _ report: SuiteReport, console: Console, failed: inout Set<String>, held: [String: OutputFile] = [:]
    ) -> Bool {
        var written = failed.isEmpty
        let reports = renderedReports(report)
        for (path, text, content) in reports {
            guard let path, !failed.contains(path) else { continue }
            do {
                let file = try held[path] ?? OutputFile(path: path, content: content, makingFolders: true)
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

    /// Writes the reports asked for, marked as running, before anything runs; or, when one of
    /// them cannot be opened (a folder, a path under a file) or written (a full disk), puts none
    /// in place and says why on standard error, one line each: the suite is not played for a
    /// result with nowhere to go, and a report the user had is not replaced by the mark of a run
    /// that did not happen.
    ///
    /// Each report is staged in full first; those written straight to a device go next, as they
    /// cannot be held back; the files are renamed into place only once every report has been
    /// written. One that goes to a stream (``OutputFile/isStream``: `--json /dev/stdout` into a
    /// pipe, `--junit >(…)`, a FIFO) gets no mark: its reader takes one document, so it is opened
    /// now, to be written once when the run ends (``writeReports(_:console:failed:held:)``).
    ///
    /// - Returns: the reports held for the end, by path; nil when a report could not be written.
    func writeRunningReports(_ report: SuiteReport, console: Console) -> [String: OutputFile]? {
        let reports = renderedReports(report)
        var opened: [(OutputFile, String)] = []
        var refused = false
        for (path, text, content) in reports {
            guard let path else { continue }
            do {
                opened.append((try OutputFile(path: path, content: content, makingFolders: true), text))
            } catch {
                console.err("error: \(error)\n")
                refused = true
            }
        }
        // An output not committed is let go: an atomic one's temporary is removed.
        guard !refused else { return nil }
        var held: [String: OutputFile] = [:]
        var files: [OutputFile] = []
        for (file, text) in opened {
            if file.isStream {
                held[file.path] = file
            } else {
                file.write(text)
                files.append(file)
            }
        }
        files.sort { !$0.isDirect && $1.isDirect }
        for file in files {
            do { try file.stage() } catch {
                console.err("error: \(error)\n")
                return nil
            }
        }
        var unwritable = false
        for file in files {
            do { try file.commit() } catch {
                console.err("error: \(error)\n")
                unwritable = true
            }
        }
        return unwritable ? nil : held
    }

    /// Each report asked for (its path, nil when not asked for), rendered, with what it is.
    private func renderedReports(_ report: SuiteReport) -> [(String?, String, String)] {
        [
            (junit, JUnitReport.render(report), "the JUnit report"),
            (json, JSONReport.render(report), "the JSON report"),
        ]
    }
}
