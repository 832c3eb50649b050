import Testing

@testable import JourneyCore

/// What a handler of one's own reads its step with: parameters by type, and the driver's
/// answer to the step's request, an action checked against the screen as it shows.
@Suite("Reading parameters and asking the driver")
struct HandlerReadingTests {
    static func invocation(_ parameters: [String: Value], screen: RenderedScreen? = nil) -> HandlerInvocation {
        HandlerInvocation(
            journey: "t.j", step: "risk", parameters: parameters, maps: [:], screen: screen,
            contract: StepContract(
                inputs: [InputSpec(name: "code", type: TypeInfo(.string, secret: true), summary: "")], outcomes: []))
    }

    /// A driver that answers every request with `reply` and keeps what it was asked.
    final class Answering: HandlerContext {
        let reply: [String: Value]
        var asked: [InputRequest] = []
        var random = RandomSource.seeded(1)
        let device = DeviceProfile()
        let now = 0
        let wallClock = 0
        let storedKeys: [String] = []
        let refusesInput: Bool

        /// - Parameter refusesInput: whether the context says it refuses what the step does not take.
        init(_ reply: [String: Value], refusesInput: Bool = false) {
            self.reply = reply
            self.refusesInput = refusesInput
        }

        nonisolated(nonsending) func input(_ request: InputRequest) async throws -> [String: Value] {
            asked.append(request)
            return reply
        }
        func wait(milliseconds: Int, reason: String) {}
        func stored(_ key: String) -> Value? { nil }
        func store(_ key: String, _ value: Value?) {}
        func chargeAttempt() {}
        nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw NetworkError.offline
        }
    }

    @Test func parametersAreReadByTypeAndSecretsRevealedToCompute() throws {
        let step = Self.invocation([
            "name": .string("ada"), "token": .secret(.string("t-1")), "empty": .string(""),
            "limit": .int(70), "strict": .bool(true), "away": .duration(90_000),
            "apps": .list([.string("cydia"), .int(3), .string("sileo")]),
        ])
        #expect(try step.text("name") == "ada")
        #expect(try step.text("token") == "t-1")
        #expect(step.optionalText("empty") == nil)
        #expect(step.optionalText("name") == "ada")
        #expect(step.optionalText("absent") == nil)
        #expect(try step.int("limit") == 70)
        #expect(try step.duration("away") == 90_000)
        #expect(try step.bool("strict") == true)
        #expect(try step.bool("absent") == false)
        #expect(try step.bool("absent", default: true) == true)
        #expect(step.strings("apps") == ["cydia", "sileo"])
        #expect(step.strings("absent") == [])
    }

    @Test func aMissingOrMistypedParameterIsAnErrorNamingItAndTheStep() {
        let step = Self.invocation(["limit": .string("70"), "name": .int(1), "strict": .string("yes")])
        #expect(throws: HandlerError("parameter 'name' of step 'risk' is missing or not a text")) {
            try step.text("name")
        }
        #expect(throws: HandlerError("parameter 'absent' of step 'risk' is missing or not a text")) {
            try step.text("absent")
        }
        #expect(throws: HandlerError("parameter 'limit' of step 'risk' is missing or not an int")) {
            try step.int("limit")
        }
        #expect(throws: HandlerError("parameter 'limit' of step 'risk' is missing or not a duration")) {
            try step.duration("limit")
        }
        #expect(throws: HandlerError("parameter 'strict' of step 'risk' is not a bool")) {
            try step.bool("strict")
        }
    }

    @Test func askReturnsTheActionOrTheValuesTheDriverGave() async throws {
        let screen = RenderedScreen(
            title: "Code", text: nil,
            actions: [
                RenderedScreen.Action(id: "cancel", label: "Cancel", enabled: true),
                RenderedScreen.Action(id: "resend", label: "Resend", enabled: false),
            ], fields: [])
        let typed = Answering(["code": .secret(.string("123456"))])
        let (action, code) = try await typed.askText("code", Self.invocation([:], screen: screen))
        #expect(action == nil && code == "123456")
        #expect(typed.asked.map(\.step) == ["risk"])
        #expect(typed.asked.first?.inputs.map(\.name) == ["code"])

        let pressed = Answering(["action": .string("cancel")])
        let (chosen, text) = try await pressed.askText("code", Self.invocation([:], screen: screen))
        #expect(chosen == "cancel" && text == "")

        let disabled = Answering(["action": .string("resend")])
        await #expect(throws: HandlerError("action 'resend' is disabled on step 'risk'; it cannot be pressed")) {
            _ = try await disabled.ask(Self.invocation([:], screen: screen))
        }
        // A context that says it refuses what the step does not take (the runner's) is not
        // checked again: the action it gives is the handler's.
        let trusted = Answering(["action": .string("resend")], refusesInput: true)
        #expect(try await trusted.ask(Self.invocation([:], screen: screen)).action == "resend")
        let nothing = Answering([:])
        await #expect(throws: HandlerError("step 'risk' needs a 'code' or an 'action'")) {
            _ = try await nothing.askText("code", Self.invocation([:], screen: screen))
        }
        let empty = Answering(["code": .string("")])
        await #expect(throws: HandlerError("step 'risk' needs a 'code' or an 'action'")) {
            _ = try await empty.askText("code", Self.invocation([:], screen: screen), allowEmpty: false)
        }
    }
}
