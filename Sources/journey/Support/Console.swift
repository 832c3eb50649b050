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

/// Standard output and standard error, written with `write(2)`. A failed write (`ENOSPC`,
/// `EPIPE`, `EBADF`…) is remembered, not trapped on: the stream takes no more writes, and
/// ``finish(_:)`` says what could not be written, on standard error if it can, and makes the
/// exit status 2.
final class StandardStreams: @unchecked Sendable {
    enum Stream: Int32 {
        case output = 1
        case error = 2
    }

    static let shared = StandardStreams()

    private let lock = NSLock()
    private var failures: [Stream: SystemError] = [:]
    private var outputFailureReported = false
    private var outputName = "the output"

    /// Names what standard output carries, for the message when it cannot be written: "the
    /// transcript", "the results".
    func describeOutput(as name: String) {
        lock.withLock { outputName = name }
    }

    func write(_ text: String, to stream: Stream) {
        lock.withLock {
            guard failures[stream] == nil else { return }
            do throws(SystemError) {
                try Descriptor(raw: stream.rawValue).write(text)
            } catch {
                failures[stream] = error
            }
        }
    }

    /// The message for a failed write to standard output, once: later calls and ``finish(_:)``
    /// no longer report it.
    func takeOutputFailure() -> String? {
        lock.withLock {
            guard let failure = failures[.output], !outputFailureReported else { return nil }
            outputFailureReported = true
            return "cannot write \(outputName) to standard output: \(failure)"
        }
    }

    /// The exit status for a command that ends with `status`: 2 when a stream could not be
    /// written, after saying so on standard error (when standard error itself still works).
    func finish(_ status: Int32) -> Int32 {
        if let message = takeOutputFailure() {
            write("error: \(message)\n", to: .error)
            return ExitStatus.invalid
        }
        return lock.withLock { failures.isEmpty } ? status : ExitStatus.invalid
    }
}

/// A command that says what it writes to standard output, for the message when it cannot.
protocol DescribesStandardOutput {
    /// Like "the transcript".
    static var standardOutput: String { get }
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
