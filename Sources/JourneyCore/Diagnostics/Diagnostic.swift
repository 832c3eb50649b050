/// A position in a source file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// This location moved `offset` columns to the right on the same line.
    public func advanced(by offset: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column + offset)
    }

    public var description: String { "\(file):\(line):\(column)" }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}

/// One problem found in a journey or scenario file.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable {
        case error, warning, note
    }

    public var severity: Severity
    /// A stable identifier such as `step.unknown`; tests and docs refer to it.
    public var id: String
    /// One line: text quoted from the input is escaped (see ``PrintableText``).
    public var message: String
    public var location: SourceLocation

    public init(_ severity: Severity, _ id: String, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.id = id
        self.message = PrintableText.escaped(message)
        self.location = location
    }

    /// `path:line:column: error: message [id]`, the form editors and CI annotate.
    public var description: String {
        "\(PrintableText.escaped(location.description)): \(severity.rawValue): \(message) [\(id)]"
    }
}

/// Collects diagnostics; the library never prints, the CLI does.
///
/// At most ``perFileLimit`` diagnostics are kept for one file: a file with thousands of
/// problems (a generated file, the wrong file) is reported by its first ones and a count of
/// the rest, so that checking it stays fast and its report stays readable.
public struct DiagnosticList: Sendable {
    public private(set) var items: [Diagnostic] = []
    /// Diagnostics kept, by file.
    private var kept: [String: Int] = [:]
    /// Diagnostics left out because their file had reached the limit, by file.
    private var omitted: [String: (errors: Int, warnings: Int)] = [:]

    /// The diagnostics kept for one file.
    public static let perFileLimit = 100
    static let limitId = "diagnostics.limit"

    public init() {}

    public mutating func error(_ id: String, _ message: String, at location: SourceLocation) {
        append(Diagnostic(.error, id, message, at: location))
    }

    public mutating func warning(_ id: String, _ message: String, at location: SourceLocation) {
        append(Diagnostic(.warning, id, message, at: location))
    }

    /// Whether another diagnostic for `file` would still be kept. Lets a caller skip building
    /// messages that would be left out.
    public func accepts(file: String) -> Bool { kept[file, default: 0] < Self.perFileLimit }

    public mutating func append(_ diagnostic: Diagnostic) {
        let file = diagnostic.location.file
        if kept[file, default: 0] < Self.perFileLimit {
            kept[file, default: 0] += 1
            items.append(diagnostic)
            return
        }
        var count = omitted[file] ?? (0, 0)
        switch diagnostic.severity {
        case .error: count.errors += 1
        case .warning: count.warnings += 1
        case .note: break
        }
        omitted[file] = count
    }

    public mutating func append(contentsOf other: [Diagnostic]) {
        for diagnostic in other { append(diagnostic) }
    }

    /// Adds another list's diagnostics, and its count of those it left out.
    public mutating func append(contentsOf other: DiagnosticList) {
        append(contentsOf: other.items)
        for (file, count) in other.omitted {
            var mine = omitted[file] ?? (0, 0)
            mine.errors += count.errors
            mine.warnings += count.warnings
            omitted[file] = mine
        }
    }

    public var hasErrors: Bool {
        items.contains { $0.severity == .error } || omitted.values.contains { $0.errors > 0 }
    }

    /// Every error, the ones left out included.
    public var errorCount: Int {
        items.count { $0.severity == .error } + omitted.values.reduce(0) { $0 + $1.errors }
    }

    /// Every warning, the ones left out included.
    public var warningCount: Int {
        items.count { $0.severity == .warning } + omitted.values.reduce(0) { $0 + $1.warnings }
    }

    /// Every warning made an error (those left out included), as `journey check --strict`
    /// holds them: printed as `error:` and counted as errors.
    public var warningsAsErrors: DiagnosticList {
        var result = self
        result.items = items.map { diagnostic in
            var diagnostic = diagnostic
            if diagnostic.severity == .warning { diagnostic.severity = .error }
            return diagnostic
        }
        result.omitted = omitted.mapValues { (errors: $0.errors + $0.warnings, warnings: 0) }
        return result
    }

    /// The errors only: what `run`, `test` and `docs` print (warnings are `journey check`'s
    /// business), with the count of errors left out.
    public var errors: DiagnosticList {
        var result = DiagnosticList()
        result.items = items.filter { $0.severity == .error }
        result.kept = kept
        result.omitted = omitted.filter { $0.value.errors > 0 }.mapValues { ($0.errors, 0) }
        return result
    }

    /// What `run`, `test`, `explore` and `docs` print: the errors, and the warnings about the
    /// paths they were given (``pathWarnings``: a folder with nothing to read, which a run
    /// would otherwise pass in silence).
    public var shownWhenRunning: DiagnosticList {
        var result = errors
        result.items += items.filter { $0.severity == .warning && Self.pathWarnings.contains($0.id) }
        return result
    }

    /// The ids of the warnings about the paths a command was given: a folder with nothing to
    /// read, a YAML name that is no regular file (a FIFO, a device) and was skipped.
    private static let pathWarnings: Set<String> = ["files.none", "file.special"]

    /// Diagnostics in file order, de-duplicated, so output is deterministic; a file that had
    /// more than ``perFileLimit`` ends with a note counting the ones left out.
    public var sorted: [Diagnostic] {
        var seen = Set<Diagnostic>()
        let ordered = items.filter { seen.insert($0).inserted }
            // Notes last: they say more of the problems above (a journey that did not load
            // is noted at its callers after its own errors), and read best after them.
            .sorted {
                ($0.severity == .note ? 1 : 0, $0.location, $0.id, $0.message)
                    < ($1.severity == .note ? 1 : 0, $1.location, $1.id, $1.message)
            }
        guard !omitted.isEmpty else { return ordered }
        var result: [Diagnostic] = []
        var noted: Set<String> = []
        for (index, diagnostic) in ordered.enumerated() {
            result.append(diagnostic)
            let file = diagnostic.location.file
            let lastOfFile = index + 1 == ordered.count || ordered[index + 1].location.file != file
            if lastOfFile, let count = omitted[file], noted.insert(file).inserted {
                result.append(Self.omissionNote(count, at: diagnostic.location))
            }
        }
        return result
    }

    static func omissionNote(_ count: (errors: Int, warnings: Int), at location: SourceLocation) -> Diagnostic {
        var parts: [String] = []
        if count.errors > 0 { parts.append("\(count.errors) more error\(count.errors == 1 ? "" : "s")") }
        if count.warnings > 0 { parts.append("\(count.warnings) more warning\(count.warnings == 1 ? "" : "s")") }
        if parts.isEmpty { parts.append("more notes") }
        return Diagnostic(
            .note, limitId,
            "and \(parts.joined(separator: " and ")) in this file, not shown; only the first \(perFileLimit) of a file are reported",
            at: location)
    }
}

/// Edit distance suggestions for "did you mean" hints.
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a likely typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        var best: (String, Int)?
        let limit = max(2, word.count / 3)
        for candidate in candidates {
            let d = distance(word.lowercased(), candidate.lowercased())
            if d <= limit, best == nil || d < best!.1 || (d == best!.1 && candidate < best!.0) {
                best = (candidate, d)
            }
        }
        return best?.0
    }

    /// `; did you mean 'x'?` or an empty string.
    public static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// Loading stopped because of the diagnostics it carries (at least one is an error).
public struct DiagnosticFailure: Error, Sendable {
    public var diagnostics: DiagnosticList
    public init(_ diagnostics: DiagnosticList) { self.diagnostics = diagnostics }
}
