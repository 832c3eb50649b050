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
    public var message: String
    public var location: SourceLocation

    public init(_ severity: Severity, _ id: String, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.id = id
        self.message = message
        self.location = location
    }

    /// `path:line:column: error: message [id]`, the form editors and CI annotate.
    public var description: String {
        "\(location): \(severity.rawValue): \(message) [\(id)]"
    }
}

/// Collects diagnostics; the library never prints, the CLI does.
public struct DiagnosticList: Sendable {
    public private(set) var items: [Diagnostic] = []

    public init() {}

    public mutating func error(_ id: String, _ message: String, at location: SourceLocation) {
        items.append(Diagnostic(.error, id, message, at: location))
    }

    public mutating func warning(_ id: String, _ message: String, at location: SourceLocation) {
        items.append(Diagnostic(.warning, id, message, at: location))
    }

    public mutating func append(_ diagnostic: Diagnostic) { items.append(diagnostic) }
    public mutating func append(contentsOf other: [Diagnostic]) { items.append(contentsOf: other) }

    public var hasErrors: Bool { items.contains { $0.severity == .error } }

    /// Diagnostics in file order, de-duplicated, so output is deterministic.
    public var sorted: [Diagnostic] {
        var seen = Set<Diagnostic>()
        return items.filter { seen.insert($0).inserted }
            .sorted { ($0.location, $0.id, $0.message) < ($1.location, $1.id, $1.message) }
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
