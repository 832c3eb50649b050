extension Journey {
    /// The exception the journey declares to `rule` (an ``AuthRule`` or an
    /// ``ExplorationInvariant`` id), if any.
    public func exception(to rule: String) -> RuleException? {
        exceptions.first { $0.rule.value == rule }
    }

    /// The exceptions the journey declares to exploration invariants (`journey explore`'s).
    public var explorationExceptions: [RuleException] {
        exceptions.filter { ExplorationInvariant(rawValue: $0.rule.value) != nil }
    }

    /// The limit `step` charges (its `attempts:`), when the journey declares it.
    public func limit(chargedBy step: Step) -> AttemptLimit? {
        guard let charge = step.attempts else { return nil }
        return limits.first { $0.name.value == charge.limit.value }
    }

    /// Every branch `step` may take next: each transition's, then its limit's `exceeded`.
    public func branches(from step: Step) -> [Branch] {
        step.transitions.flatMap(\.transition.branches) + (limit(chargedBy: step)?.exceeded.branches ?? [])
    }
}

extension Step {
    /// The id of the handler the step runs; nil for a step that calls a journey.
    public var handlerID: String? {
        if case .handler(let id) = kind { id.value } else { nil }
    }

    /// The parameter `name` as it is written, if the step gives it.
    public func parameter(_ name: String) -> RawValue? {
        with.first { $0.name.value == name }?.value
    }

    /// The parameter `name` when it is written as one literal text (not a template): a `key`.
    public func literalParameter(_ name: String) -> String? {
        guard case .scalar(let text, _, _)? = parameter(name), !text.contains("${") else { return nil }
        return text
    }

    /// The parameters of a credential check that name the secret the user's answer is compared
    /// with: a PIN expected, an OTP seed, a vault.
    static let secretParameters: Set<String> = ["expected", "secret", "vault"]

    /// The parameters of a credential check that name what the user's answer is compared with:
    /// the secret, and its moving parts (an HOTP counter).
    static let credentialParameters = secretParameters.union(["counter"])

    /// The stored keys that hold the secret this step checks the user's answer against: its
    /// `key` written as text (a sealed PIN), else what its `expected`, `secret` or `vault`
    /// reads from the store; empty when it keeps none there.
    public var storedSecret: Set<String> {
        if let key = literalParameter("key") { return [key] }
        return Set(
            with.filter { Self.secretParameters.contains($0.name.value) }.flatMap { $0.value.references }
                .filter { $0.count >= 2 && $0[0] == "stored" }.map { $0[1] })
    }

    /// Where the journey keeps what this step checks the user's answer against, as
    /// `stored.NAME` and `state.NAME`: the sealed PIN under a `key` written as text, and what its
    /// `expected` (`ui.pin`), `vault` (`locker.easyAccess`), `secret` and `counter` (OTP) read.
    /// Nil when it names none of them (a screen whose actions stand for right and wrong).
    public var checkedAgainst: Set<String>? {
        var found = Set<String>()
        var named = false
        if let key = literalParameter("key") {
            found.insert("stored." + key)
            named = true
        }
        for (name, value) in with where Self.credentialParameters.contains(name.value) {
            named = true
            for path in value.references where path.count >= 2 && ["state", "stored"].contains(path[0]) {
                found.insert(path[0] + "." + path[1])
            }
        }
        return named ? found : nil
    }
}

extension RawValue {
    /// The names a text written as a template reads (``Template/references``); none for a
    /// list, a map, or a text that is not a template.
    public var references: [[String]] {
        guard case .scalar(let text, _, _) = self, case .success(let template) = Template.parse(text) else {
            return []
        }
        return template.references
    }

    /// The names whose value can reach the text a template writes
    /// (``Template/carriedReferences``): not those it only compares or measures.
    public var carriedReferences: [[String]] {
        guard case .scalar(let text, _, _) = self, case .success(let template) = Template.parse(text) else {
            return []
        }
        return template.carriedReferences
    }
}
