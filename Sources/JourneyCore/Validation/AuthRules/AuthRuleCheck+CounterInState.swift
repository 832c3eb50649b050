// `auth.counter-in-state`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/counterInState``: a limit counting in `state`.
    mutating func counters() {
        for limit in journey.limits where limit.counter.value.scope == .state {
            find(
                .counterInState,
                "limit '\(limit.name.value)' counts in \(limit.counter.value), which an app restart resets: keep it in stored, so that restarting the app cannot buy more attempts",
                at: limit.counter.location)
        }
    }
}
