// `auth.biometry-without-key` and `auth.biometry-unlimited`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// The steps and ends reachable from `targets` without opening a key: past a step that
    /// opens one only by its other outcomes (`pin.verify`'s `missing` opened nothing), and
    /// through a call by the ends its journey reaches without opening a key or verifying a
    /// credential (a help sheet's, a "Skip" past its PIN pad); a journey not in the project
    /// stops the way.
    func unkeyed(from targets: [String]) -> Set<String> {
        var seen = Set<String>()
        var queue = targets
        let relaunched = Set(journey.ends.filter { $0.kind != .success }.map(\.id.value))
        while let id = queue.popLast() {
            guard seen.insert(id).inserted else { continue }
            guard let step = steps[id] else {
                // An end after which the app is opened again (a cancel, a failure): the journey
                // starts over with what the device keeps, a flag the success stored included.
                if relaunched.contains(id) { queue.append(journey.start.value) }
                continue
            }
            if case .call = step.kind {
                // On by the ends the called journey reaches without opening a key or checking a
                // credential: a help sheet's, a "Skip" past its PIN pad.
                guard let walked = walk(calledBy: step, stoppingAt: { _ in false }, closed: keyOutcomes) else {
                    continue
                }
                let shut = keyOutcomes(step) ?? []
                queue += branches(of: step, after: walked.ends.subtracting(shut)).map(\.target.value)
                continue
            }
            // A step that opens data with keys the device opened on its own (a keyring from
            // locker.deviceKeys) opens nothing the user unlocked.
            guard let other = contract(step), other.releasesKey, !usesDeviceKeys(step) else {
                queue += successors(step)
                continue
            }
            guard !other.keyOutcomes.isEmpty else { continue }
            for (outcome, transition) in step.transitions where !other.keyOutcomes.contains(outcome.value) {
                queue += transition.branches.map(\.target.value)
            }
            // Its limit spent opens nothing either.
            queue += journey.limit(chargedBy: step)?.exceeded.branches.map(\.target.value) ?? []
        }
        return seen
    }

    /// The outcomes by which a way through `step` opened a key the user unlocks, or verified a
    /// credential; nil for a step that opens a key by no outcome it names (the way stops there).
    func keyOutcomes(_ step: Step) -> Set<String>? {
        var shut = verifiedOutcomes(step) ?? []
        if let contract = contract(step), contract.releasesKey {
            guard !contract.keyOutcomes.isEmpty else { return nil }
            shut.formUnion(contract.keyOutcomes)
        }
        return shut
    }

    /// Whether a step's parameters read state that a `locker.deviceKeys` step sets from its
    /// outcome: keys the device opens without the user.
    func usesDeviceKeys(_ step: Step) -> Bool {
        let fromDevice = Set(
            journey.steps.filter { $0.handlerID == "locker.deviceKeys" }
                .flatMap { $0.transitions.flatMap(\.transition.branches).flatMap(\.assignments) }
                .filter { $0.target.value.scope == .state && $0.value.references.contains { $0.first == "outcome" } }
                .map(\.target.value.name))
        guard !fromDevice.isEmpty else { return false }
        return step.with.contains { _, value in
            value.references.contains { $0.count >= 2 && $0[0] == "state" && fromDevice.contains($0[1]) }
        }
    }

    /// ``AuthRule/biometryWithoutKey`` and ``AuthRule/unlimitedBiometry``.
    mutating func biometry() {
        let successEnds = Set(journey.ends.filter { $0.kind == .success }.map(\.id.value))
        for step in journey.steps where step.handlerID == "biometry.authenticate" {
            for (outcome, transition) in step.transitions where outcome.value == "success" {
                let reached = unkeyed(from: transition.branches.map(\.target.value))
                if let end = successEnds.sorted().first(where: reached.contains) {
                    find(
                        .biometryWithoutKey,
                        "a biometric success at step '\(step.id.value)' reaches the success end '\(end)' without a step that opens a key the user unlocks (pin.verify, locker.easyAccess, locker.decrypt): the sensor's answer alone signs in, so faking it is enough",
                        at: outcome.location)
                }
            }
            guard step.attempts == nil else { continue }
            for (outcome, transition) in step.transitions where outcome.value == "failure" {
                let reached = reachable(from: transition.branches.map(\.target.value)) { _ in false }
                if reached.contains(step.id.value) {
                    find(
                        .unlimitedBiometry,
                        "a failed biometric match at step '\(step.id.value)' leads back to it with no attempt limit: charge one ('attempts:') so that the journey counts its own tries",
                        at: outcome.location)
                }
            }
        }
    }
}
