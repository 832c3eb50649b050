/// How JourneyKit looks for a secret's text in what it shows: as a whole, so that a PIN is not
/// found inside a longer number nor a word inside a longer word, and only a text long enough not
/// to be found by chance. The explorer's `explore.no-secret-leak` and the check of a golden
/// transcript against its scenario's secrets both look this way.
public enum SecretText {
    /// Texts shorter than this many bytes are not looked for: they would be found by chance.
    public static let shortest = 4

    /// The text of a secret worth looking for: a secret's string, or its whole number, of
    /// ``shortest`` characters or more.
    public static func of(_ value: Value) -> String? {
        let text: String
        switch value.revealed {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        default: return nil
        }
        return text.utf8.count >= shortest ? text : nil
    }

    /// Whether `secret` occurs in `text` as a whole: no letter or digit adjoins it.
    public static func occurs(_ secret: String, in text: String) -> Bool {
        var secret = secret
        var text = text
        return secret.withUTF8 { needle in
            text.withUTF8 { haystack in JourneyExplorer.SecretSearch.occurs(needle, in: haystack) }
        }
    }
}

extension TranscriptEvent {
    /// Whether `secret` occurs as a whole in one of the texts the event's JSON line holds
    /// (``containsText(where:)``): a value the event should have written as `•••`.
    public func shows(secret: String) -> Bool {
        containsText { SecretText.occurs(secret, in: $0) }
    }
}
