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

    func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func err(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
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
