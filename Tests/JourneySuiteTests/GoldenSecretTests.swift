import JourneyCore
import Testing

@testable import JourneySuite

@Suite("A golden never shows a scenario's secret")
struct GoldenSecretTests {
    static let journey = """
        journey: t.secret
        version: 1
        title: Secret
        params:
          seed: { type: string, secret: true, default: "" }
        stored:
          token: { type: string, secret: true }
        start: pin
        steps:
          pin:
            handler: pin.entry
            with: { length: 6 }
            on: { entered: name }
          name:
            handler: ui.form
            screen:
              fields: { who: { label: Name, kind: text } }
              actions: { submit: OK }
            on: { submit: done, invalid: name }
        ends:
          done: { kind: success }
        """

    static let scenario = """
        scenario: s
        journey: t.secret
        params: { seed: "seed-of-it" }
        device:
          store: { token: "tok-1234-abc" }
          pins: { pin: "135791" }
        script:
          - at: pin
            pin: "802468"
          - at: name
            who: "Ann"
            action: submit
        expect: { end: done }
        """

    @Test("the secrets a scenario gives are those it types into secret inputs, seals, and sets secret")
    func givenSecrets() throws {
        let (scenario, _) = try compiled(journey: Self.journey, scenario: Self.scenario)
        #expect(
            scenario.givenSecrets.map(\.source) == [
                "what the scenario types into 'pin' at step 'pin'", "the PIN the scenario seals as 'pin'",
                "params.seed as the scenario gives it", "stored.token as the scenario sets it",
            ])
        #expect(scenario.givenSecrets.map(\.text) == ["802468", "135791", "seed-of-it", "tok-1234-abc"])
    }

    @Test(
        "a secret in clear is found in either golden, escaped or as a number, and only as a whole",
        arguments: [
            // (jsonl line 2, txt line 2, where it is found)
            (#"{"event":"input","values":{"pin":"802468"}}"#, "input pin=•••", "memory/s.jsonl:2:1"),
            (#"{"event":"input","values":{"pin":802468}}"#, "input pin=•••", "memory/s.jsonl:2:1"),
            (
                #"{"t":0,"depth":0,"event":"failure","step":"x","message":"tok\u002d1234-abc"}"#, "",
                "memory/s.jsonl:2:1"
            ),
            (#"{"event":"input","values":{"pin":"•••"}}"#, "input pin=802468", "memory/s.txt:2:1"),
            (#"{"event":"http","url":"https://x.example/?n=1802468"}"#, "seed-of-its", nil),
        ] as [(String, String, String?)])
    func found(jsonl: String, text: String, location: String?) throws {
        let (scenario, _) = try compiled(journey: Self.journey, scenario: Self.scenario)
        let goldens = MemoryGoldens()
        try goldens.record("header\n\(text)\n", "{\"event\":\"transcript\"}\n\(jsonl)\n", for: scenario)
        let problem = goldens.secretShown(for: scenario)
        #expect(problem?.location == location)
        if let problem {
            #expect(problem.message.hasPrefix("the golden shows "))
            for secret in scenario.givenSecrets { #expect(!problem.message.contains(secret.text)) }
        }
    }

    @Test("a golden checked out with CRLF line endings is searched line by line: the place is the line's")
    func crlfLines() throws {
        let (scenario, _) = try compiled(journey: Self.journey, scenario: Self.scenario)
        let goldens = MemoryGoldens()
        try goldens.record(
            "header\r\nstep pin\r\ninput pin=802468\r\n",
            "{\"event\":\"transcript\"}\r\n{\"event\":\"step.enter\"}\r\n{\"event\":\"input\",\"values\":{\"pin\":\"802468\"}}\r\n",
            for: scenario)
        #expect(goldens.secretShown(for: scenario)?.location == "memory/s.jsonl:3:1")
        try goldens.record(
            "header\r\nstep pin\r\ninput pin=802468\r\n", "{\"event\":\"transcript\"}\r\n", for: scenario)
        #expect(goldens.secretShown(for: scenario)?.location == "memory/s.txt:3:1")
    }

    @Test("a counterexample keeps the device and params of a start written with CRLF line endings")
    func crlfStart() {
        let start =
            "scenario: s\r\njourney: t.secret\r\ndevice:\r\n  store:\r\n    failures: 1\r\nparams: { seed: x }\r\nscript: []\r\n"
        #expect(
            Counterexample.startingBlocks(start) == ["device:", "  store:", "    failures: 1", "params: { seed: x }"])
    }
}
