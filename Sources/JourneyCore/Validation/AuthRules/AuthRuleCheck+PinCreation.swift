// `auth.weak-pin` and `auth.pin-reuse`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/weakPIN`` and ``AuthRule/pinReuse``: PIN creation without a weak-PIN policy,
    /// and a PIN change that does not check the new PIN against the old.
    mutating func pinCreation() {
        let saves = journey.steps.filter { $0.handlerID == "pin.save" }
        let entries = journey.steps.filter { $0.handlerID == "pin.entry" }
        // Neither chosen nor sealed here: nothing to look for, and no other journey to read (in
        // a project of thousands, looking through them all for each would cost their square).
        guard !saves.isEmpty || !entries.isEmpty else { return }
        // A PIN chosen here may be sealed by a journey this one calls, or by one that calls it
        // (the PIN given back as an output): creation all the same.
        let sealedElsewhere =
            saves.isEmpty
            && (seals(journey)
                || all.values.contains { caller in
                    caller.id.value != journey.id.value
                        && caller.steps.contains { step in
                            if case .call(let callee) = step.kind { callee.value == journey.id.value } else { false }
                        } && seals(caller)
                })
        guard !saves.isEmpty || sealedElsewhere else { return }
        for step in entries {
            // The PIN a policy refuses, kept all the same: 'weak' (or 'same') whose transition
            // takes the PIN typed ('set: { state.newPin: "${outcome.pin}" }') goes on with it.
            for (outcome, transition) in step.transitions where ["weak", "same"].contains(outcome.value) {
                for assignment in transition.branches.flatMap(\.assignments)
                where assignment.value.carriedReferences.contains(["outcome", "pin"]) {
                    let weak = outcome.value == "weak"
                    find(
                        weak ? .weakPIN : .pinReuse,
                        "'\(outcome.value)' at step '\(step.id.value)' sets \(assignment.target.value) from the PIN it refuses \(weak ? "as weak" : "as the PIN it replaces"): the journey goes on with it; ask for another PIN",
                        at: assignment.target.location)
                }
            }
            // A template decides when the step runs; only a policy left out or switched off
            // (literally, or by a param's default) is reported.
            let policy = step.parameter("warnWeak")
            guard policy == nil || resolved(policy) == "false" else { continue }
            find(
                .weakPIN,
                "step '\(step.id.value)' creates a PIN with no weak-PIN policy: give pin.entry 'warnWeak: true' and handle 'weak' (NIST SP 800-63B 5.1.1.2 asks to refuse repetitive, sequential and common secrets)",
                at: step.id.location)
        }
        guard !saves.isEmpty else { return }
        // A PIN chosen on a bare pad (ui.pin with nothing to check it against), which has no
        // policy to offer: the PIN it takes is kept as it is typed.
        let sealed = saves.flatMap { $0.parameter("pin")?.carriedReferences ?? [] }
        for step in journey.steps where step.handlerID == "ui.pin" && step.parameter("expected") == nil {
            // The state the PIN typed here goes into, and on from there; sealed from one of them,
            // it is the PIN chosen (a code typed on the same pad is not).
            let holds = statesCarrying(
                Set(
                    step.transitions.flatMap(\.transition.branches).flatMap(\.assignments).filter {
                        $0.target.value.scope == .state && $0.value.carriedReferences.contains(["outcome", "pin"])
                    }.map(\.target.value.name)))
            guard sealed.contains(where: { $0.count == 2 && $0[0] == "state" && holds.contains($0[1]) }) else {
                continue
            }
            find(
                .weakPIN,
                "step '\(step.id.value)' chooses a PIN on ui.pin, which has no weak-PIN policy: choose it on pin.entry with 'warnWeak: true' and handle 'weak' (NIST SP 800-63B 5.1.1.2 asks to refuse repetitive, sequential and common secrets)",
                at: step.id.location)
        }
        // A change: a new PIN chosen after the one stored under the same key was verified.
        let savedKeys = Set(saves.compactMap { key(of: $0) })
        for verify in journey.steps where verify.handlerID == "pin.verify" {
            guard let key = key(of: verify), savedKeys.contains(key) else { continue }
            let afterCorrect = verify.transitions.filter { $0.outcome.value == "correct" }.flatMap {
                $0.transition.branches.map(\.target.value)
            }
            // Not through a wipe (the PIN is gone: the next is a first one) nor another check
            // of the PIN (a later unlock, whose own `correct` is looked at in turn).
            let reached = reachable(from: afterCorrect) { next in
                ["pin.verify", "session.clear"].contains(next.handlerID ?? "")
            }
            for step in entries where reached.contains(step.id.value) {
                // Only a PIN chosen for the key verified: one sealed under another key (a
                // payment PIN beside the app's) is another PIN.
                let sealed = reachable(from: successors(step)) { $0.handlerID == "pin.save" }
                    .compactMap { steps[$0] }.filter { $0.handlerID == "pin.save" }
                    .map { self.key(of: $0) }
                if !sealed.isEmpty, !sealed.contains(where: { $0 == nil || $0 == key }) { continue }
                let against = step.parameter("differentFrom")
                if against == nil {
                    find(
                        .pinReuse,
                        "step '\(step.id.value)' chooses a new PIN for '\(key)' after the old one was verified, but does not check that it differs: give pin.entry 'differentFrom: \(key)' and handle 'same'",
                        at: step.id.location)
                } else if let other = resolved(against), other != key {
                    find(
                        .pinReuse,
                        "step '\(step.id.value)' chooses a new PIN for '\(key)' but checks that it differs from the PIN under '\(other)', not from the one it replaces: give pin.entry 'differentFrom: \(key)'",
                        at: step.id.location)
                }
            }
        }
    }

    /// Whether `journey` seals a PIN (`pin.save`), or one of the journeys it calls does,
    /// however deep.
    func seals(_ journey: Journey) -> Bool {
        var seen = Set<String>()
        var queue = [journey]
        while let next = queue.popLast() {
            guard seen.insert(next.id.value).inserted else { continue }
            for step in next.steps {
                if step.handlerID == "pin.save" { return true }
                if case .call(let callee) = step.kind, let called = all[callee.value] { queue.append(called) }
            }
        }
        return false
    }
}
