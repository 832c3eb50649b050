import Testing

@testable import JourneyCore

/// A machine for journey `t.j` of `text` (compiled with the test handlers), on a device with
/// `store`, stopping loops after `budget` steps, its handlers drawing from `random`.
func machine(
    _ text: String, store: [String: Value] = [:], budget: Int = 100, random: RandomSource = .system
) throws -> JourneyMachine {
    let (library, diagnostics) = compile([text])
    let lib = try #require(library, "\(diagnostics)")
    return JourneyMachine(
        library: lib, journey: try #require(lib["t.j"]), device: DeviceState(store: store),
        configuration: .init(stepBudget: budget, random: random))
}

/// What an action says, for tests to compare.
extension JourneyMachine.Action {
    /// The step to run, if the action runs one.
    var step: String? {
        if case .runStep(let invocation) = self { return invocation.step }
        return nil
    }

    /// The end reached, if the run finished.
    var end: String? {
        if case .finished(let result) = self { return result.end }
        return nil
    }

    /// Why the run failed, if it did.
    var failure: String? {
        if case .failed(let result) = self { return result.failure }
        return nil
    }
}
