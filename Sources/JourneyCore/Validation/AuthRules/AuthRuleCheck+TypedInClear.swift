// `auth.typed-in-clear`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// Whether a form field's name says it holds a credential: a word of it (camelCase,
    /// snake_case or kebab-case) is a PIN, a password, an OTP, a TAN or a card's security code,
    /// or it is a code that signs in (`code`, `smsCode`, `verification_code`; not `countryCode`).
    static func namesCredential(_ name: String) -> Bool {
        var words: [String] = []
        var current = ""
        for character in name {
            if character == "_" || character == "-" || character == "." || character == " " {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character.isUppercase, let last = current.last, !last.isUppercase {
                words.append(current)
                current = String(character)
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        words = words.map { $0.lowercased() }
        let credential: Set<String> = [
            "pin", "otp", "passcode", "password", "passwd", "totp", "hotp", "tan", "cvv", "cvc", "secret",
        ]
        if words.contains(where: credential.contains) { return true }
        guard words.last == "code" else { return false }
        let signingIn: Set<String> = [
            "sms", "verification", "verify", "auth", "authentication", "security", "confirmation", "confirm", "access",
            "login", "signin", "time", "mfa", "2fa", "email", "mail", "activation", "recovery", "backup",
        ]
        return words.count == 1 || signingIn.contains(words[words.count - 2])
    }

    /// ``AuthRule/typedInClear``: a form field not secret that is a password (one written
    /// `secret: false`: a password field is secret unless it says otherwise), or whose value the
    /// step's transitions keep in a value the journey declares secret, and nothing secret with it.
    mutating func typedInClear() {
        let secretVariables = self.secretVariables
        for step in journey.steps {
            let fields = step.screen?.fields ?? []
            let secretFields = fields.filter(\.secret).map { ["outcome", $0.name.value] }
            for field in fields where !field.secret {
                let name = field.name.value
                let said = "field '\(name)' of step '\(step.id.value)'"
                if field.kind == .password {
                    find(
                        .typedInClear,
                        "\(said) is a password written 'secret: false': a transcript and a report would show what is typed; leave 'secret' out",
                        at: field.name.location)
                    continue
                }
                if Self.namesCredential(name) {
                    find(
                        .typedInClear,
                        "\(said) is named as a credential (a PIN, a password, a one-time code) but typed in clear: a transcript, a report and a golden would show what is typed; declare it 'secret: true'",
                        at: field.name.location)
                    continue
                }
                // A value that also holds a secret field (`user + ':' + pass`) is secret for that
                // field's sake: the user name in it may be shown.
                let kept = step.transitions.flatMap(\.transition.branches).flatMap(\.assignments).first {
                    let carried = $0.value.carriedReferences
                    return secretVariables.contains($0.target.value.description) && carried.contains(["outcome", name])
                        && !carried.contains(where: secretFields.contains)
                }
                if let kept {
                    find(
                        .typedInClear,
                        "\(said) is kept in \(kept.target.value), which is secret, but is typed in clear: a transcript and a report would show what is typed; declare it 'secret: true'",
                        at: field.name.location)
                }
            }
        }
    }
}
