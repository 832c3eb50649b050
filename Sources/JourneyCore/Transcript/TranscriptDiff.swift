/// How two transcripts differ, compared event by event: the first event that differs, the step
/// the journey was at there, and the difference shown in the readable text form.
///
/// Compare transcripts as JSON Lines keep them (both read back with ``JSONLinesDecoder``): then
/// a secret equals a secret and a duration its text, on both sides alike.
public struct TranscriptDiff: Sendable {
    public let expected: [TranscriptRecord]
    public let actual: [TranscriptRecord]
    /// Edit script over the events.
    let edits: [TextDiff.Edit]

    public init(expected: [TranscriptRecord], actual: [TranscriptRecord]) {
        self.expected = expected
        self.actual = actual
        self.edits = TextDiff.diff(expected, actual)
    }

    public var isEmpty: Bool { firstDifference == nil }

    /// The 0-based index of the first event that differs, in both transcripts (they agree
    /// before it); in JSON Lines, its line is one more.
    public var firstDifference: Int? {
        for (index, edit) in edits.enumerated() {
            if case .keep = edit { continue }
            return index
        }
        return nil
    }

    /// The step the journey was at where the transcripts first differ, in the expected one:
    /// the last step entered at or before the first differing event (nil in the header).
    public var firstDifferingStep: String? {
        guard let index = firstDifference, !expected.isEmpty else { return nil }
        return expected.step(at: min(index, expected.count - 1))
    }

    /// A unified diff of the two transcripts' text renderings, lined up event by event. Where
    /// the text does not show the difference (a field only JSON Lines hold, a call without
    /// parameters), those events are shown as their JSON Lines instead.
    public func unified(context: Int = 3, expectedName: String = "expected", actualName: String = "actual") -> String {
        let renderer = TranscriptTextRenderer()
        func text(_ record: TranscriptRecord) -> [Substring] { Array(renderer.render(record).lines.dropLast()) }
        func json(_ record: TranscriptRecord) -> Substring {
            JSONLinesEncoder().encode(record).dropLast()
        }
        var lines: (expected: [Substring], actual: [Substring]) = ([], [])
        var lineEdits: [TextDiff.Edit] = []
        var index = 0
        while index < edits.count {
            if case .keep(_, let b) = edits[index] {
                for line in text(actual[b]) {
                    lineEdits.append(.keep(lines.expected.count, lines.actual.count))
                    lines.expected.append(line)
                    lines.actual.append(line)
                }
                index += 1
                continue
            }
            // A run of changed events: their lines, aligned line by line.
            var removed: [TranscriptRecord] = [], added: [TranscriptRecord] = []
            block: while index < edits.count {
                switch edits[index] {
                case .keep: break block
                case .remove(let a): removed.append(expected[a])
                case .add(let b): added.append(actual[b])
                }
                index += 1
            }
            var old = removed.flatMap(text), new = added.flatMap(text)
            if old == new {
                old = removed.map(json)
                new = added.map(json)
            }
            for edit in TextDiff.diff(old, new) {
                switch edit {
                case .keep(let a, _):
                    lineEdits.append(.keep(lines.expected.count, lines.actual.count))
                    lines.expected.append(old[a])
                    lines.actual.append(old[a])
                case .remove(let a):
                    lineEdits.append(.remove(lines.expected.count))
                    lines.expected.append(old[a])
                case .add(let b):
                    lineEdits.append(.add(lines.actual.count))
                    lines.actual.append(new[b])
                }
            }
        }
        return TextDiff(expected: lines.expected, actual: lines.actual, edits: lineEdits).unified(
            context: context, expectedName: expectedName, actualName: actualName)
    }
}

extension [TranscriptRecord] {
    /// The step the journey was at at record `index`: the last step entered at or before it.
    public func step(at index: Int) -> String? {
        guard !isEmpty else { return nil }
        for record in self[...Swift.min(index, count - 1)].reversed() {
            if case .stepEnter(let step, _) = record.event { return step }
        }
        return nil
    }

    /// The record whose text rendering holds `line` (1-based) of the whole transcript's text.
    public func record(atTextLine line: Int) -> Int? {
        let renderer = TranscriptTextRenderer()
        var seen = 0
        for (index, record) in enumerated() {
            seen += renderer.render(record).utf8.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            if seen >= line { return index }
        }
        return nil
    }
}
