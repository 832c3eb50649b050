// `auth.failure-uncounted`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/uncountedFailure``: a step that checks a credential the user can try again
    /// (its handler's ``HandlerContract/credentialCheck``) whose refusals no attempt limit counts,
    /// or whose count something other than a success sets back; and a limit that, once
    /// exceeded, gives its tries back while the credential stays.
    mutating func refusals() {
        let checks = credentialChecks()
        padsWithCountsOfTheirOwn(checks)
        computedMaximums()
        tooManyTries(checks)
        roundsBoughtBack(checks)
    }

    /// `names` quoted and listed: `'a'`, `'a' and 'b'`, `'a', 'b' or 'c'`.
    private static func listed(_ names: [String], _ conjunction: String) -> String {
        let quoted = names.map { "'\($0)'" }
        return quoted.count < 2
            ? quoted.joined() : quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + quoted.last!
    }

    /// The steps that check a credential the user can try again, by id, each held to its
    /// limit: one with none whose refusals lead back to it, a refusal its limit does not count,
    /// and a reset by an outcome that is no success, are found.
    private mutating func credentialChecks() -> [String: Step] {
        var checks: [String: Step] = [:]
        let typed = typedPINState
        for step in journey.steps {
            guard let handler = step.handlerID, let check = contract(step)?.credentialCheck else { continue }
            // A PIN typed again to confirm the one just chosen, straight after it (kept in state,
            // which no restart keeps), is compared with what the same person typed: there is
            // nothing to guess. One checked later (a lock screen against the PIN of the sign-in)
            // is a check like any other.
            if confirmsChosenPIN(step, typed: typed) { continue }
            // The refusals this step can have: those it handles (`ui.pin` refuses only with `expected`).
            let refusals = step.transitions.filter { check.refused.contains($0.outcome.value) }
            guard !refusals.isEmpty else { continue }
            let id = step.id.value
            checks[id] = step
            guard let charge = step.attempts else {
                // A biometric prompt without a limit is `auth.biometry-unlimited`'s to report.
                guard handler != "biometry.authenticate" else { continue }
                let back = refusals.filter { retries(step, after: $0.transition.branches) }.map(\.outcome)
                guard let first = back.first else { continue }
                let names = back.map(\.value)
                find(
                    .uncountedFailure,
                    "\(Self.listed(names, "and")) at step '\(id)' \(names.count == 1 ? "leads" : "lead") back to it, or to an end after which the app is opened again, with no attempt limit: the \(handler) check can be tried without end; charge a limit that counts \(names.count == 1 ? "it" : "them") ('attempts: {limit: NAME, counts: [\(names.joined(separator: ", "))]}')",
                    at: first.location)
                continue
            }
            let counted = Set(charge.counts.map(\.value))
            let uncounted = refusals.map(\.outcome.value).filter { !counted.contains($0) }
            if !uncounted.isEmpty {
                find(
                    .uncountedFailure,
                    "limit '\(charge.limit.value)' at step '\(id)' does not count \(Self.listed(uncounted, "or")), the \(handler) check's refusal: wrong tries cost nothing; put \(uncounted.count == 1 ? "it" : "them") under 'counts'",
                    at: charge.location)
            }
            for reset in charge.resets where !check.accepted.contains(reset.value) {
                let what =
                    check.refused.contains(reset.value)
                    ? "a refusal of the \(handler) check" : "not a success of the \(handler) check"
                find(
                    .uncountedFailure,
                    "limit '\(charge.limit.value)' at step '\(id)' is set back by '\(reset.value)', \(what): the tries spent before it come back; only \(Self.listed(check.accepted, "or")) may reset it",
                    at: reset.location)
            }
            countWrittenByHand(at: step, check: check, charge: charge)
        }
        return checks
    }

    /// A `set:` of the limit's counter (or of the end of its lockout) on an outcome of the step
    /// that charges it other than a success or one its `resets` names: the limit keeps its own
    /// count, and one written back by hand (`wrong: { set: { stored.failures: 0 } }`, a
    /// "Forgot PIN?" on the pad that clears it) gives the tries spent back, unless the way on
    /// removes or replaces the credential before it is asked for again.
    private mutating func countWrittenByHand(
        at step: Step, check: HandlerContract.CredentialCheck, charge: AttemptCharge
    ) {
        guard let limit = journey.limit(chargedBy: step) else { return }
        let kept = [limit.counter.value] + (limit.lockedUntil.map { [$0.value] } ?? [])
        let resets = Set(charge.resets.map(\.value))
        // Unless the way on removes or replaces the credential first (a wipe, a new PIN sealed):
        // a new count against a new secret.
        for (outcome, transition) in step.transitions
        where !check.accepted.contains(outcome.value) && !resets.contains(outcome.value)
            && retries(step, after: transition.branches)
        {
            for assignment in transition.branches.flatMap(\.assignments) where kept.contains(assignment.target.value) {
                find(
                    .uncountedFailure,
                    "'\(outcome.value)' at step '\(step.id.value)' sets \(assignment.target.value) of limit '\(limit.name.value)', which the limit keeps itself, on no success of the \(step.handlerID ?? "step's") check: the tries spent come back; leave the count to the limit (its 'resets' for a success)",
                    at: assignment.target.location)
            }
        }
    }

    /// Two pads for the same PIN, each with a count of its own and each reached without the
    /// other's check: every pad gives a round of tries. A pad of a journey a step calls (a
    /// shared PIN check) is that step's, with the called journey's counter.
    private mutating func padsWithCountsOfTheirOwn(_ checks: [String: Step]) {
        let start = journey.start.value
        var pads: [(step: Step, key: String, counter: String?)] = []
        for step in journey.steps {
            if checks[step.id.value] != nil, step.handlerID == "pin.verify", step.attempts != nil,
                let key = key(of: step)
            {
                pads.append((step, key, journey.limit(chargedBy: step).map { $0.counter.value.description }))
            } else if case .call(let callee) = step.kind, let called = all[callee.value] {
                for pad in called.steps where pad.handlerID == "pin.verify" && pad.attempts != nil {
                    guard let key = pad.literalParameter("key") else { continue }
                    pads.append((step, key, called.limit(chargedBy: pad).map { $0.counter.value.description }))
                }
            }
        }
        for (index, first) in pads.enumerated() {
            for second in pads[(index + 1)...]
            where second.key == first.key && second.counter != first.counter && second.step.id != first.step.id {
                let toSecond = reachable(from: [start]) { $0.id.value == first.step.id.value }
                let toFirst = reachable(from: [start]) { $0.id.value == second.step.id.value }
                guard toSecond.contains(second.step.id.value), toFirst.contains(first.step.id.value) else { continue }
                find(
                    .uncountedFailure,
                    "steps '\(first.step.id.value)' and '\(second.step.id.value)' check the PIN under '\(first.key)' against counts of their own (\(first.counter ?? "none"), \(second.counter ?? "none")), and either is reached without the other: each pad gives its own round of tries; charge them one limit, or limits that keep one counter",
                    at: second.step.id.location)
            }
        }
    }

    /// A called journey's limit whose maximum the call computes from what the run keeps: the
    /// allowance grows between runs (each lockout buying one more try, say).
    private mutating func computedMaximums() {
        for step in journey.steps {
            guard case .call(let callee) = step.kind, let called = all[callee.value] else { continue }
            for limit in called.limits {
                // The limits of the called journey's credential checks.
                guard case .computed(let max) = limit.max,
                    called.steps.contains(where: {
                        $0.attempts?.limit.value == limit.name.value && contract($0)?.credentialCheck != nil
                    })
                else { continue }
                let params = Set(max.references.filter { $0.count == 2 && $0[0] == "params" }.map { $0[1] })
                for (name, value) in step.with where params.contains(name.value) {
                    let read = value.references.filter { $0.count >= 2 && ["stored", "state"].contains($0[0]) }
                    guard let first = read.first else { continue }
                    find(
                        .uncountedFailure,
                        "step '\(step.id.value)' gives \(callee.value) the maximum of its limit '\(limit.name.value)' ('\(name.value)') from \(first.prefix(2).joined(separator: ".")), which changes as the app is used: the number of tries is no longer fixed (it can grow with every round); give a constant",
                        at: name.location)
                }
            }
        }
    }

    /// More tries than a verifier may allow before it stops (NIST SP 800-63B 5.2.2: 100).
    private mutating func tooManyTries(_ checks: [String: Step]) {
        for limit in journey.limits {
            guard case .fixed(let max) = limit.max, max > 100,
                checks.values.contains(where: { $0.attempts?.limit.value == limit.name.value })
            else { continue }
            find(
                .uncountedFailure,
                "limit '\(limit.name.value)' allows \(max) wrong tries in a row at a credential check; NIST SP 800-63B 5.2.2 allows at most 100 before the check stops (a four-digit PIN falls to ten thousand)",
                at: limit.maxLocation)
        }
    }

    /// A limit set back to 0 when exceeded (no `keep`, no lockout), after which the same
    /// credential is asked for again: each round of `max` tries buys another.
    private mutating func roundsBoughtBack(_ checks: [String: Step]) {
        for limit in journey.limits where !limit.keep && limit.lockout == nil {
            let charging = checks.values.filter { $0.attempts?.limit.value == limit.name.value }
            for step in charging.sorted(by: { $0.id.value < $1.id.value })
            where retries(step, after: limit.exceeded.branches) {
                find(
                    .uncountedFailure,
                    "limit '\(limit.name.value)' is set back to 0 when exceeded, and its 'exceeded' leads back to step '\(step.id.value)', or to an end after which the app is opened again, with the credential it checks unchanged: every round of tries buys another; give the limit 'keep: true' or a 'lockout', or remove the credential on the way (session.clear, pin.save)",
                    at: limit.name.location)
                break
            }
        }
    }

    /// Whether, after `branches` (a refusal's, or a limit's `exceeded`), the credential `step`
    /// checks can be tried again unchanged: a path reaches the step without a step or an
    /// assignment that removes or replaces the credential. The app may be opened again at an
    /// end, and killed and opened again wherever a step waits: the path goes on from the start.
    func retries(_ step: Step, after branches: [Branch]) -> Bool {
        let key = key(of: step)
        let read = step.checkedAgainst ?? []
        func replaces(_ branch: Branch) -> Bool {
            branch.assignments.contains { read.contains($0.target.value.description) }
        }
        func removes(_ next: Step) -> Bool {
            switch next.handlerID {
            case "pin.save":
                guard let key, let saved = self.key(of: next) else { return true }
                return saved == key
            case "session.clear": return wipes(next, removing: step.storedSecret)
            default: return false
            }
        }
        let ends = Set(journey.ends.map(\.id.value))
        var seen = Set<String>()
        var queue = branches.filter { !replaces($0) }.map(\.target.value)
        let start = journey.start.value
        while let id = queue.popLast() {
            guard seen.insert(id).inserted else { continue }
            if id == step.id.value { return true }
            if ends.contains(id) {
                queue.append(start)
                continue
            }
            guard let next = steps[id], !removes(next) else { continue }
            if case .call = next.kind {
                // Through a called journey by the ends it reaches without signing in or
                // removing the credential (a help sheet's, a "Not now" past a sign-in); one not
                // in the project stops the way.
                guard let walked = walk(calledBy: next, stoppingAt: removes) else { continue }
                if walked.steps.contains(where: waits) { queue.append(start) }
                let verified = verifiedOutcomes(next) ?? []
                queue += self.branches(of: next, after: walked.ends.subtracting(verified)).filter { !replaces($0) }
                    .map(\.target.value)
                continue
            } else if waits(next) {
                queue.append(start)
            }
            queue += journey.branches(from: next).filter { !replaces($0) }.map(\.target.value)
        }
        return false
    }
}
