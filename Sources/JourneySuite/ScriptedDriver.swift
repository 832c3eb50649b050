import JourneyCore

/// The driver that plays a scenario's script: the inputs for each step, in order, plus
/// restarts and clock advances. Input meant for another step stops the run with a message
/// naming both steps and the script line.
public final class ScriptedDriver: InputDriver {
    private let script: [CompiledScenario.Entry]
    /// Whether the run stops, waiting, when the script runs out (the scenario `expect`s `at:` a
    /// step), rather than failing.
    private let stopsWhenDone: Bool
    public private(set) var position = 0

    public init(script: [CompiledScenario.Entry], stopsWhenDone: Bool = false) {
        self.script = script
        self.stopsWhenDone = stopsWhenDone
    }

    /// Script entries the run did not use.
    public var remaining: ArraySlice<CompiledScenario.Entry> { script[position...] }

    public nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
        guard position < script.count else {
            if stopsWhenDone { throw RunInterruption.waiting }
            let asks = request.inputs.map(\.name).joined(separator: ", ")
            throw RunInterruption.abort(
                "the script has no more entries, but the journey waits at step '\(request.step)' for \(asks.isEmpty ? "input" : asks)"
            )
        }
        let index = position
        position += 1
        // The entry's kind only: its location is read only to report a mismatch.
        switch script[index].kind {
        case .restart: return .restart
        case .advance(let ms): return .advance(milliseconds: ms)
        case .online(let online): return .network(online: online)
        case .input(let step, let values):
            guard step == request.step else {
                throw RunInterruption.abort(
                    "scenario gives input for step '\(step)' (line \(script[index].location.line)), the journey is at step '\(request.step)'"
                )
            }
            if let reason = script[index].refused {
                return .refusedInput(values, reason: reason, line: script[index].location.line)
            }
            return .input(values)
        }
    }
}
