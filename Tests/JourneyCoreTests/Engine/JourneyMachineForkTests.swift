import Testing

@testable import JourneyCore

/// The machine as a value: copies fork a run and share nothing, snapshots compare and hash
/// where a run is, and records reach a caller's sink the same way however it takes them.
@Suite("Journey machine: forks and snapshots")
struct JourneyMachineForkTests {
    static let text = journey(
        steps: """
              a:
                handler: t.check
                attempts: { limit: pin, counts: [wrong], resets: [correct] }
                on:
                  correct: b
                  wrong:
                    set: { state.misses: "${state.misses + 1}" }
                    to: a
                  cancel: failed
              b:
                handler: t.step
                on: { next: done, back: a }
            """,
        extra: """
            state:
              misses: { type: int, default: 0 }
            stored:
              failures: { type: int, default: 0 }
            limits:
              pin: { max: 3, counter: stored.failures, exceeded: failed }
            """)

    @Test func forksDrivenApartShareNothing() throws {
        var original = try machine(Self.text, random: .seeded(21))
        #expect(original.handle(.start).step == "a")
        _ = original.takeRecords()
        _ = original.random.bytes(8)  // the handler of `a` has drawn before the fork
        let before = original.snapshot()

        var left = original
        var right = original
        #expect(left.snapshot() == before && right.snapshot() == before, "a fork starts where its original is")
        #expect(left.currentInvocation?.step == "a", "a fork knows what to run next")

        // Each fork draws from its own copy of the seeded stream: the left's draws do not move
        // the right's, so the right draws the same bytes after them, then draws on alone.
        let leftSalt = left.random.bytes(16)
        _ = left.random.bytes(16)
        #expect(right.random.bytes(16) == leftSalt)
        #expect(left.random != right.random)

        // The left fork gets a wrong PIN, charged first; the right one the correct PIN.
        _ = left.handle(.store("seen", .string("left")))
        _ = left.handle(.chargeAttempt)
        #expect(left.handle(.complete(HandlerResult("wrong"))).step == "a")
        _ = right.handle(.store("seen", .string("right")))
        #expect(right.handle(.complete(HandlerResult("correct"))).step == "b")

        // Stores, counters and state went their own ways.
        #expect(left.device.store["seen"] == .string("left"))
        #expect(right.device.store["seen"] == .string("right"))
        #expect(left.device.store["failures"] == .int(1))
        #expect(right.device.store["failures"] == .int(0), "a correct PIN resets the count")
        #expect(left.rootState["misses"] == .int(1))
        #expect(right.rootState["misses"] == .int(0))
        #expect(left.currentStep == "a" && right.currentStep == "b")

        // So did their records.
        let leftRecords = left.takeRecords().map(\.event.name)
        let rightRecords = right.takeRecords().map(\.event.name)
        #expect(leftRecords.contains("attempt") && leftRecords.contains("state.set"))
        #expect(rightRecords.filter { $0 == "step.enter" }.count == 1)
        #expect(leftRecords != rightRecords)

        // And their snapshots; the original is where it was, with nothing new to record.
        let (l, r) = (left.snapshot(), right.snapshot())
        #expect(l != r && l != before && r != before)
        #expect(original.snapshot() == before)
        #expect(original.takeRecords().isEmpty)
        #expect(original.device.store["seen"] == nil)
        #expect(original.currentStep == "a")
        var unmoved = original.random
        #expect(unmoved.bytes(16) == leftSalt, "the original's stream is where the forks started")

        // Driving one fork to its end leaves the other where it is.
        #expect(right.handle(.complete(HandlerResult("next"))).end == "done")
        #expect(right.result?.end == "done")
        #expect(left.snapshot() == l)
        #expect(left.result == nil)
        #expect(original.snapshot() == before)
    }

    @Test func aSeededStreamIsGrowthInTheSnapshot() throws {
        var m = try machine(Self.text, random: .seeded(4))
        _ = m.handle(.start)
        var drawn = m
        _ = drawn.random.bytes(32)
        #expect(drawn.snapshot() != m.snapshot(), "the stream's position is where the run is")
        #expect(drawn.snapshot(includingGrowth: false) == m.snapshot(includingGrowth: false))
        #expect(m.snapshot().random == .seeded(4))

        // The system's stream has no position: forks draw different bytes and never repeat.
        var system = try machine(Self.text)
        _ = system.handle(.start)
        var (left, right) = (system, system)
        #expect(left.random.bytes(32) != right.random.bytes(32))
        #expect(left.snapshot() == right.snapshot())
    }

    /// Two paths to `b`: straight from `a`, and from `a` back to `a` first, a minute later.
    func twoPathsToB() throws -> (short: JourneyMachine, long: JourneyMachine) {
        var short = try machine(Self.text)
        _ = short.handle(.start)
        _ = short.handle(.complete(HandlerResult("correct")))

        var long = try machine(Self.text)
        _ = long.handle(.start)
        _ = long.handle(.complete(HandlerResult("correct")))
        _ = long.handle(.complete(HandlerResult("back")))
        _ = long.handle(.advanceClock(milliseconds: 60_000, reason: "test"))
        _ = long.handle(.complete(HandlerResult("correct")))
        #expect(short.currentStep == "b" && long.currentStep == "b")
        return (short, long)
    }

    @Test func snapshotsLeaveOutWhatOnlyGrowsWhenAsked() throws {
        let (short, long) = try twoPathsToB()
        #expect(short.stepsTaken == 2 && long.stepsTaken == 4)
        #expect(short.snapshot(includingGrowth: false) == long.snapshot(includingGrowth: false))
        #expect(short.snapshot() != long.snapshot())
        #expect(short.snapshot(includingGrowth: false).stepsTaken == nil)
        #expect(short.snapshot().stepsTaken == 2)
        #expect(long.snapshot().clock == short.snapshot().clock.map { $0 + 60_000 })
    }

    @Test func snapshotsAreHashable() throws {
        let (short, long) = try twoPathsToB()
        let fresh = try machine(Self.text)
        let withoutGrowth: Set = [
            short.snapshot(includingGrowth: false), long.snapshot(includingGrowth: false),
            fresh.snapshot(includingGrowth: false),
        ]
        #expect(withoutGrowth.count == 2, "the two paths meet at b; the fresh machine is elsewhere")
        let withGrowth: Set = [short.snapshot(), long.snapshot(), fresh.snapshot()]
        #expect(withGrowth.count == 3)
    }

    @Test func snapshotsTellThePhase() throws {
        var m = try machine(Self.text)
        #expect(m.snapshot().phase == .idle)
        #expect(m.snapshot().frames.isEmpty)
        _ = m.handle(.start)
        let at = m.snapshot()
        #expect(at.phase == .atStep)
        #expect(at.frames.map(\.step) == ["a"])
        #expect(at.frames.first?.state["misses"] == .int(0))
        _ = m.handle(.complete(HandlerResult("cancel")))
        #expect(m.snapshot().phase == .finished(end: "failed", kind: .failure))
        var broken = try machine(Self.text)
        _ = broken.handle(.start)
        _ = broken.handle(.fail("no network"))
        #expect(broken.snapshot().phase == .failed("handler 't.check' failed: no network"))
    }

    @Test func midStepEventsAnswerProceed() throws {
        var m = try machine(Self.text)
        // Before the run starts there is no step to charge or record for.
        guard case .proceed = m.handle(.chargeAttempt) else {
            Issue.record("charging before the start is not an action")
            return
        }
        guard case .proceed = m.handle(.recordInput(["pin": .string("1")])) else {
            Issue.record("input before the start is not an action")
            return
        }
        #expect(m.takeRecords().isEmpty)
        _ = m.handle(.start)
        guard case .proceed = m.handle(.store("k", .int(1))) else {
            Issue.record("a store is not an action")
            return
        }
        guard case .proceed = m.handle(.recordHTTP(method: "GET", url: "https://x/?code=1", status: 200, error: nil))
        else {
            Issue.record("an HTTP exchange is not an action")
            return
        }
        #expect(m.currentStep == "a", "a mid-step event leaves the machine at its step")
        let http = m.takeRecords().compactMap { record -> String? in
            if case .http(_, _, let url, _, _) = record.event { return url }
            return nil
        }
        #expect(http == [URLRedaction.redact("https://x/?code=1")])
    }

    @Test func aLentSinkGetsTheRecordsTheQueueWouldHold() throws {
        func drive(_ m: inout JourneyMachine, _ handle: (inout JourneyMachine, JourneyMachine.Event) -> Void) {
            handle(&m, .start)
            handle(&m, .chargeAttempt)
            handle(&m, .complete(HandlerResult("wrong")))
            handle(&m, .restart)
            handle(&m, .complete(HandlerResult("correct")))
            handle(&m, .complete(HandlerResult("next")))
        }
        var queued = try machine(Self.text)
        drive(&queued) { m, event in _ = m.handle(event) }
        let drained = TranscriptBuffer()
        queued.drainRecords(into: drained)

        var lending = try machine(Self.text)
        let lent = TranscriptBuffer()
        drive(&lending) { m, event in _ = m.handle(event, recordingInto: lent) }

        #expect(!drained.records.isEmpty)
        #expect(lent.records == drained.records)
        #expect(queued.takeRecords().isEmpty, "draining empties the queue")
        #expect(lending.takeRecords().isEmpty, "a lent sink leaves nothing queued")
        #expect(lending.snapshot() == queued.snapshot())
    }
}
