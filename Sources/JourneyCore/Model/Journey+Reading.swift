extension Journey {
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
    /// The parameters of a credential check that name what the user's answer is compared with.
    static let credentialParameters: Set<String> = ["expected", "secret", "vault", "counter"]

    /// Where the journey keeps what this step checks the user's answer against, as
    /// `stored.NAME` and `state.NAME`: the sealed PIN under a `key` written as text, and what its
    /// `expected` (`ui.pin`), `vault` (`locker.easyAccess`), `secret` and `counter` (OTP) read.
    /// Nil when it names none of them (a screen whose actions stand for right and wrong).
    public var checkedAgainst: Set<String>? {
        var found = Set<String>()
        var named = false
        for (name, value) in with {
            if name.value == "key" {
                guard case .scalar(let text, _, _) = value, !text.contains("${") else { continue }
                found.insert("stored." + text)
                named = true
            } else if Self.credentialParameters.contains(name.value) {
                named = true
                for path in value.references where path.count >= 2 && ["state", "stored"].contains(path[0]) {
                    found.insert(path[0] + "." + path[1])
                }
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
}
