import JourneyCore

/// The driver that plays a scenario's script: the inputs for each step, in order, plus
/// restarts and clock advances. Input meant for another step stops the run with a message
/// naming both steps and the script line.
public final class ScriptedDriver: InputDriver {
    private let script: [CompiledScenario.Entry]
    /// Whether the run stops, waiting, when the script runs out (the scenario `expect`s `at:` a
    /// step), rather than failing.
    private let stopsWhenDone: Bool
    /// Whether the script is a path to follow (a counterexample's): an entry the journey no
    /// longer lets it play, an action it refuses included, stops the run and is said in
    /// ``pathGone``.
    private let followsAPath: Bool
    public private(set) var position = 0
    /// Where a path followed left the journey (``followsAPath``): the script line and why
    /// the journey does not go that way. Nil while the path holds.
    public private(set) var pathGone: String?

    public init(script: [CompiledScenario.Entry], stopsWhenDone: Bool = false, followsAPath: Bool = false) {
        self.script = script
        self.stopsWhenDone = stopsWhenDone
        self.followsAPath = followsAPath
    }

    /// Script entries the run did not use.
    public var remaining: ArraySlice<CompiledScenario.Entry> { script[position...] }

    public nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
        guard position < script.count else {
            if stopsWhenDone { throw RunInterruption.waiting }
            let asks = request.inputs.map(\.name).joined(separator: ", ")
            if followsAPath { pathGone = "the script ends with the journey waiting at step '\(request.step)'" }
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
            let line = script[index].location.line
            guard step == request.step else {
                if followsAPath {
                    pathGone = "line \(line) gives input for step '\(step)', the journey is at step '\(request.step)'"
                }
                throw RunInterruption.abort(
                    "scenario gives input for step '\(step)' (line \(line)), the journey is at step '\(request.step)'"
                )
            }
            if let reason = script[index].refused {
                return .refusedInput(values, reason: reason, line: line)
            }
            if followsAPath, let refusal = request.refusal(of: values) {
                pathGone = "line \(line): \(refusal)"
                throw RunInterruption.abort(refusal)
            }
            return .input(values)
        }
    }
}
