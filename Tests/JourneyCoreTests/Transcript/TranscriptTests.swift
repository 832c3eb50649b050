import Foundation
import Testing

@testable import JourneyCore

@Suite("Transcripts")
struct TranscriptTests {
    @Test func jsonLinesEscapeAndRedact() {
        let record = TranscriptRecord(
            time: 1500, depth: 1,
            event: .input(
                step: "s", values: [.init("note", .string("a\"b\\c\nd\u{1}")), .init("pin", .secret(.string("1234")))]))
        #expect(
            JSONLinesEncoder().encode(record)
                == #"{"t":1500,"depth":1,"event":"input","step":"s","values":{"note":"a\"b\\c\nd\u0001","pin":"•••"}}"#
                + "\n")
    }

    @Test func jsonLinesNestValuesCorrectly() {
        let record = TranscriptRecord(
            time: 0, depth: 0,
            event: .outcome(
                step: "s", outcome: "o",
                data: [.init("list", .list([.string("x"), .int(2)])), .init("ok", .bool(true))]))
        #expect(
            JSONLinesEncoder().encode(record)
                == #"{"t":0,"depth":0,"event":"outcome","step":"s","outcome":"o","data":{"list":["x",2],"ok":true}}"#
                + "\n")
    }

    /// The header's clock is formatted without a date formatter; Foundation's is the oracle.
    @Test(arguments: [
        0, 1, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_800_123, 1_767_258_000_000,
        1_767_258_000_042, 4_102_444_799_000, 253_402_300_799_999, -1, -86_400_000, -2_208_988_800_000,
        1_709_164_800_500,
    ])
    func isoDatesMatchFoundation(milliseconds: Int) {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions =
            milliseconds % 1000 == 0 ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        #expect(TranscriptTextRenderer.isoDate(milliseconds) == expected)
    }

    @Test func textRenderingIsOneLinePerEvent() {
        let renderer = TranscriptTextRenderer()
        #expect(
            renderer.render(.init(time: 61_250, depth: 0, event: .stepEnter(step: "pin", handler: "ui.pin")))
                == "01:01.250 → pin [ui.pin]\n")
        #expect(
            renderer.render(
                .init(time: 0, depth: 2, event: .stateSet(variable: "state.pin", value: .secret(.string("9")))))
                == "00:00.000       set state.pin = •••\n")
        #expect(
            renderer.render(.init(time: 0, depth: 0, event: .handlerCall(step: "s", handler: "h", params: []))) == "")
    }

    @Test func urlQueriesAreRedacted() {
        #expect(URLRedaction.redact("app://cb?code=abc&state=xyz") == "app://cb?code=•••&state=•••")
        #expect(URLRedaction.redact("https://x.nl/a#token=t") == "https://x.nl/a#token=•••")
        #expect(URLRedaction.redact("https://x.nl/path") == "https://x.nl/path")
        #expect(URLRedaction.redact("tinkoff://cb?cancelled") == "tinkoff://cb?•••")
    }

    @Test func textDiffNamesTheFirstChangedLine() {
        let golden = """
            00:00.000 → a [ui.screen]
            00:00.000   input action="go"
            00:00.000 → b [ui.screen]
            00:00.000   input action="next"
            00:00.000   b --next--> done
            """
        let actual = golden.replacingOccurrences(of: "action=\"next\"", with: "action=\"back\"")
        let diff = TextDiff(expected: golden, actual: actual)
        #expect(!diff.isEmpty)
        #expect(diff.firstDifferenceLine == 4)
        let unified = diff.unified(context: 1)
        #expect(unified.contains("-00:00.000   input action=\"next\""))
        #expect(unified.contains("+00:00.000   input action=\"back\""))
        #expect(unified.contains("@@ -3,3 +3,3 @@"))
        #expect(TextDiff(expected: golden, actual: golden).isEmpty)
    }

    @Test func textDiffHandlesInsertionsAndDeletions() {
        let diff = TextDiff(expected: "a\nb\nc", actual: "a\nx\nb")
        #expect(diff.unified().contains("+x"))
        #expect(diff.unified().contains("-c"))
    }

    @Test func durations() {
        #expect(Duration.parse("1.5s") == 1500)
        #expect(Duration.parse("250ms") == 250)
        #expect(Duration.parse("5m") == 300_000)
        #expect(Duration.parse("2h") == 7_200_000)
        #expect(Duration.parse("5") == nil)
        #expect(Duration.parse("-1s") == nil)
        // A clock moves by whole milliseconds: a part of one is refused, not rounded.
        #expect(Duration.parse("1.001s") == 1001)
        #expect(Duration.parse("0.5ms") == nil && Duration.parse("1.0005s") == nil)
        #expect(Duration.problem(with: "0.5ms")?.contains("not a whole number of milliseconds") == true)
        #expect(Duration.format(milliseconds: 1500) == "1.5s")
        #expect(Duration.format(milliseconds: 300_000) == "5m")
        // Whole days as a journey writes them (`after: 1d` is shown `+1d`, not `+24h`).
        #expect(Duration.format(milliseconds: 86_400_000) == "1d")
        #expect(Duration.format(milliseconds: 2 * 86_400_000) == "2d")
        #expect(Duration.format(milliseconds: 25 * 3_600_000) == "25h")
        // Written in digits however long, never with an exponent, and parsed back to itself.
        for ms in [1001, 1050, 12_345_678_901, Int.max, 9_223_372_036_854_775_001] {
            let text = Duration.format(milliseconds: ms)
            #expect(!text.contains("e"), "\(ms): \(text)")
            #expect(ms > 31_536_000_000_000 || Duration.parse(text) == ms, "\(ms): \(text)")
        }
        #expect(Duration.format(milliseconds: Int.max) == "9223372036854775.807s")
        #expect(Duration.format(milliseconds: 1050) == "1.05s")
    }
}
