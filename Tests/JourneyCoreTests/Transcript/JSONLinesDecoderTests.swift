import Foundation
import Testing

@testable import JourneyCore

@Suite("Reading transcripts back from JSON Lines")
struct JSONLinesDecoderTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Values of every kind, as they read back: a secret as the unknown secret.
    static let values: TranscriptEvent.Fields = [
        .init("text", .string("a \"quoted\" \\ line\nwith\ttabs, \u{1}, é, 🙂 and •••")),
        .init("empty", .string("")),
        .init("number", .int(-42)),
        .init("large", .int(Int.max)),
        .init("yes", .bool(true)),
        .init("no", .bool(false)),
        .init("list", .list([.string("x"), .int(2), .list([]), .list([.bool(true), Value.unknownSecret])])),
        .init("pin", Value.unknownSecret),
    ]

    static let device = DeviceProfile(
        biometry: .faceID, biometryEnrolled: true, online: false, apps: ["bankid", "tinkoff"], opensLinks: false,
        trustedCAs: ["sha256/abc"])

    /// At least one record of every event kind, with and without each optional part.
    static let records: [TranscriptRecord] = [
        .init(
            time: 0, depth: 0,
            event: .header(
                .init(
                    journey: "j", scenario: "s", locale: "uk", device: device, clock: 1_767_258_000_042,
                    store: values, settings: [.init("kdfRounds", .int(1000))]))),
        .init(
            time: 0, depth: 0,
            event: .header(
                .init(journey: "j", scenario: nil, locale: "", device: DeviceProfile(), clock: -1, store: []))),
        .init(time: 0, depth: 0, event: .journeyStart(journey: "j", params: values)),
        .init(time: 1, depth: 0, event: .journeyEnd(journey: "j", end: "done", kind: .success, steps: 12)),
        .init(time: 2, depth: 1, event: .subjourneyEnter(journey: "k", step: "call", params: [])),
        .init(
            time: 3, depth: 1,
            event: .subjourneyExit(journey: "k", end: "no", kind: .cancel, outputs: [.init("why", .string("x"))])),
        .init(time: 4, depth: 2, event: .stepEnter(step: "pin", handler: "call k")),
        .init(
            time: 5, depth: 0,
            event: .screen(
                step: "pin",
                screen: RenderedScreen(
                    title: "Вхід", text: "Line one\nline two",
                    actions: [
                        .init(id: "go", label: "Go", enabled: true), .init(id: "no", label: "No", enabled: false),
                    ],
                    fields: [
                        .init(
                            name: "pin", label: "PIN", kind: .digits, required: true, pattern: nil, minLength: nil,
                            maxLength: nil, secret: true),
                        .init(
                            name: "on", label: nil, kind: .switch, required: true, pattern: nil, minLength: nil,
                            maxLength: nil, secret: false),
                    ]))),
        .init(
            time: 6, depth: 0,
            event: .screen(step: "blank", screen: RenderedScreen(title: nil, text: nil, actions: [], fields: []))),
        .init(
            time: 6, depth: 0,
            event: .screenUpdated(
                step: "code",
                screen: RenderedScreen(
                    title: "Code", text: "Resend in 12 s",
                    actions: [.init(id: "resend", label: "Resend", enabled: true)],
                    fields: []))),
        .init(time: 7, depth: 0, event: .input(step: "pin", values: values)),
        .init(time: 8, depth: 0, event: .handlerCall(step: "pin", handler: "pin.verify", params: [])),
        .init(time: 8, depth: 0, event: .handlerCall(step: "pin", handler: "pin.verify", params: values)),
        .init(time: 9, depth: 0, event: .handlerError(step: "pin", handler: "pin.verify", message: "boom\n\"x\"")),
        .init(time: 10, depth: 0, event: .outcome(step: "pin", outcome: "wrong", data: [])),
        .init(time: 10, depth: 0, event: .outcome(step: "pin", outcome: "ok", data: values)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .charged, count: 1, max: 3)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .refunded, count: 0, max: 3)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .reset, count: 0, max: 3)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .exceeded, count: 3, max: 3)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .locked, count: 0, max: 3)),
        .init(time: 11, depth: 0, event: .attempt(step: "pin", limit: "pin", action: .unlocked, count: 0, max: 7)),
        .init(time: 12, depth: 0, event: .stateSet(variable: "state.pin", value: Value.unknownSecret)),
        .init(time: 12, depth: 0, event: .stateSet(variable: "stored.tries", value: .list([.int(1)]))),
        .init(
            time: 13, depth: 0,
            event: .transition(from: "pin", outcome: "wrong (limit pin reached)", branch: "if 1", to: "locked")),
        .init(time: 14, depth: 0, event: .restart),
        .init(time: 14, depth: 0, event: .session(number: 2)),
        .init(time: 3_600_000, depth: 0, event: .clockAdvance(milliseconds: 86_400_000, reason: "scenario")),
        .init(time: 15, depth: 0, event: .network(online: true)),
        .init(time: 15, depth: 0, event: .network(online: false)),
        .init(
            time: 16, depth: 0,
            event: .http(step: "token", method: "POST", url: "https://x/t?code=•••", status: 200, error: nil)),
        .init(
            time: 16, depth: 0,
            event: .http(step: "token", method: "GET", url: "https://x/", status: nil, error: "untrusted certificate")),
        .init(
            time: 16, depth: 0, event: .http(step: "token", method: "GET", url: "https://x/", status: nil, error: nil)),
        .init(
            time: 17, depth: 0,
            event: .inputRefused(
                step: "code", values: [.init("action", .string("resend"))],
                reason: "action 'resend' is disabled on step 'code'; it cannot be pressed")),
        .init(time: 17, depth: 0, event: .failure(step: "pin", message: "handler failed")),
        .init(time: 17, depth: 0, event: .failure(step: nil, message: "the scenario expected 'done'")),
    ]

    /// The kind of an event, by a switch the compiler checks: a new kind fails to build here
    /// until it is added to ``records``.
    static func kind(_ event: TranscriptEvent) -> String {
        switch event {
        case .header, .journeyStart, .journeyEnd, .subjourneyEnter, .subjourneyExit, .stepEnter, .screen,
            .screenUpdated, .input,
            .inputRefused, .handlerCall, .handlerError, .outcome, .attempt, .stateSet, .transition, .restart,
            .session, .clockAdvance, .network,
            .http, .failure:
            event.name
        }
    }

    @Test func everyEventKindIsCovered() {
        let covered = Set(Self.records.map { Self.kind($0.event) })
        #expect(covered == JSONLinesDecoder.knownEvents.union(["transcript"]))
    }

    @Test(arguments: records)
    func decodingAnEncodedRecordGivesItBack(record: TranscriptRecord) throws {
        let line = JSONLinesEncoder().encode(record)
        let decoded = try JSONLinesDecoder().decode(line: line)
        #expect(decoded == record, "\(line)")
        #expect(JSONLinesEncoder().encode(decoded) == line)
    }

    /// The texts the explorer searches for secrets without writing the line are the line's
    /// strings: every string value of it (the event's name aside), and nothing but its strings.
    @Test(arguments: records)
    func anEventsTextsAreTheStringsOfItsLine(record: TranscriptRecord) throws {
        let line = JSONLinesEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        var values: [String] = []
        var keys: [String] = []
        func walk(_ any: Any) {
            if let text = any as? String {
                values.append(text)
            } else if let list = any as? [Any] {
                list.forEach(walk)
            } else if let map = any as? [String: Any] {
                for (key, value) in map {
                    keys.append(key)
                    walk(value)
                }
            }
        }
        for (key, value) in object where key != "event" { walk(value) }
        var texts: [String] = []
        let stopped = record.event.containsText { text in
            texts.append(text)
            return false
        }
        #expect(!stopped)
        #expect(Set(values).isSubset(of: Set(texts)), "\(line)")
        #expect(Set(texts).isSubset(of: Set(values + keys)), "\(line)")
    }

    @Test func whatJSONLinesDoNotKeepDoesNotComeBack() throws {
        let record = TranscriptRecord(
            time: 0, depth: 0,
            event: .handlerCall(
                step: "s", handler: "ui.alert",
                params: [
                    .init("after", .duration(1500)), .init("pin", .secret(.string("1234"))),
                    .init("code", .secret(.int(7))), .init("codes", .list([.secret(.string("9"))])),
                ]))
        let line = JSONLinesEncoder().encode(record)
        let decoded = try JSONLinesDecoder().decode(line: line)
        #expect(
            decoded.event
                == .handlerCall(
                    step: "s", handler: "ui.alert",
                    params: [
                        .init("after", .string("1.5s")), .init("pin", Value.unknownSecret),
                        .init("code", Value.unknownSecret), .init("codes", .list([Value.unknownSecret])),
                    ]))
        #expect(JSONLinesEncoder().encode(decoded) == line, "what does come back encodes to the same bytes")
        #expect(!"\(decoded)".contains("1234"))
    }

    @Test func keysMayComeInAnyOrderAndTheLastNewlineMayBeMissing() throws {
        let records = try JSONLinesDecoder().decode(
            #"{"event":"step.enter","handler":"h","depth":1,"step":"a","t":5}"# + "\n"
                + #" { "t" : 6 , "depth" : 1 , "event" : "restart" } "#)
        #expect(
            records == [
                TranscriptRecord(time: 5, depth: 1, event: .stepEnter(step: "a", handler: "h")),
                TranscriptRecord(time: 6, depth: 1, event: .restart),
            ])
        #expect(try JSONLinesDecoder().decode("").isEmpty)
    }

    static var shippedGoldens: [String] {
        let root = packageRoot.appendingPathComponent("journeys")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".jsonl") && $0.contains("transcripts/") }.sorted()
    }

    @Test func everyShippedGoldenIsFound() {
        #expect(Self.shippedGoldens.count >= 141)
    }

    /// Every shipped golden reads back, and its records encode to its bytes again.
    @Test(arguments: shippedGoldens)
    func shippedGoldensReadBackExactly(path: String) throws {
        let text = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("journeys").appendingPathComponent(path),
            encoding: .utf8)
        let records = try JSONLinesDecoder().decode(text)
        #expect(records.count == text.split(separator: "\n").count)
        guard case .header = records.first?.event else {
            Issue.record("the first record is not the header")
            return
        }
        #expect(records.map { JSONLinesEncoder().encode($0) }.joined() == text)
    }

    /// A bad line with 1️⃣ where the error points, and the message.
    struct BadLine: Sendable, CustomTestStringConvertible {
        var marked: String
        var message: String
        var testDescription: String { message }

        init(_ marked: String, _ message: String) {
            self.marked = marked
            self.message = message
        }

        var line: String { marked.replacingOccurrences(of: "1️⃣", with: "") }
        /// The marker's column, in characters, as an editor counts them.
        var column: Int { marked.distance(from: marked.startIndex, to: marked.range(of: "1️⃣")!.lowerBound) + 1 }
    }

    static let badLines: [BadLine] = [
        .init(
            #"{"t":0,"depth":0,"event":"step.enter","step":"a"1️⃣"#,
            "the line ends in the middle of the event (a truncated or hand-edited line?)"),
        .init("1️⃣hello", "expected a JSON value"),
        .init(#"{"t":0,"depth":0,"event":1️⃣"step.leave"}"#, #""step.leave" is not a transcript event"#),
        .init(#"1️⃣{"t":0,"depth":0,"event":"step.enter","step":"a"}"#, #"the "step.enter" event has no 'handler'"#),
        .init(#"{"t":0,"depth":0,"event":"restart",1️⃣"why":"x"}"#, #"the "restart" event has an unknown key 'why'"#),
        .init(
            #"{"t":0,"depth":0,"event":"attempt","step":"a","limit":"l","action":"charged","count":1️⃣"3","max":3}"#,
            #"'count' of the "attempt" event: expected a whole number, found "3""#),
        .init(
            #"{"t":0,"depth":0,"event":"journey.end","journey":"j","end":"e","kind":1️⃣"win","steps":1}"#,
            #"'kind' of the "journey.end" event: "win" is not one of success, failure, cancel"#),
        .init(#"{"t":0,"depth":1️⃣-1,"event":"restart"}"#, #"'depth' of the "restart" event: -1 is not from 0 to 1000"#),
        .init(
            #"{"t":1️⃣1.5,"depth":0,"event":"restart"}"#,
            "a number with a fraction or an exponent; transcripts hold whole numbers only"),
        .init(#"{"t":0,1️⃣"t":1,"depth":0,"event":"restart"}"#, #"the key "t" appears twice"#),
        .init(
            #"{"t":0,"depth":0,"event":"state.set","variable":"v","value":1️⃣null}"#,
            #"'value' of the "state.set" event: expected a value (text, a whole number, true or false, or a list), found null"#
        ),
        .init(
            #"{"t":0,"depth":0,"event":"state.set","variable":"v","value":"# + String(repeating: "[", count: 63) + "1️⃣"
                + String(repeating: "[", count: 37) + String(repeating: "]", count: 100) + "}",
            "values nest more than 64 deep, more than any transcript does"),
        .init(
            #"{"event":"transcript","format":1️⃣2,"journey":"j","locale":"","device":{},"clock":0,"store":{}}"#,
            "transcript format 2 is not one this version reads (1)"),
        .init(
            #"{"event":"transcript","format":1,"journey":"j","locale":"","device":1️⃣{},"clock":0,"store":{}}"#,
            "the header's device has no 'biometry'"),
        .init(#"{"t":0,"depth":0,"event":"failure","message":"•••1️⃣\q"}"#, "an unknown escape"),
        .init(#"{"t":0,"depth":0,"event":"failure","message":"1️⃣\ud800x"}"#, "an unpaired surrogate escape"),
        .init(#"{"t":0,"depth":0,"event":"restart"} 1️⃣{}"#, "unexpected text after the event's closing brace"),
        .init(
            #"{"t":0,"depth":0,"event":"network","online":1️⃣"yes"}"#,
            #"'online' of the "network" event: expected true or false, found "yes""#),
        .init(#"{"t":1️⃣99999999999999999999,"depth":0,"event":"restart"}"#, "the number is too large"),
        .init(
            #"{"t":0,"depth":0,"event":"screen","step":"s","actions":[{"id":"a","label":1️⃣7}]}"#,
            #"'actions' of the "screen" event: 'label' of an action: expected text, found 7"#),
    ]

    @Test(arguments: badLines)
    func aBadLineIsLocated(bad: BadLine) {
        let transcript = #"{"t":0,"depth":0,"event":"restart"}"# + "\n" + bad.line + "\n"
        #expect(throws: TranscriptDecodingError(line: 2, column: bad.column, message: bad.message)) {
            try JSONLinesDecoder().decode(transcript)
        }
    }

    @Test func anEmptyLineIsLocated() {
        let transcript = #"{"t":0,"depth":0,"event":"restart"}"# + "\n\n" + #"{"t":0,"depth":0,"event":"restart"}"#
        #expect(
            throws: TranscriptDecodingError(
                line: 2, column: 1, message: "an empty line; each line of a transcript is one event")
        ) {
            try JSONLinesDecoder().decode(transcript)
        }
    }

    /// A golden cut at any byte, or with any byte changed, reads back or fails with a located
    /// error: never a crash.
    @Test func damagedGoldensNeverCrash() throws {
        let path = try #require(Self.shippedGoldens.first { $0.hasSuffix("happy-path.jsonl") })
        let bytes = Array(
            try Data(contentsOf: Self.packageRoot.appendingPathComponent("journeys").appendingPathComponent(path)))
        let lineCount = bytes.filter { $0 == 0x0A }.count
        var failures = 0
        for cut in stride(from: 0, to: bytes.count, by: 37) {
            do throws(TranscriptDecodingError) {
                _ = try JSONLinesDecoder().decode(String(decoding: bytes[..<cut], as: UTF8.self))
            } catch {
                failures += 1
                #expect((1...lineCount).contains(error.line))
            }
        }
        #expect(failures > 0)
        var generator = SplitMix64(seed: 14)
        let replacements: [UInt8] = Array(#"{}[]",:0-9eE\ ntfu"#.utf8) + [0x0A, 0x00, 0xE2, 0x80]
        for _ in 0..<400 {
            var damaged = bytes
            let position = Int(generator.next() % UInt64(bytes.count))
            damaged[position] = replacements[Int(generator.next() % UInt64(replacements.count))]
            do throws(TranscriptDecodingError) {
                _ = try JSONLinesDecoder().decode(String(decoding: damaged, as: UTF8.self))
            } catch {
                #expect(error.line >= 1 && error.column >= 1)
            }
        }
    }
}

/// A small seeded generator, so a failing damage is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
