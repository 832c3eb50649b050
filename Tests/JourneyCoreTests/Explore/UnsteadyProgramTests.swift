import Testing

@testable import JourneyCore

/// What the explorer says of a program declared deterministic that ended a step otherwise the
/// second time it ran it from the same state.
@Suite("A program that is not as steady as declared")
struct UnsteadyProgramTests {
    static func asked(_ inputs: [String]) -> JourneyExplorer.StepAnswer {
        .asked(
            InputRequest(
                journey: "a", step: "s",
                inputs: inputs.map { InputSpec(name: $0, type: TypeInfo(.string), summary: "") }, screen: nil))
    }

    @Test("an ask names what it asked for, and an ask for input no contract declares says so")
    func askedIsShownWithItsInputs() {
        #expect(Self.asked(["username", "password"]).shown == "asked for username, password")
        #expect(Self.asked([]).shown == "asked for input")
        let left = JourneyExplorer.unsteady("a", "s", "acme.h", first: Self.asked([]), then: Self.asked(["pin"]))
        #expect("\(left)".contains("asked for input, then asked for pin"), "\(left)")
    }
}
