// `auth.counter-in-state`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/counterInState``: a limit counting in `state`, unless every step charging it
    /// confirms a PIN the same person has just chosen (`pin.repeat`, or a `ui.pin` whose
    /// `expected` is the PIN typed on the pad before it): a restart there starts the choice
    /// over, and the count guards nothing the device keeps.
    mutating func counters() {
        let typed = typedPINState
        for limit in journey.limits where limit.counter.value.scope == .state {
            let charging = journey.steps.filter { $0.attempts?.limit.value == limit.name.value }
            let confirmsOnly =
                !charging.isEmpty
                && charging.allSatisfy {
                    $0.handlerID == "pin.repeat" || $0.handlerID == "ui.pin" && confirmsChosenPIN($0, typed: typed)
                }
            if confirmsOnly { continue }
            find(
                .counterInState,
                "limit '\(limit.name.value)' counts in \(limit.counter.value), which an app restart resets: keep it in stored, so that restarting the app cannot buy more attempts",
                at: limit.counter.location)
        }
    }
}
