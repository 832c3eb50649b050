import Foundation

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

    /// Whether what is written to standard output goes to standard error instead
    /// (``sendOutputToError()``).
    private var outputToError = false

    /// From now on, what is written to standard output goes to standard error: a report
    /// written to standard output itself (`journey test --json /dev/stdout`) then comes alone.
    func sendOutputToError() {
        lock.withLock { outputToError = true }
    }

    func write(_ text: String, to stream: Stream) {
        lock.withLock {
            let stream = stream == .output && outputToError ? .error : stream
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
