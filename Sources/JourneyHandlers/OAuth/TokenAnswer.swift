import Foundation
import JourneyCore

/// What a token endpoint's answer must hold before anything in it is kept (RFC 6749 §5.1):
/// an access token, its type `Bearer` (the only type these handlers send, RFC 6750), no
/// `error` beside it, and a lifetime that is a whole number of seconds, when it gives one.
enum TokenAnswer {
    /// The longest lifetime taken as written, in seconds: ten years, what a journey's
    /// durations allow. A longer one is no lifetime a provider means.
    static let longestLifetime = 3650 * 86_400

    /// The answer's access token and lifetime (nil when it gives none: `expires_in` is
    /// RECOMMENDED, not required, RFC 6749 §5.1), or why it is not one.
    static func read(_ body: [String: Any]) -> Result<(access: String, expiresIn: Int?), Problem> {
        if let error = body["error"] {
            return .failure(Problem("it holds an error ('\(code(error as? String))') beside its tokens"))
        }
        guard let access = body["access_token"] as? String, !access.isEmpty else {
            return .failure(Problem("it holds no access token"))
        }
        guard let type = body["token_type"] as? String else {
            return .failure(Problem("it gives no token_type"))
        }
        guard type.lowercased() == "bearer" else {
            return .failure(Problem("its token_type is '\(code(type))', not Bearer"))
        }
        guard let given = body["expires_in"] else { return .success((access, nil)) }
        guard let expiresIn = lifetime(given) else {
            return .failure(
                Problem("its expires_in is not a whole number of seconds from 0 to \(longestLifetime)"))
        }
        return .success((access, expiresIn))
    }

    struct Problem: Error {
        let reason: String
        init(_ reason: String) { self.reason = "the token endpoint's answer is not a token response: " + reason }
    }

    /// `expires_in` as seconds: absent is 0 (not said); a whole number, or one written as text
    /// (some providers quote it), from 0 to ``longestLifetime``; anything else is nil.
    static func lifetime(_ value: Any?) -> Int? {
        guard let value else { return 0 }
        if let number = value as? NSNumber {
            // JSON's true and false come back as NSNumber too, of type `c`: no lifetime.
            guard String(cString: number.objCType) != "c" else { return nil }
            let double = number.doubleValue
            guard double.isFinite, double == double.rounded(), (0...Double(longestLifetime)).contains(double) else {
                return nil
            }
            return Int(double)
        }
        if let text = value as? String, let seconds = Int(text), (0...longestLifetime).contains(seconds) {
            return seconds
        }
        return nil
    }

    /// An OAuth error code as a transcript may show it: the registered codes are short words
    /// of letters, digits and `_` (`invalid_grant`, RFC 6749 §5.2). Anything else a server
    /// writes there (a sentence, a token echoed back) is not shown.
    static func code(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "" }
        let allowed =
            text.utf8.count <= 64
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0))
            }
        return allowed ? text : "(not an OAuth error code)"
    }
}
