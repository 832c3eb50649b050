// `auth.otp-replay`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/otpReplay``: a TOTP check without the period of the last code used, kept
    /// where a restart keeps it and set when a code is valid; an HOTP check whose counter is
    /// not kept in `stored`, or never moved on.
    mutating func oneTimeCodes() {
        // A journey that checks no code has nothing to look for, and no other journey to read
        // (in a project of thousands, gathering them all for each would cost their square).
        guard journey.steps.contains(where: { ["otp.totp", "otp.hotp"].contains($0.handlerID ?? "") }) else {
            return
        }
        // Stored values are the device's: a journey of the project may move a counter on
        // (when a code is sent, say) for another to check it.
        let journeys = [journey] + all.values.filter { $0.id.value != journey.id.value }
        /// Whether a transition sets stored `name` on from where it was: from the outcome's
        /// `counter`, or from itself (`${stored.counter + 1}`); setting it to a constant is no move.
        func movedOn(_ name: String) -> Bool {
            journeys.contains { j in
                (j.steps.flatMap { $0.transitions.flatMap(\.transition.branches) }
                    + j.limits.flatMap(\.exceeded.branches))
                    .flatMap(\.assignments).contains { assignment in
                        assignment.target.value.scope == .stored && assignment.target.value.name == name
                            && assignment.value.references.contains {
                                $0 == ["outcome", "counter"] || $0 == ["stored", name]
                            }
                    }
            }
        }
        func stored(_ value: RawValue?) -> String? {
            value?.references.first { $0.count == 2 && $0[0] == "stored" }.map { $0[1] }
        }
        // A value a calling journey gives (`${params.lastStep}`) is that journey's to keep.
        func given(_ value: RawValue?) -> Bool {
            value?.references.contains { $0.count == 2 && $0[0] == "params" } ?? false
        }
        for step in journey.steps {
            guard let handler = step.handlerID, ["otp.totp", "otp.hotp"].contains(handler),
                step.parameter("code") != nil
            else { continue }
            let id = step.id.value
            if handler == "otp.hotp" {
                if given(step.parameter("counter")) { continue }
                guard let counter = stored(step.parameter("counter")) else {
                    find(
                        .otpReplay,
                        "step '\(id)' checks an HOTP code against a counter the device does not keep: after a restart the same code is good again; keep the counter in stored and move it on (RFC 4226 7.2)",
                        at: step.id.location)
                    continue
                }
                if !movedOn(counter) {
                    find(
                        .otpReplay,
                        "step '\(id)' checks an HOTP code against stored.\(counter), which no transition moves on: a code accepted once is accepted again; set it from outcome.counter when the code is valid, or move it on when a code is sent (RFC 4226 7.2)",
                        at: step.id.location)
                }
                continue
            }
            // A TOTP check: the period of the last code used, kept, and set when one is valid.
            if given(step.parameter("lastStep")) { continue }
            let valid = step.transitions.first { $0.outcome.value == "valid" }?.transition.branches ?? []
            guard let last = stored(step.parameter("lastStep")),
                !valid.isEmpty,
                valid.allSatisfy({ branch in
                    branch.assignments.contains {
                        $0.target.value.scope == .stored && $0.target.value.name == last
                            && $0.value.references.contains(["outcome", "step"])
                    }
                })
            else {
                find(
                    .otpReplay,
                    "step '\(id)' accepts a TOTP code without refusing one already used: the same code signs in again within its period (seen over a shoulder, or phished); give it 'lastStep: \"${stored.lastStep}\"' and set stored.lastStep from outcome.step when the code is valid (RFC 6238 5.2)",
                    at: step.id.location)
                continue
            }
        }
    }
}
