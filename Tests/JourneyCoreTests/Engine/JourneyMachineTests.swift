import Testing

@testable import JourneyCore

/// The interpreter as a pure state machine: every test feeds events and reads actions and
/// transcript records, with no handlers, drivers or files involved.
@Suite("Journey machine")
struct JourneyMachineTests {
    static let pinJourney = journey(
        steps: """
              a:
                handler: t.check
                attempts: { limit: pin, counts: [wrong], resets: [correct] }
                on:
                  correct: done
                  wrong:
                    set: { state.misses: "${state.misses + 1}" }
                    to: a
                  cancel: failed
            """,
        extra: """
            state:
              misses: { type: int, default: 0 }
            stored:
              failures: { type: int, default: 0 }
            limits:
              pin: { max: 3, counter: stored.failures, exceeded: failed }
            """)

    @Test func walksStepsToAnEnd() throws {
        var m = try machine(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: b, back: failed }
                      b:
                        handler: t.step
                        on: { next: done, back: a }
                    """))
        #expect(m.handle(.start).step == "a")
        #expect(m.handle(.complete(HandlerResult("next"))).step == "b")
        #expect(m.handle(.complete(HandlerResult("back"))).step == "a")
        #expect(m.handle(.complete(HandlerResult("next"))).step == "b")
        let last = m.handle(.complete(HandlerResult("next")))
        #expect(last.end == "done")
        #expect(m.stepsTaken == 4)
        let events = m.takeRecords().map(\.event.name)
        #expect(events.first == "journey.start")
        #expect(events.last == "journey.end")
        #expect(events.filter { $0 == "transition" }.count == 4)
    }

    /// A text doubled on each visit stops the run at the bound of a text, with its size, long
    /// before it could take the machine's memory.
    @Test func aTextDoubledOnEachStepFailsTheRun() throws {
        var m = try machine(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on:
                          next:
                            set: { state.t: "${state.t + state.t}" }
                            to: a
                          back: done
                    """, extra: "state:\n  t: { type: string, default: ab }"),
            budget: 1000)
        var action = m.handle(.start)
        var visits = 0
        while action.step == "a" {
            visits += 1
            action = m.handle(.complete(HandlerResult("next")))
        }
        #expect(visits == 16, "2 bytes doubled 15 times is 64 KiB: the 16th visit doubles past it")
        #expect(
            action.failure?.hasSuffix("the text would be 131072 bytes, more than the 65536 a text may hold") == true,
            "\(action)")
    }

    @Test func threeStrikesSurviveARestart() throws {
        var m = try machine(Self.pinJourney)
        _ = m.handle(.start)
        _ = m.handle(.chargeAttempt)
        _ = m.handle(.complete(HandlerResult("wrong")))
        _ = m.handle(.chargeAttempt)
        _ = m.handle(.complete(HandlerResult("wrong")))
        #expect(m.device.store["failures"] == .int(2))
        #expect(m.rootState["misses"] == .int(2))

        #expect(m.handle(.restart).step == "a")
        #expect(m.rootState["misses"] == .int(0), "state does not survive a restart")
        #expect(m.device.store["failures"] == .int(2), "the stored counter does")

        _ = m.handle(.chargeAttempt)
        #expect(m.device.store["failures"] == .int(3), "charged before the result is known")
        let last = m.handle(.complete(HandlerResult("wrong")))
        #expect(last.end == "failed")
        #expect(m.device.store["failures"] == .int(0), "reset when exceeded (keep: false)")
        let attempts = m.takeRecords().compactMap { record -> String? in
            if case .attempt(_, _, let action, let count, _) = record.event { return "\(action.rawValue) \(count)" }
            return nil
        }
        #expect(attempts == ["charged 1", "charged 2", "charged 3", "exceeded 3"])
    }

    @Test(
        "a counter a run never wrote, outside 0 to max, gives no attempts beyond max and never overflows",
        arguments: [
            (Int.min, 3), (-100, 3), (-1, 3), (4, 0), (Int.max, 0), (Int.max - 1, 0),
        ])
    func counterOutOfRange(stored: Int, attemptsLeft: Int) throws {
        var m = try machine(Self.pinJourney, store: ["failures": .int(stored)])
        var wrong = 0
        var action = m.handle(.start)
        while action.step == "a" {
            _ = m.handle(.chargeAttempt)
            action = m.handle(.complete(HandlerResult("wrong")))
            wrong += 1
            try #require(wrong <= 3, "a fourth wrong PIN was taken")
        }
        #expect(action.end == "failed")
        #expect(wrong == attemptsLeft, "\(stored)")
    }

    @Test func aRestartBeforeTheInputCostsNothing() throws {
        var m = try machine(Self.pinJourney, store: ["failures": .int(2)])
        _ = m.handle(.start)
        _ = m.handle(.restart)
        _ = m.handle(.restart)
        #expect(m.device.store["failures"] == .int(2))
        #expect(m.handle(.complete(HandlerResult("correct"))).end == "done")
        #expect(m.device.store["failures"] == .int(0), "a correct PIN resets the count")
    }

    @Test func aRestartAfterTheChargeKeepsIt() throws {
        var m = try machine(Self.pinJourney, store: ["failures": .int(1)])
        _ = m.handle(.start)
        _ = m.handle(.chargeAttempt)
        _ = m.handle(.restart)
        #expect(m.device.store["failures"] == .int(2))
    }

    @Test func otherOutcomesGiveTheChargeBack() throws {
        var m = try machine(Self.pinJourney, store: ["failures": .int(1)])
        _ = m.handle(.start)
        _ = m.handle(.chargeAttempt)
        #expect(m.device.store["failures"] == .int(2))
        #expect(m.handle(.complete(HandlerResult("cancel"))).end == "failed")
        #expect(m.device.store["failures"] == .int(1))
    }

    @Test func countedOutcomesAreChargedEvenIfTheHandlerDidNot() throws {
        var m = try machine(Self.pinJourney)
        _ = m.handle(.start)
        _ = m.handle(.complete(HandlerResult("wrong")))
        #expect(m.device.store["failures"] == .int(1))
    }

    @Test func enteringAnExhaustedLimitGoesStraightToExceeded() throws {
        var m = try machine(Self.pinJourney, store: ["failures": .int(3)])
        #expect(m.handle(.start).end == "failed")
        #expect(m.stepsTaken == 1)
    }

    @Test func theStepBudgetStopsLoops() throws {
        var m = try machine(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: a, back: done }
                    """), budget: 5)
        var action = m.handle(.start)
        var rounds = 0
        while case .runStep = action {
            action = m.handle(.complete(HandlerResult("next")))
            rounds += 1
        }
        #expect(rounds == 5)
        #expect(action.failure?.contains("step budget of 5") == true)
    }

    @Test func undeclaredOutcomesFailTheRun() throws {
        var m = try machine(journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: done }"))
        _ = m.handle(.start)
        #expect(m.handle(.complete(HandlerResult("sideways"))).failure?.contains("does not declare") == true)
    }

    @Test func handlerErrorsAreRecordedAndFailTheRun() throws {
        var m = try machine(journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: done }"))
        _ = m.handle(.start)
        #expect(m.handle(.fail("network down")).failure?.contains("network down") == true)
        let names = m.takeRecords().map(\.event.name)
        #expect(names.suffix(2) == ["handler.error", "failure"])
    }

    @Test func guardsAreTriedInOrder() throws {
        let text = journey(
            steps: """
                  a:
                    handler: t.value
                    on:
                      done:
                        - if: outcome.value == 'x'
                          set: { state.seen: "first" }
                          to: done
                        - if: len(input.text) > 2
                          set: { state.seen: "${'second:' + input.text}" }
                          to: done
                        - else:
                            set: { state.seen: "else" }
                            to: failed
                """,
            extra: "state:\n  seen: { type: string }")
        var m = try machine(text)
        _ = m.handle(.start)
        let last = m.handle(
            .complete(HandlerResult("done", data: ["value": .string("y")]), inputs: ["text": .string("abc")]))
        #expect(last.end == "done")
        #expect(m.rootState["seen"] == .string("second:abc"))
        let branch = m.takeRecords().compactMap { r -> String? in
            if case .transition(_, _, let branch, _) = r.event { return branch }
            return nil
        }
        #expect(branch == ["if 2"])
    }

    @Test func subJourneysHaveTheirOwnStateAndReturnOutputs() throws {
        let callee = journey(
            "t.sub",
            steps: """
                  a:
                    handler: t.step
                    on:
                      next:
                        set: { state.x: "${params.base + 1}" }
                        to: done
                      back: failed
                """,
            extra:
                "params:\n  base: { type: int }\nstate:\n  x: { type: int, default: 100 }\noutputs:\n  result: \"${state.x}\""
        )
        let caller = journey(
            steps: """
                  a:
                    call: t.sub
                    with: { base: "${state.x}" }
                    on:
                      done:
                        set: { state.y: "${outcome.result}" }
                        to: done
                      failed: failed
                """,
            extra: "state:\n  x: { type: int, default: 41 }\n  y: { type: int, default: 0 }")
        let (library, diagnostics) = compile([caller, callee])
        let lib = try #require(library, "\(diagnostics)")
        var m = JourneyMachine(library: lib, journey: try #require(lib["t.j"]), device: DeviceState())
        let first = m.handle(.start)
        guard case .runStep(let invocation) = first else {
            Issue.record("expected the sub-journey's first step")
            return
        }
        #expect(invocation.journey == "t.sub")
        #expect(m.currentState["x"] == .int(100), "the callee starts with its own state")
        #expect(m.handle(.complete(HandlerResult("next"))).end == "done")
        #expect(m.rootState["x"] == .int(41), "the callee's state.x did not leak into the caller")
        #expect(m.rootState["y"] == .int(42))
        let records = m.takeRecords()
        #expect(records.contains { $0.event.name == "subjourney.enter" && $0.depth == 0 })
        #expect(records.contains { $0.event.name == "step.enter" && $0.depth == 1 })
    }

    @Test func secretsStayWrappedInState() throws {
        let text = journey(
            steps: """
                  a:
                    handler: t.secret
                    on:
                      done:
                        set: { state.pin: "${outcome.pin}" }
                        to: done
                """,
            extra: "state:\n  pin: { type: string, secret: true }")
        var m = try machine(text)
        _ = m.handle(.start)
        _ = m.handle(.complete(HandlerResult("done", data: ["pin": .string("4711")])))
        #expect(m.rootState["pin"] == .secret(.string("4711")))
        let encoded = m.takeRecords().map { JSONLinesEncoder().encode($0) + TranscriptTextRenderer().render($0) }
            .joined()
        #expect(!encoded.contains("4711"))
        #expect(encoded.contains(Value.redacted))
    }

    @Test func sameEventsGiveTheSameRecords() throws {
        func run() throws -> [TranscriptRecord] {
            var m = try machine(Self.pinJourney)
            _ = m.handle(.start)
            _ = m.handle(.advanceClock(milliseconds: 1500, reason: "test"))
            _ = m.handle(.complete(HandlerResult("wrong")))
            _ = m.handle(.restart)
            _ = m.handle(.complete(HandlerResult("correct")))
            return m.takeRecords()
        }
        let a = try run(), b = try run()
        #expect(a == b)
        #expect(a.contains { $0.time == 1500 })
    }
}
