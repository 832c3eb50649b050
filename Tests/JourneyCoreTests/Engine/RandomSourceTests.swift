import Testing

@testable import JourneyCore

/// Randomness and time reach handlers through their context: secure and real in normal runs,
/// seeded and pinned when the run's configuration asks.
@Suite("Random source and wall clock")
struct RandomSourceTests {
    @Test(arguments: [0, 1, 7, 8, 9, 16, 33, 128])
    func bytesComeInTheCountAsked(count: Int) {
        var seeded = RandomSource.seeded(1)
        var system = RandomSource.system
        #expect(seeded.bytes(count).count == count)
        #expect(system.bytes(count).count == count)
    }

    @Test func aSeedGivesTheSameBytesEveryTime() {
        var a = RandomSource.seeded(42)
        var b = RandomSource.seeded(42)
        var other = RandomSource.seeded(43)
        let first = a.bytes(32)
        #expect(first == b.bytes(32))
        #expect(first != other.bytes(32))
        #expect(a.bytes(32) != first, "the stream moves on")
        #expect(a.isSeeded && !RandomSource.system.isSeeded)
    }

    @Test func aCopyDrawsWhatItsOriginalWould() {
        var original = RandomSource.seeded(7)
        _ = original.bytes(5)
        var copy = original
        #expect(copy == original)
        #expect(copy.bytes(16) == original.bytes(16))
    }

    @Test func theSystemSourceIsNotRepeatable() {
        var a = RandomSource.system
        var b = RandomSource.system
        #expect(a.bytes(32) != b.bytes(32))
    }

    @Test func aPinnedWallClockStandsStill() {
        #expect(WallClock.pinned(milliseconds: 1_767_225_600_000).milliseconds == 1_767_225_600_000)
        // The system's clock is past the day this was written.
        #expect(WallClock.system.milliseconds > 1_764_000_000_000)
    }

    /// Reports what its context gives it: random bytes and the wall clock.
    struct ProbeHandler: StepHandler {
        let contract = HandlerContract(
            id: "t.probe", summary: "",
            outcomes: [
                OutcomeSpec(
                    name: "done", summary: "",
                    data: [
                        DataSpec(name: "bytes", type: TypeInfo(.string)), DataSpec(name: "wall", type: TypeInfo(.int)),
                    ]
                )
            ])

        nonisolated(nonsending) func run(
            _ invocation: HandlerInvocation, context: HandlerContext
        ) async throws -> HandlerResult {
            let bytes = context.random.bytes(16).map { String($0, radix: 16) }.joined(separator: ".")
            return HandlerResult("done", data: ["bytes": .string(bytes), "wall": .int(context.wallClock)])
        }
    }

    final class NoInput: InputDriver {
        nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
            throw HandlerError("no input in this test")
        }
    }

    func probe(_ configuration: JourneyMachine.Configuration) async throws -> [String: Value] {
        let text = journey(
            steps: """
                  a:
                    handler: t.probe
                    on:
                      done:
                        set: { state.bytes: "${outcome.bytes}", state.wall: "${outcome.wall}" }
                        to: done
                """,
            extra: "state:\n  bytes: { type: string }\n  wall: { type: int }")
        let (library, diagnostics) = compile([text], handlers: try HandlerRegistry([ProbeHandler()]))
        let lib = try #require(library, "\(diagnostics)")
        let outcome = await JourneyRunner(configuration: configuration).run(
            try #require(lib["t.j"]), in: lib, device: DeviceState(), driver: NoInput(),
            transcript: TranscriptBuffer())
        #expect(outcome.result.end == "done")
        return outcome.rootState
    }

    @Test func handlersTakeRandomnessAndTimeFromTheirContext() async throws {
        let seeded = JourneyMachine.Configuration(random: .seeded(9), wallClock: .pinned(milliseconds: 1_000_000))
        let a = try await probe(seeded)
        let b = try await probe(seeded)
        #expect(a["bytes"] == b["bytes"], "a seeded run draws the same bytes every time")
        #expect(a["wall"] == .int(1_000_000))
        var expected = RandomSource.seeded(9)
        let bytes = expected.bytes(16).map { String($0, radix: 16) }.joined(separator: ".")
        #expect(a["bytes"] == .string(bytes))

        let normal = try await probe(JourneyMachine.Configuration())
        let again = try await probe(JourneyMachine.Configuration())
        #expect(normal["bytes"] != again["bytes"], "a normal run draws from the system's generator")
        #expect(normal["wall"] != .int(1_000_000))
    }
}
