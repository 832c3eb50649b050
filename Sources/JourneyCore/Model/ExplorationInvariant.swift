/// The invariants every exploration checks, each with a stable id.
public enum ExplorationInvariant: String, Sendable, Hashable, CaseIterable {
    /// From every reachable state an end can still be reached: no trap, no loop without a way out.
    case reachesAnEnd = "explore.reaches-an-end"
    /// No path makes the run fail (a handler's error, a runaway loop).
    case neverFails = "explore.never-fails"
    /// No app restart, and no clock jump but the end of a lockout, lowers an attempt counter.
    case counterSurvives = "explore.counter-survives"
    /// An attempt limit leads to its `exceeded` target: no user's move lowers its counter but
    /// the outcomes its steps count (the last, which takes `exceeded`) or reset on.
    case exceededTarget = "explore.exceeded-target"
    /// No secret reaches a transcript: no value typed into a secret input, or kept secret in the
    /// journey's state, store or params, shows in what a move records.
    case noSecretLeak = "explore.no-secret-leak"
    /// No path reaches a success end without passing a step that verifies a credential, in a
    /// journey that has such steps (`verifies: credential`, or a handler that verifies one).
    case credentialBeforeSuccess = "explore.credential-before-success"

    /// What the invariant asks, in one sentence.
    public var rule: String {
        switch self {
        case .reachesAnEnd: "From every reachable state an end can still be reached without killing the app."
        case .neverFails: "No path makes the run fail: no handler error, no runaway loop."
        case .counterSurvives:
            "No app restart, and no clock jump but the end of a lockout, lowers an attempt counter."
        case .exceededTarget:
            "An attempt limit leads to its exceeded target: no way round it (a step that clears the count) lowers its counter."
        case .noSecretLeak: "No secret reaches a transcript on any path."
        case .credentialBeforeSuccess:
            "No path reaches a success end without passing a step that verifies a credential (a PIN that opens its seal, a code the provider exchanges), in a journey that has such steps."
        }
    }
}

extension ExplorationInvariant {
    /// The id without its `explore.` prefix, for file names.
    public var name: String { String(rawValue.dropFirst("explore.".count)) }
}
