/// The auth rules `journey check` holds every journey to, each with a stable id: mistakes that
/// pass every other check and that auth teams look for in review. A journey that breaks one on
/// purpose, because the app it reproduces does, says so under `exceptions:` with the reason,
/// and the rule is quiet for that journey.
///
/// They are warnings, and errors with `journey check --strict`.
public enum AuthRule: String, CaseIterable, Sendable, Hashable {
    case literalSecret = "auth.literal-secret"
    case redirectURI = "auth.redirect-uri"
    case weakPIN = "auth.weak-pin"
    case pinReuse = "auth.pin-reuse"
    case pinInStore = "auth.pin-in-store"
    case biometryWithoutKey = "auth.biometry-without-key"
    case unlimitedBiometry = "auth.biometry-unlimited"
    case counterInState = "auth.counter-in-state"
    case uncountedFailure = "auth.failure-uncounted"
    case plainHTTP = "auth.plain-http"
    case unverifiedReset = "auth.pin-reset-unverified"
    case clearCapture = "auth.capture-in-clear"
    case otpReplay = "auth.otp-replay"
    case tokenInURL = "auth.token-in-url"
    case typedInClear = "auth.typed-in-clear"

    /// What the rule asks, in one sentence, for the docs and `journey check`'s messages.
    public var rule: String {
        switch self {
        case .literalSecret:
            "No secret is written into a journey: a PIN, password, code or token comes from the user, the device or a server."
        case .redirectURI:
            "A redirect URI is https, an app's own scheme named after a domain it controls (`com.example.app:/callback`), or plain http to a loopback IP (127.0.0.1 or [::1]), never `localhost`, over http or https (RFC 8252 7.1, 7.3, 8.3)."
        case .weakPIN:
            "A journey that creates a PIN refuses weak ones: `pin.entry` with `warnWeak: true` (NIST SP 800-63B 5.1.1.2)."
        case .pinReuse:
            "A journey that changes a PIN checks that the new one differs from the old: `pin.entry` with `differentFrom`."
        case .pinInStore:
            "A PIN is never kept in the device store as it is: `pin.save` seals it (OWASP MASVS-STORAGE-1)."
        case .biometryWithoutKey:
            "A biometric success signs in only through a step that opens a key the user unlocks (`pin.verify`, `locker.easyAccess`, `locker.decrypt`), so that faking the sensor's answer is not enough (OWASP MASVS-AUTH-2)."
        case .unlimitedBiometry:
            "Biometric attempts that lead back to the prompt are counted by an attempt limit."
        case .counterInState:
            "An attempt counter is kept in `stored`, which survives an app restart, not in `state`, which does not."
        case .uncountedFailure:
            "A credential the user can try again (a PIN, a password, a one-time code) is checked under an attempt limit that counts every refusal, and only a success sets the count back (OWASP MASWE-0020, NIST SP 800-63B 5.2.2)."
        case .clearCapture:
            "A token, session, password or secret read out of a server's answer is captured as secret, so that no transcript, report or store shows it (OWASP MASVS-STORAGE-2)."
        case .unverifiedReset:
            "A PIN the device keeps is replaced only after a credential is checked: \"Forgot PIN?\", a wrong PIN or a spent limit never lead to choosing a new one while the data it guards stays (CWE-640, OWASP MASVS-AUTH-1)."
        case .otpReplay:
            "A one-time code is accepted once: a TOTP check is given the period of the last code used (`lastStep`), kept in `stored` and set from `outcome.step` when a code is valid; an HOTP check's `counter` is kept in `stored` and moved on by the journey (RFC 6238 5.2, RFC 4226 7.2)."
        case .typedInClear:
            "What the user types as a secret (a password, or a value the journey keeps as secret) is typed into a field declared secret, so that no transcript, report or replay shows it (OWASP MASVS-STORAGE-2)."
        case .tokenInURL:
            "A token, password or secret is never sent in a URL's query, which servers, proxies and logs keep: it goes in a header or the body (RFC 6750 2.3, OWASP MASVS-NETWORK-1)."
        case .plainHTTP:
            "An authorization server is reached over https: its endpoints, its issuer and the APIs that exchange codes and tokens are never plain http to another machine (RFC 6749 3.1, 3.2)."
        }
    }
}

extension AuthRule {
    /// What is wrong with a redirect URI by RFC 8252, or nil.
    public static func redirectProblem(_ uri: String) -> String? {
        let lowered = uri.lowercased()
        if let colon = lowered.firstIndex(of: ":") {
            let scheme = lowered[..<colon]
            let schemeCharacters = scheme.allSatisfy {
                $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0))
            }
            if schemeCharacters, scheme.first?.isLetter == true, scheme != "http", scheme != "https",
                !scheme.contains(".")
            {
                return
                    "uses the private-use scheme '\(scheme)', which names no domain: another app can register it too and be sent the code; use a scheme from a reverse domain name the app controls, such as com.example.app:/callback (RFC 8252 7.1, 8.4)"
            }
        }
        // An https redirect to the device's own name: no app can claim `localhost` as its link,
        // and whatever listens there on the device gets the code (RFC 8252 7.2, 8.3).
        if let host = httpsHost(uri), host == "localhost" || host.hasSuffix(".localhost") {
            return
                "is https://localhost: no app can claim localhost as its link, and whatever listens there on the device is sent the code; use a claimed https link on a domain the app controls, or http://127.0.0.1 (RFC 8252 7.2, 8.3)"
        }
        guard let host = plainHTTPHost(uri) else { return nil }
        if host == "localhost" {
            return
                "is http://localhost: use the loopback IP (http://127.0.0.1 or http://[::1]), which no resolver or firewall can send elsewhere (RFC 8252 8.3)"
        }
        if isLoopbackIP(host) { return nil }
        return
            "is plain http to '\(host)': a code sent there can be read on the way; use https, your app's own scheme, or the loopback IP (RFC 8252 7.3, 8.3)"
    }

    /// What is wrong with an authorization server's address (an endpoint, an issuer, an API
    /// that exchanges codes or tokens) by RFC 6749, or nil: plain http to another machine.
    public static func endpointProblem(_ uri: String) -> String? {
        guard let host = plainHTTPHost(uri), host != "localhost", !isLoopbackIP(host) else { return nil }
        return
            "is plain http to '\(host)': the codes, tokens and credentials sent there can be read and changed on the way; use https (RFC 6749 3.1, 3.2)"
    }

    /// The host of a plain `http://` URI, lowercased; nil for any other. Read as a browser
    /// reads it (the WHATWG URL standard): spaces around it dropped, and after `http:` any
    /// number of slashes or backslashes, none included (`http:/example.com`, `http:example.com`
    /// and `http:\\example.com` all go to example.com).
    static func plainHTTPHost(_ uri: String) -> String? { host(uri, scheme: "http") }

    /// The host of an `https://` URI, lowercased, read as ``plainHTTPHost(_:)`` reads one.
    static func httpsHost(_ uri: String) -> String? { host(uri, scheme: "https") }

    static func host(_ uri: String, scheme: String) -> String? { URLHost.of(uri, scheme: scheme) }

    static func isLoopbackIP(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let loopbackV4 = parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        return loopbackV4 || host == "::1" || host == "0:0:0:0:0:0:0:1"
    }
}

/// A rule a journey breaks on purpose, and why: `exceptions: {auth.weak-pin: "…"}`. The rule is
/// an ``AuthRule`` (`journey check`) or an ``ExplorationInvariant`` (`journey explore`).
public struct RuleException: Sendable, Hashable {
    /// The rule's id, where the journey names it.
    public var rule: Located<String>
    /// Why: the app's behaviour the journey reproduces, with its source.
    public var reason: String
    /// The steps it holds for (an auth rule's findings at them); nil: the whole journey.
    public var steps: [Located<String>]?

    public init(rule: Located<String>, reason: String, steps: [Located<String>]? = nil) {
        self.rule = rule
        self.reason = reason
        self.steps = steps
    }
}
