/// A line diff between two texts (a golden text transcript and a rendering, two renderings),
/// rendered as a unified diff.
public struct TextDiff: Sendable {
    public let expected: [Substring]
    public let actual: [Substring]
    /// Edit script: for each line, whether it is kept, removed (expected only) or added (actual only).
    let edits: [Edit]

    enum Edit: Equatable {
        case keep(Int, Int)
        case remove(Int)
        case add(Int)
    }

    public init(expected: String, actual: String) {
        self.init(expected: expected.lines, actual: actual.lines)
    }

    init(expected: [Substring], actual: [Substring]) {
        self.expected = expected
        self.actual = actual
        self.edits = Self.diff(expected, actual)
    }

    /// Lines with an edit script made elsewhere (``TranscriptDiff`` aligns events, then lines).
    init(expected: [Substring], actual: [Substring], edits: [Edit]) {
        self.expected = expected
        self.actual = actual
        self.edits = edits
    }

    public var isEmpty: Bool { edits.allSatisfy { if case .keep = $0 { true } else { false } } }

    /// The 1-based line of the expected text where the first difference is.
    public var firstDifferenceLine: Int? {
        for edit in edits {
            switch edit {
            case .keep: continue
            case .remove(let i): return i + 1
            case .add:
                // An insertion before expected line i+1: the line after the last kept one.
                var line = 0
                for e in edits {
                    if case .keep(let i, _) = e { line = i + 1 }
                    if e == edit { break }
                }
                return line + 1
            }
        }
        return nil
    }

    /// A unified diff with `context` lines around each change.
    public func unified(context: Int = 3, expectedName: String = "expected", actualName: String = "actual") -> String {
        guard !isEmpty else { return "" }
        var out = "--- \(expectedName)\n+++ \(actualName)\n"
        // Group edits into hunks.
        let changeIndices = edits.indices.filter { if case .keep = edits[$0] { false } else { true } }
        var hunks: [ClosedRange<Int>] = []
        for index in changeIndices {
            let range = max(0, index - context)...min(edits.count - 1, index + context)
            if let last = hunks.last, range.lowerBound <= last.upperBound + 1 {
                hunks[hunks.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                hunks.append(range)
            }
        }
        for hunk in hunks {
            var oldStart = 0, newStart = 0, oldCount = 0, newCount = 0
            var body = ""
            var positioned = false
            for i in hunk {
                switch edits[i] {
                case .keep(let a, let b):
                    if !positioned { oldStart = a; newStart = b; positioned = true }
                    oldCount += 1
                    newCount += 1
                    body += " \(expected[a])\n"
                case .remove(let a):
                    if !positioned { oldStart = a; newStart = Self.newPosition(before: i, edits); positioned = true }
                    oldCount += 1
                    body += "-\(expected[a])\n"
                case .add(let b):
                    if !positioned { newStart = b; oldStart = Self.oldPosition(before: i, edits); positioned = true }
                    newCount += 1
                    body += "+\(actual[b])\n"
                }
            }
            out += "@@ -\(oldStart + 1),\(oldCount) +\(newStart + 1),\(newCount) @@\n" + body
        }
        return out
    }

    static func newPosition(before index: Int, _ edits: [Edit]) -> Int {
        for e in edits[..<index].reversed() {
            switch e {
            case .keep(_, let b), .add(let b): return b + 1
            case .remove: continue
            }
        }
        return 0
    }

    static func oldPosition(before index: Int, _ edits: [Edit]) -> Int {
        for e in edits[..<index].reversed() {
            switch e {
            case .keep(let a, _), .remove(let a): return a + 1
            case .add: continue
            }
        }
        return 0
    }

    /// Longest-common-subsequence diff after trimming the common prefix and suffix. Inputs
    /// whose differing middles are too large for the table fall back to "replace the middle".
    static func diff<Element: Equatable>(_ a: [Element], _ b: [Element]) -> [Edit] {
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
            && a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
        {
            suffix += 1
        }
        var edits = (0..<prefix).map { Edit.keep($0, $0) }
        let aMid = Array(a[prefix..<(a.count - suffix)]), bMid = Array(b[prefix..<(b.count - suffix)])
        let n = aMid.count, m = bMid.count
        if n * m > 16_000_000 {
            edits += (0..<n).map { .remove(prefix + $0) } + (0..<m).map { .add(prefix + $0) }
        } else if n > 0 || m > 0 {
            var table = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    table[i][j] = aMid[i] == bMid[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
                }
            }
            var i = 0, j = 0
            while i < n || j < m {
                if i < n && j < m && aMid[i] == bMid[j] {
                    edits.append(.keep(prefix + i, prefix + j))
                    i += 1
                    j += 1
                } else if i < n && (j == m || table[i + 1][j] >= table[i][j + 1]) {
                    edits.append(.remove(prefix + i))
                    i += 1
                } else {
                    edits.append(.add(prefix + j))
                    j += 1
                }
            }
        }
        edits += (0..<suffix).map { .keep(a.count - suffix + $0, b.count - suffix + $0) }
        return edits
    }
}
