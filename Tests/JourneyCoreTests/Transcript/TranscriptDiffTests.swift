import Testing

@testable import JourneyCore

@Suite("Comparing transcripts as events")
struct TranscriptDiffTests {
    static let header = TranscriptRecord(
        time: 0, depth: 0,
        event: .header(.init(journey: "j", scenario: "s", locale: "en", device: DeviceProfile(), clock: 0, store: [])))

    /// A run through steps `a` and `b`; `change` edits its events before they are recorded.
    static func transcript(_ change: (inout [TranscriptEvent]) -> Void = { _ in }) -> [TranscriptRecord] {
        var events: [TranscriptEvent] = [
            .journeyStart(journey: "j", params: []),
            .stepEnter(step: "a", handler: "ui.screen"),
            .screen(step: "a", screen: RenderedScreen(title: "A", text: nil, actions: [], fields: [])),
            .input(step: "a", values: [.init("action", .string("go"))]),
            .transition(from: "a", outcome: "go", branch: "always", to: "b"),
            .stepEnter(step: "b", handler: "ui.screen"),
            .screen(step: "b", screen: RenderedScreen(title: "B", text: nil, actions: [], fields: [])),
            .handlerCall(step: "b", handler: "ui.screen", params: []),
            .input(step: "b", values: [.init("action", .string("next"))]),
            .transition(from: "b", outcome: "next", branch: "always", to: "done"),
            .journeyEnd(journey: "j", end: "done", kind: .success, steps: 2),
        ]
        change(&events)
        return [header] + events.map { TranscriptRecord(time: 0, depth: 0, event: $0) }
    }

    @Test func equalTranscriptsHaveNoDifference() {
        let diff = TranscriptDiff(expected: Self.transcript(), actual: Self.transcript())
        #expect(diff.isEmpty)
        #expect(diff.firstDifference == nil)
        #expect(diff.firstDifferingStep == nil)
        #expect(diff.unified() == "")
    }

    @Test func aDifferenceTheTextShowsIsShownAsText() {
        let changed = Self.transcript { $0[8] = .input(step: "b", values: [.init("action", .string("back"))]) }
        let diff = TranscriptDiff(expected: Self.transcript(), actual: changed)
        #expect(diff.firstDifference == 9)
        #expect(diff.firstDifferingStep == "b")
        let unified = diff.unified(context: 1, expectedName: "golden.jsonl", actualName: "this run")
        #expect(
            unified == """
                --- golden.jsonl
                +++ this run
                @@ -10,3 +10,3 @@
                 00:00.000   screen "B"
                -00:00.000   input action="next"
                +00:00.000   input action="back"
                 00:00.000   b --next--> done

                """)
    }

    @Test func aDifferenceOnlyJSONLinesHoldIsShownAsJSONLines() {
        // The text never shows the step a screen belongs to.
        let changed = Self.transcript {
            $0[6] = .screen(step: "x", screen: RenderedScreen(title: "B", text: nil, actions: [], fields: []))
        }
        let diff = TranscriptDiff(expected: Self.transcript(), actual: changed)
        #expect(diff.firstDifference == 7)
        #expect(diff.firstDifferingStep == "b")
        let unified = diff.unified(context: 1)
        #expect(unified.contains(#"-{"t":0,"depth":0,"event":"screen","step":"b","title":"B"}"#), "\(unified)")
        #expect(unified.contains(#"+{"t":0,"depth":0,"event":"screen","step":"x","title":"B"}"#), "\(unified)")
        #expect(unified.contains(#" 00:00.000 → b [ui.screen]"#), "text around it: \(unified)")
    }

    @Test func anEventTheTextLeavesOutIsShownAsItsJSONLine() {
        let changed = Self.transcript { $0.remove(at: 7) }
        let diff = TranscriptDiff(expected: Self.transcript(), actual: changed)
        #expect(diff.firstDifference == 8)
        #expect(diff.firstDifferingStep == "b")
        #expect(
            diff.unified().contains(
                #"-{"t":0,"depth":0,"event":"handler.call","step":"b","handler":"ui.screen","params":{}}"#))
    }

    @Test func aDifferenceInTheHeaderNamesNoStep() {
        var changed = Self.transcript()
        changed[0] = TranscriptRecord(
            time: 0, depth: 0,
            event: .header(
                .init(journey: "j", scenario: "s", locale: "uk", device: DeviceProfile(), clock: 0, store: [])))
        let diff = TranscriptDiff(expected: Self.transcript(), actual: changed)
        #expect(diff.firstDifference == 0)
        #expect(diff.firstDifferingStep == nil)
        #expect(diff.unified().contains("+# transcript j · scenario s · locale uk"))
    }

    @Test func eventsAddedAtTheEndNameTheLastStep() {
        let longer = Self.transcript { $0.append(.restart) }
        let diff = TranscriptDiff(expected: Self.transcript(), actual: longer)
        #expect(diff.firstDifference == 12)
        #expect(diff.firstDifferingStep == "b")
        #expect(diff.unified().contains("+00:00.000 ⟳ app restarted"))
    }

    @Test func textLinesMapToTheirRecords() {
        let records = Self.transcript()
        // The header takes three lines; the call without parameters none.
        #expect(records.record(atTextLine: 1) == 0)
        #expect(records.record(atTextLine: 3) == 0)
        #expect(records.record(atTextLine: 4) == 1)
        #expect(records.record(atTextLine: 10) == 7)
        #expect(records.record(atTextLine: 11) == 9)
        #expect(records.record(atTextLine: 100) == nil)
        #expect(records.step(at: 4) == "a")
        #expect(records.step(at: 6) == "b")
        #expect(records.step(at: 0) == nil)
    }
}
