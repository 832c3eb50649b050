import Foundation

/// A public-key pin: the SHA-256 of a certificate's DER SubjectPublicKeyInfo, in base64, as
/// iOS's `NSPinnedDomains` writes it (`SPKI-SHA256-BASE64`) and
/// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
/// prints it.
public enum KeyPin {
    /// What is wrong with a text given as a pin, or nil when it is one.
    public static func problem(_ text: String) -> String? {
        guard text.count == 44, let data = Data(base64Encoded: text), data.count == 32 else {
            return
                "'\(PrintableText.escaped(text))' is not a key pin: the SHA-256 of a public key, in base64 (44 characters)"
        }
        return nil
    }

    /// What is wrong with a value given as a list of pins (the first problem), or nil.
    public static func problem(in value: Value) -> String? {
        guard case .list(let items) = value.revealed else { return "pins must be a list" }
        for item in items {
            guard case .string(let text) = item.revealed else { return "a pin must be a text" }
            if let problem = problem(text) { return problem }
        }
        return nil
    }
}
