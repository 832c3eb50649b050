// `auth.capture-in-clear`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/clearCapture``: an `http.request` capture whose name or last key says it
    /// holds a token, a session, a password or a secret, not declared secret.
    mutating func captures() {
        for step in journey.steps where step.handlerID == "http.request" {
            guard case .map(let entries, _)? = step.parameter("captures") else { continue }
            var secretNames = Set<String>()
            if case .list(let items, _)? = step.parameter("secret") {
                secretNames = Set(items.compactMap { literal($0) })
            }
            for entry in entries where !secretNames.contains(entry.key) {
                // Read as the compiler reads it; what is wrong with it, the compiler says.
                var ignored = DiagnosticList()
                guard let capture = CaptureRule.capture(entry.key, entry.value, what: "", into: &ignored),
                    !capture.secret
                else { continue }
                var last = ""
                for case .key(let key) in capture.path.segments { last = key }
                let path = capture.path.description
                guard let word = [entry.key, last].first(where: Self.namesASecret) else { continue }
                find(
                    .clearCapture,
                    "capture '\(entry.key)' of step '\(step.id.value)' reads '\(word)' out of the answer in clear: a transcript, a report and the store would show it; declare it '{ path: \(path), secret: true }'",
                    at: entry.keyLocation)
            }
        }
    }

    /// Whether a capture's name or key reads as a token, a session, a password or a secret
    /// (`access_token`, `sessionId`, `refreshToken`), not as something about one (`token_type`,
    /// `expires_in`).
    static func namesASecret(_ name: String) -> Bool {
        let lowered = name.lowercased().filter { $0.isLetter }
        // Something about a secret, not one: its type, when it expires, how many, how long it
        // must be or lasts, what the policy asks, whether it is needed or on.
        let about = ["expire", "length", "timeout", "ttl", "policy", "required", "enabled", "lifetime"]
        guard !lowered.hasSuffix("type"), !lowered.hasSuffix("count"), !about.contains(where: lowered.contains)
        else { return false }
        return ["token", "password", "secret", "session", "cookie", "jwt", "apikey", "credential"].contains {
            lowered.contains($0)
        }
    }
}
