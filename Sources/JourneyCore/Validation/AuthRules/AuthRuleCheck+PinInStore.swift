// `auth.pin-in-store`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/pinInStore``: a stored value set from a PIN, directly or through state.
    mutating func pinsInTheStore() {
        let holdsPIN = typedPINState
        for (assignment, fromPIN) in assignments where assignment.target.value.scope == .stored {
            // What only measures or compares the PIN (len, ==) keeps none of it.
            let paths = assignment.value.carriedReferences
            guard
                (fromPIN && paths.contains(["outcome", "pin"]))
                    || paths.contains(where: { $0.count >= 2 && $0[0] == "state" && holdsPIN.contains($0[1]) })
            else { continue }
            find(
                .pinInStore,
                "\(assignment.target.value) is set from a PIN the user typed: the device would keep the PIN itself; seal it with pin.save, which keeps only a key derived from it",
                at: assignment.target.location)
        }
    }
}
