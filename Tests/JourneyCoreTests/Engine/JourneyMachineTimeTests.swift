import Testing

@testable import JourneyCore

/// Time that moves while a screen shows (screens rendered again as the virtual clock
/// advances), limits that lock out for a while, and limits whose maximum comes from params.
@Suite("Journey machine: time, lockouts and computed maximums")
struct JourneyMachineTimeTests {
    /// The test device's clock, in seconds since 1970.
    static let now = 1_767_225_600

    static let resend = journey(
        steps: """
              a:
                handler: t.screen
                screen:
                  title: Enter the code
                  text: "${since(stored.sentAt) >= 60s ? 'Ask for a new code' : 'New code in ' + str(seconds(60s - since(stored.sentAt))) + ' s'}"
                  actions:
                    resend: { label: Resend, enabled: "${since(stored.sentAt) >= 60s}" }
                    cancel: Cancel
                on: { resend: done, cancel: failed }
            """,
        extra: """
            stored:
              sentAt: { type: int, default: 0 }
            """)

    /// The screens recorded, as `event: text, enabled actions`.
    static func screens(_ records: [TranscriptRecord]) -> [String] {
        records.compactMap { record in
            switch record.event {
            case .screen(_, let screen), .screenUpdated(_, let screen):
                let enabled = screen.actions.filter(\.enabled).map(\.id).joined(separator: ",")
                return "\(record.event.name): \(screen.text ?? "") [\(enabled)]"
            default: return nil
            }
        }
    }

    @Test("advancing the clock renders the screen again; a change is recorded and enables the action")
    func liveScreen() throws {
        var m = try machine(Self.resend, store: ["sentAt": .int(Self.now)])
        let first = m.handle(.start)
        guard case .runStep(let invocation) = first else {
            Issue.record("expected a step, got \(first)")
            return
        }
        #expect(invocation.action("resend")?.enabled == false)
        #expect(invocation.hasActionEnabledLater, "the resend condition reads the clock")
        _ = m.handle(.advanceClock(milliseconds: 59_000, reason: "scenario"))
        #expect(m.currentInvocation?.action("resend")?.enabled == false)
        _ = m.handle(.advanceClock(milliseconds: 1000, reason: "scenario"))
        #expect(m.currentInvocation?.action("resend")?.enabled == true)
        #expect(m.currentInvocation?.step == "a")
        // Nothing changes any more: nothing more is recorded.
        _ = m.handle(.advanceClock(milliseconds: 5000, reason: "scenario"))
        let records = m.takeRecords()
        #expect(
            Self.screens(records) == [
                "screen: New code in 60 s [cancel]",
                "screen.updated: New code in 1 s [cancel]",
                "screen.updated: Ask for a new code [resend,cancel]",
            ])
        // The update follows the clock's event, at the new time.
        let names = records.map(\.event.name).suffix(5)
        #expect(
            Array(names) == ["clock.advance", "screen.updated", "clock.advance", "screen.updated", "clock.advance"])
        #expect(m.handle(.complete(HandlerResult("resend"))).end == "done")
    }

    @Test("a screen that reads nothing the clock changes is never recorded again")
    func staticScreen() throws {
        var m = try machine(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: "Hello ${stored.name}"
                          actions:
                            go: { label: Go, enabled: "${stored.name != ''}" }
                        on: { go: done }
                    """,
                extra: "stored:\n  name: { type: string, default: Ada }"))
        _ = m.handle(.start)
        #expect(m.currentInvocation?.hasActionEnabledLater == false)
        _ = m.handle(.advanceClock(milliseconds: 3_600_000, reason: "scenario"))
        #expect(!m.takeRecords().contains { $0.event.name == "screen.updated" })
    }

    @Test("a screen that can no longer be rendered as time passes fails the run with the reason")
    func renderFailure() throws {
        var m = try machine(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: "${str(seconds(since(stored.sentAt)) * 9223372036854775807 * 2)}"
                          actions: { go: Go }
                        on: { go: done }
                    """,
                extra: "stored:\n  sentAt: { type: int, default: 0 }"),
            store: ["sentAt": .int(Self.now)])
        #expect(m.handle(.start).step == "a")
        let action = m.handle(.advanceClock(milliseconds: 1000, reason: "scenario"))
        #expect(action.failure == "cannot render the screen of step 'a' again: integer overflow in '*'")
        #expect(m.result?.failure == action.failure)
    }

    static let lockout = journey(
        steps: """
              a:
                handler: t.check
                attempts: { limit: pin, counts: [wrong], resets: [correct] }
                on: { correct: done, wrong: a, cancel: failed }
              locked:
                handler: t.screen
                screen:
                  title: Locked
                  text: "Try again in ${limits.pin.unlocksIn} (${limits.pin.count}/${limits.pin.max})"
                  actions:
                    retry: { label: Try again, enabled: "${!limits.pin.locked}" }
                on: { retry: a }
            """,
        extra: """
            stored:
              failures: { type: int, default: 0 }
              pinLockedUntil: { type: int, default: 0 }
            limits:
              pin: { max: 2, counter: stored.failures, exceeded: locked, lockout: 15m, lockedUntil: stored.pinLockedUntil }
            """)

    /// The attempt events, as `action count/max`.
    static func attempts(_ records: [TranscriptRecord]) -> [String] {
        records.compactMap { record in
            if case .attempt(_, _, let action, let count, let max) = record.event {
                return "\(action.rawValue) \(count)/\(max)"
            }
            return nil
        }
    }

    @Test("an exceeded limit locks for its lockout, across restarts, then counts from 0 again")
    func lockoutLocksThenUnlocks() throws {
        var m = try machine(Self.lockout)
        #expect(m.handle(.start).step == "a")
        _ = m.handle(.chargeAttempt)
        _ = m.handle(.complete(HandlerResult("wrong")))
        _ = m.handle(.chargeAttempt)
        let locked = m.handle(.complete(HandlerResult("wrong")))
        #expect(locked.step == "locked")
        #expect(m.device.store["pinLockedUntil"] == .int(Self.now + 900), "the lockout's end, on the device")
        #expect(m.device.store["failures"] == .int(0), "reset when exceeded (keep: false)")
        #expect(m.currentInvocation?.screen?.text == "Try again in 15m (0/2)")
        #expect(m.currentInvocation?.action("retry")?.enabled == false)
        var records = m.takeRecords()
        #expect(Self.attempts(records) == ["charged 1/2", "charged 2/2", "exceeded 2/2"])
        #expect(
            records.contains { $0.event == .stateSet(variable: "stored.pinLockedUntil", value: .int(Self.now + 900)) })

        // A restart during the lockout does not end it: the step leads to `locked` at once.
        _ = m.handle(.advanceClock(milliseconds: 600_000, reason: "scenario"))
        #expect(m.currentInvocation?.screen?.text == "Try again in 5m (0/2)")
        #expect(m.handle(.restart).step == "locked")
        records = m.takeRecords()
        #expect(Self.attempts(records) == ["locked 0/2"])
        #expect(
            records.contains {
                $0.event == .transition(from: "a", outcome: "limit (limit pin locked)", branch: "always", to: "locked")
            })

        // When the lockout has passed, the action enables, and the count starts again.
        _ = m.handle(.advanceClock(milliseconds: 300_000, reason: "scenario"))
        #expect(m.currentInvocation?.action("retry")?.enabled == true)
        #expect(m.currentInvocation?.screen?.text == "Try again in 0s (0/2)")
        #expect(m.handle(.complete(HandlerResult("retry"))).step == "a")
        #expect(m.device.store["pinLockedUntil"] == .int(0))
        records = m.takeRecords()
        #expect(Self.attempts(records) == ["unlocked 0/2"])
        _ = m.handle(.chargeAttempt)
        #expect(m.handle(.complete(HandlerResult("wrong"))).step == "a", "one wrong attempt of two again")
    }

    @Test("with keep: true the count stays during the lockout and starts again after it")
    func lockoutKeepsTheCount() throws {
        var m = try machine(
            Self.lockout.replacingOccurrences(of: "lockout: 15m,", with: "lockout: 30s, keep: true,"),
            store: ["failures": .int(1)])
        _ = m.handle(.start)
        _ = m.handle(.chargeAttempt)
        #expect(m.handle(.complete(HandlerResult("wrong"))).step == "locked")
        #expect(m.device.store["failures"] == .int(2))
        #expect(m.currentInvocation?.screen?.text == "Try again in 30s (2/2)")
        _ = m.handle(.advanceClock(milliseconds: 30_000, reason: "scenario"))
        #expect(m.currentInvocation?.screen?.text == "Try again in 0s (0/2)", "a passed lockout reads as a count of 0")
        #expect(m.handle(.complete(HandlerResult("retry"))).step == "a")
        #expect(m.device.store["failures"] == .int(0))
    }

    static let computed = journey(
        steps: """
              a:
                handler: t.screen
                screen:
                  title: "${limits.pin.remaining} of ${limits.pin.max} left"
                  actions: { wrong: Wrong, right: Right }
                attempts: { limit: pin, counts: [wrong], resets: [right] }
                on: { wrong: a, right: done }
            """,
        extra: """
            params:
              maxAttempts: { type: int, default: 2 }
              strict: { type: bool, default: false }
            state:
              failures: { type: int, default: 0 }
            limits:
              pin: { max: "${params.strict ? 1 : params.maxAttempts}", counter: state.failures, exceeded: failed }
            """)

    static func computedMachine(params: [String: Value]) throws -> JourneyMachine {
        let (library, diagnostics) = compile([Self.computed])
        let lib = try #require(library, "\(diagnostics)")
        return JourneyMachine(library: lib, journey: try #require(lib["t.j"]), params: params, device: DeviceState())
    }

    @Test("a max computed from params is evaluated when the journey starts and used everywhere")
    func computedMaximum() throws {
        var m = try Self.computedMachine(params: ["maxAttempts": .int(4)])
        _ = m.handle(.start)
        #expect(m.currentInvocation?.screen?.title == "4 of 4 left")
        for _ in 0..<3 { _ = m.handle(.complete(HandlerResult("wrong"))) }
        #expect(m.currentInvocation?.screen?.title == "1 of 4 left")
        #expect(m.handle(.complete(HandlerResult("wrong"))).end == "failed")
        #expect(
            Self.attempts(m.takeRecords()) == [
                "charged 1/4", "charged 2/4", "charged 3/4", "charged 4/4", "exceeded 4/4",
            ])

        var strict = try Self.computedMachine(params: ["strict": .bool(true)])
        _ = strict.handle(.start)
        #expect(strict.currentInvocation?.screen?.title == "1 of 1 left")
        var defaults = try Self.computedMachine(params: [:])
        _ = defaults.handle(.start)
        #expect(defaults.currentInvocation?.screen?.title == "2 of 2 left")
    }

    @Test(
        "a computed max outside 1 to 1000 fails the run when the journey starts, saying so",
        arguments: [0, -3, 1001])
    func computedMaximumOutOfRange(value: Int) throws {
        var m = try Self.computedMachine(params: ["maxAttempts": .int(value)])
        let action = m.handle(.start)
        #expect(
            action.failure
                == "'max' of limit 'pin' of t.j is \(value) (${params.strict ? 1 : params.maxAttempts}), outside 1 to 1000"
        )
    }

    @Test("a sub-journey's computed max is evaluated with the params its caller passes")
    func computedMaximumInASubJourney() throws {
        let caller = """
            journey: t.caller
            version: 1
            title: Caller
            start: call
            steps:
              call:
                call: t.j
                with: { maxAttempts: 0 }
                on: { done: ok, failed: ok }
            ends:
              ok: { kind: success }
            """
        let (library, diagnostics) = compile([Self.computed, caller])
        let lib = try #require(library, "\(diagnostics)")
        var m = JourneyMachine(library: lib, journey: try #require(lib["t.caller"]), device: DeviceState())
        let action = m.handle(.start)
        #expect(action.failure?.hasPrefix("'max' of limit 'pin' of t.j is 0") == true, "\(action)")
    }
}
