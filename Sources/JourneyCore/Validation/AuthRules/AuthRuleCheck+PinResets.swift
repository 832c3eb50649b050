// `auth.pin-reset-unverified`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/unverifiedReset``: a `pin.save` of the key a `pin.verify` checks, reached from
    /// that check by any way but the PIN being right or missing (its "Forgot PIN?", a wrong PIN,
    /// its limit spent), without a credential checked on the way or the store wiped: whoever
    /// holds the phone chooses a new PIN and gets in.
    mutating func pinResets() {
        for verify in journey.steps where verify.handlerID == "pin.verify" {
            guard let key = key(of: verify) else { continue }
            var queue = verify.transitions.filter { !["correct", "missing"].contains($0.outcome.value) }
                .flatMap { $0.transition.branches.map(\.target.value) }
            queue += journey.limit(chargedBy: verify)?.exceeded.branches.map(\.target.value) ?? []
            // A wipe that keeps the PIN leaves the data it guards too.
            func wipes(_ step: Step) -> Bool { self.wipes(step, removing: [key]) }
            func seals(_ step: Step) -> Bool { step.handlerID == "pin.save" && self.key(of: step) == key }
            // A new PIN compared with the one kept (`differentFrom`): its `same` says whether a
            // guess is the PIN, charging no limit.
            func compares(_ step: Step) -> Bool {
                step.handlerID == "pin.entry" && resolved(step.parameter("differentFrom")) == key
            }
            var seen = Set<String>()
            while let id = queue.popLast() {
                guard id != verify.id.value, seen.insert(id).inserted, let step = steps[id] else { continue }
                // Through a call, its journey's steps (and those of the journeys it calls) are
                // looked at as one: a sign-in or a wipe there ends the way, as does a journey
                // not in the project.
                let looked: [Step]
                let onward: [String]
                if case .call = step.kind {
                    // The called journey's steps on the ways that neither sign in nor wipe, and
                    // on by the ends those reach.
                    guard let walked = walk(calledBy: step, stoppingAt: wipes) else { continue }
                    looked = walked.steps
                    let verified = verifiedOutcomes(step) ?? []
                    onward = branches(of: step, after: walked.ends.subtracting(verified)).map(\.target.value)
                } else {
                    // A credential checked stops the way by the outcomes that verify it; a
                    // password refused, a wrong PUK or a cancel verified nothing.
                    if wipes(step) { continue }
                    looked = [step]
                    onward = branches(from: step, in: journey, closed: verifiedOutcomes(step) ?? []).map(\.target.value)
                }
                // What the step does, or the journey it calls does, said of it.
                func does(_ what: String) -> String {
                    if case .call(let callee) = step.kind {
                        "step '\(step.id.value)' calls \(callee.value), which \(what),"
                    } else {
                        "step '\(step.id.value)' \(what)"
                    }
                }
                let unverified =
                    "on a way from step '\(verify.id.value)' where the PIN was not right (\"Forgot PIN?\", a wrong PIN, its limit spent) and no credential was checked"
                if looked.contains(where: compares) {
                    find(
                        .unverifiedReset,
                        "\(does("compares a new PIN with the one under '\(key)' (differentFrom)")) \(unverified): its 'same' tells whoever holds the phone whether a guess is the PIN, with no limit counting; check a credential first (the code sent to the account, a sign-in), or compare after it",
                        at: step.id.location)
                    break
                }
                if looked.contains(where: seals) {
                    find(
                        .unverifiedReset,
                        "\(does("seals a new PIN under '\(key)'")) \(unverified): whoever holds the phone chooses a PIN and gets in; sign in again first (a step that verifies a credential), or wipe what the PIN guards (session.clear)",
                        at: step.id.location)
                    break
                }
                queue += onward
            }
        }
    }
}
