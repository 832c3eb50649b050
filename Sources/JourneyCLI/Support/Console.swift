import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Terminal output: colour and progress only when the stream is a terminal and `NO_COLOR`
/// is not set, plain text when piped.
struct Console {
    let colorOut: Bool
    let colorErr: Bool

    init() {
        let noColor = getenv("NO_COLOR") != nil
        colorOut = !noColor && isatty(STDOUT_FILENO) == 1
        colorErr = !noColor && isatty(STDERR_FILENO) == 1
    }

    var isInteractive: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes to standard output; a failure is reported when the command ends (see
    /// ``StandardStreams``).
    func out(_ text: String) {
        StandardStreams.shared.write(text, to: .output)
    }

    /// Writes to standard error; a failure makes the command exit 2.
    func err(_ text: String) {
        StandardStreams.shared.write(text, to: .error)
    }

    /// Throws the error of a failed write to standard output, if there was one, so the command
    /// can stop with it before saying anything else.
    func requireOutputWritten() throws {
        if let message = StandardStreams.shared.takeOutputFailure() { throw CLIError(message) }
    }

    enum Style: String {
        case red = "31", green = "32", yellow = "33", bold = "1", dim = "2"
    }

    func paint(_ text: String, _ style: Style, stderr: Bool = false) -> String {
        (stderr ? colorErr : colorOut) ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Prints diagnostics as `path:line:column: error: message [id]`, in file order.
    func print(_ diagnostics: DiagnosticList) {
        for diagnostic in diagnostics.sorted {
            let severity: String
            switch diagnostic.severity {
            case .error: severity = paint("error", .red, stderr: true)
            case .warning: severity = paint("warning", .yellow, stderr: true)
            case .note: severity = "note"
            }
            err("\(diagnostic.location): \(severity): \(diagnostic.message) [\(diagnostic.id)]\n")
        }
    }
}

/// Writes transcript records to an output as they happen, as text or JSON Lines.
final class TranscriptWriter: TranscriptSink {
    enum Format: String, CaseIterable {
        case text, jsonl
    }

    let format: Format
    private let emit: (String) -> Void
    private let text = TranscriptTextRenderer()
    private let json = JSONLinesEncoder()

    init(format: Format, emit: @escaping (String) -> Void) {
        self.format = format
        self.emit = emit
    }

    func record(_ record: TranscriptRecord) {
        emit(format == .text ? text.render(record) : json.encode(record))
    }
}

/// A line on standard error that says how far a long exploration has got, rewritten in place
/// at most five times a second, and only once the run has lasted half a second (a short one
/// shows nothing); ``clear()`` takes it away before the result is printed. For a terminal only.
final class ProgressLine: @unchecked Sendable {
    private let console: Console
    private let name: String
    private let lock = NSLock()
    private let started = ContinuousClock.now
    private var lastShown: ContinuousClock.Instant?
    private var shown = false

    init(console: Console, name: String) {
        self.console = console
        self.name = name
    }

    func show(_ progress: JourneyExplorer.Progress) {
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        guard now - started >= .milliseconds(500), lastShown.map({ now - $0 >= .milliseconds(200) }) ?? true else {
            return
        }
        lastShown = now
        shown = true
        console.err("\r\u{1B}[2K" + Self.text(name, progress))
    }

    /// Whether the line shows now.
    var hasShown: Bool { lock.withLock { shown } }

    /// Takes the line away, when one was shown.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        if shown { console.err("\r\u{1B}[2K") }
        shown = false
    }

    /// What the line says.
    static func text(_ name: String, _ progress: JourneyExplorer.Progress) -> String {
        guard let walks = progress.walks else {
            return
                "\(name): \(counted(progress.states, "state")), \(counted(progress.transitions, "transition")), depth \(progress.depth)…"
        }
        return
            "\(name): \(counted(walks, "random walk")), \(counted(progress.states, "state")) seen, \(counted(progress.transitions, "move")), the longest \(progress.depth)…"
    }
}
