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
    /// journey that has such steps (`verifies: credential`, or a handler that verifies one), or
    /// that calls a journey that has them.
    case credentialBeforeSuccess = "explore.credential-before-success"
    /// The journey is explored at all: it starts on the default device with its params'
    /// defaults, or where one of its scenarios among the files starts, against that scenario's
    /// stubs. One no start can run (a param with no default, and every scenario needing a live
    /// service) is not explored; a journey out of the explorer's scope on purpose (a harness
    /// around a live server) declares it with the reason.
    case explorable = "explore.explorable"

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
            "No path reaches a success end without passing a step that verifies a credential (a PIN that opens its seal, a code the provider exchanges), in a journey that has such steps or calls one that has."
        case .explorable:
            "The journey is explored: it starts on the default device with its params' defaults, or where one of its scenarios starts, against that scenario's stubs (not a live service)."
        }
    }
}

extension ExplorationInvariant {
    /// The id without its `explore.` prefix, for file names.
    public var name: String { String(rawValue.dropFirst("explore.".count)) }
}
