import Crypto
import Foundation
import JourneyCore
import JourneySuite
import JourneyTestSupport
import Testing

@testable import JourneyHandlers

/// Every secret the real provider issues or receives during eIAM's live scenarios (codes,
/// PKCE verifiers, state and nonce, access, refresh and id tokens, the session cookie, the
/// Authorization header, the password) is captured on the wire and searched for in
/// everything the run produced: both transcript forms and the report. The provider's real
/// id_token is also tampered with in every way the client must notice.
///
/// The limit is a guard against a hang, not a measure of speed: a test waits for the
/// provider's cross-process lock for as long as other processes' scenarios hold it.
@Suite("OAuth security against the real provider", .timeLimit(.minutes(30)))
struct LiveOAuthSecurityTests {
    static let project = ShippedScenarioTests.project

    static var names: [String] {
        project.scenarios.filter { !$0.needs.isEmpty }.map { "\($0.journey.id)/\($0.id)" }
    }

    /// The scenarios hold the provider's cross-process lock while they run; their work goes
    /// to a thread of their own so that tests elsewhere in this process waiting on
    /// subprocesses (which may wait for that lock) cannot starve them.
    static let executor = DedicatedThreadExecutor()

    @Test("no secret seen on the wire appears in any output")
    func nothingIssuedLeaks() async throws {
        try #require(!Self.names.isEmpty)
        let library = try #require(Self.project.library)
        var kinds: Set<String> = []
        for name in Self.names {
            let scenario = try #require(Self.project.scenarios.first { "\($0.journey.id)/\($0.id)" == name })
            let recorder = RecordingTransport()
            for stub in scenario.network {
                recorder.note(
                    HTTPRequest(method: stub.method, url: stub.url), HTTPResponse(status: stub.status, body: stub.body))
            }
            let transcript = Collector()
            let report = await withTaskExecutorPreference(Self.executor) {
                await player(transport: { recorder }).run(scenario, in: library, transcript: transcript)
            }
            try #require(
                report.skipped == nil,
                "the provider is not running: start it with Tests/oidc/provider.sh start (./scripts/test does)")
            #expect(report.passed, "\(name): \(report.problems)")
            let outputs = [
                transcript.text, transcript.jsonl, report.problems.joined(separator: "\n"), report.result.failure ?? "",
            ].joined(separator: "\n")
            for secret in recorder.secrets() {
                kinds.insert(secret.kind)
                let leaked = outputs.contains(secret.value)
                #expect(!leaked, "\(name): a \(secret.kind) issued on the wire is in its output")
            }
        }
        // The capture itself must work, or the search above proves nothing.
        let expected: Set = [
            "access_token", "refresh_token", "id_token", "id_token signature", "code", "code_verifier", "state",
            "nonce", "password", "cookie", "authorization",
        ]
        #expect(expected.subtracting(kinds).isEmpty, "never captured: \(expected.subtracting(kinds).sorted())")
    }

    @Test("the provider's own id_token validates, and every tampering with it is refused")
    func tamperedProviderTokenIsRefused() async throws {
        let library = try #require(Self.project.library)
        let scenario = try #require(Self.project.scenarios.first { $0.id == "i1-sign-in-with-pkce" })
        let recorder = RecordingTransport()
        let report = await withTaskExecutorPreference(Self.executor) {
            await player(transport: { recorder }).run(scenario, in: library, transcript: Collector())
        }
        try #require(report.skipped == nil && report.passed, "\(report)")
        try await Self.expectTamperingRefused(
            try Issued(recorder), issuer: "http://127.0.0.1:4593/api/oidc", alg: "RS256")
    }

    /// The provider's ES256 issuer (`/api/oidces`, a P-256 key): the whole sign-in passes with
    /// its id_token, whose signature jwt-kit checks against the EC key of its JWKS, and the
    /// same tampering is refused.
    @Test(
        "an ES256 id_token from the provider validates, and every tampering with it is refused")
    func es256ProviderToken() async throws {
        let (report, recorder) = try await Self.signIn(at: "oidces")
        #expect(report.passed, "\(report.problems)")
        try await Self.expectTamperingRefused(
            try Issued(recorder), issuer: "http://127.0.0.1:4593/api/oidces", alg: "ES256")
    }

    /// The provider's EdDSA issuer (`/api/oidced`, an Ed25519 key): the signature verifies,
    /// but Glewlwyd 2.7 takes at_hash with SHA-256 where OpenID Connect asks for SHA-512 with
    /// Ed25519, so the token is refused, and the sign-in with it.
    @Test("an EdDSA id_token from the provider verifies; its SHA-256 at_hash is refused")
    func eddsaProviderToken() async throws {
        let (report, recorder) = try await Self.signIn(at: "oidced", expecting: "appAuthError")
        #expect(report.passed, "\(report.problems)")
        let issued = try Issued(recorder)
        #expect(issued.header["alg"] as? String == "EdDSA")
        let validator = IDTokenValidator(issuer: "http://127.0.0.1:4593/api/oidced", clientID: "BK-picardapp")
        let now = Int(Date().timeIntervalSince1970)
        _ = try await validator.validate(
            issued.idToken, jwks: issued.jwks, nonce: issued.nonce, accessToken: nil, now: now)
        await #expect(throws: IDTokenValidator.Failure.claim("at_hash does not match the access token")) {
            _ = try await validator.validate(
                issued.idToken, jwks: issued.jwks, nonce: issued.nonce, accessToken: issued.accessToken, now: now)
        }
        let accessToken = try #require(issued.accessToken)
        let sha256 = Array(SHA256.hash(data: Data(accessToken.utf8)))
        #expect(
            issued.claims["at_hash"] as? String == Base64URL.encode(sha256.prefix(16)), "Glewlwyd's at_hash changed")
        var signature = try #require(Base64URL.decode(issued.parts[2]))
        signature[signature.count / 2] ^= 0x01
        await #expect(throws: IDTokenValidator.Failure.signature) {
            _ = try await validator.validate(
                "\(issued.parts[0]).\(issued.parts[1]).\(Base64URL.encode(signature))", jwks: issued.jwks,
                nonce: issued.nonce, accessToken: nil, now: now)
        }
    }

    /// What the provider issued in a sign-in, read off the wire.
    struct Issued {
        var idToken: String
        var accessToken: String?
        var nonce: String
        var jwks: Data
        var parts: [String]
        var header: [String: Any]
        var claims: [String: Any]

        init(_ recorder: RecordingTransport) throws {
            let exchanges = recorder.recorded
            jwks = Data(try #require(exchanges.first { $0.0.url.hasSuffix("/jwks") }?.1?.body).utf8)
            let answers = exchanges.compactMap { exchange -> [String: Any]? in
                guard exchange.0.url.hasSuffix("/token"), let body = exchange.1?.body else { return nil }
                return try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            }
            let tokens = try #require(answers.first)
            idToken = try #require(tokens["id_token"] as? String)
            accessToken = tokens["access_token"] as? String
            let authorization = try #require(exchanges.first { $0.0.url.contains("nonce=") }?.0.url)
            nonce = try #require(URLComponents(string: authorization)?.queryItems?.first { $0.name == "nonce" }?.value)
            parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3)
            let headerData = try #require(Base64URL.decode(parts[0]))
            header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
            let claimsData = try #require(Base64URL.decode(parts[1]))
            claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        }
    }

    /// The token validates; forged claims, a flipped signature bit, `alg: none`, another key,
    /// the provider's key asked to verify with another algorithm, and another nonce do not.
    static func expectTamperingRefused(_ issued: Issued, issuer: String, alg: String) async throws {
        #expect(issued.header["alg"] as? String == alg)
        let validator = IDTokenValidator(issuer: issuer, clientID: "BK-picardapp")
        let now = Int(Date().timeIntervalSince1970)
        func validate(_ token: String, nonce: String? = nil) async throws(IDTokenValidator.Failure) {
            _ = try await validator.validate(
                token, jwks: issued.jwks, nonce: nonce ?? issued.nonce, accessToken: issued.accessToken, now: now)
        }
        try await validate(issued.idToken)

        let parts = issued.parts
        var claims = issued.claims
        claims["sub"] = "mallory"
        let forgedClaims = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        await #expect(throws: IDTokenValidator.Failure.signature) {
            try await validate("\(parts[0]).\(forgedClaims).\(parts[2])")
        }
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        await #expect(throws: IDTokenValidator.Failure.signature) {
            try await validate("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))")
        }
        let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        await #expect(throws: IDTokenValidator.Failure.algorithm("none")) { try await validate("\(none).\(parts[1]).") }
        let otherKey = Base64URL.encode(Data(#"{"alg":"\#(alg)","kid":"not-the-providers"}"#.utf8))
        await #expect(throws: IDTokenValidator.Failure.unknownKey) {
            try await validate("\(otherKey).\(parts[1]).\(parts[2])")
        }
        // The provider's key, named by its kid, cannot be used with an algorithm of another key type.
        for other in IDTokenValidator.algorithms
        where IDTokenValidator.keyTypes[other]?.kty != IDTokenValidator.keyTypes[alg]?.kty {
            let confused = Base64URL.encode(
                try JSONSerialization.data(withJSONObject: ["alg": other, "kid": issued.header["kid"] as? String ?? ""])
            )
            await #expect(throws: IDTokenValidator.Failure.unknownKey) {
                try await validate("\(confused).\(parts[1]).\(parts[2])")
            }
        }
        await #expect(throws: IDTokenValidator.Failure.claim("nonce is not the one sent")) {
            try await validate(issued.idToken, nonce: issued.nonce + "x")
        }
    }

    /// Runs eiam.login against one of the provider's issuers (`/api/NAME`), signing in as Ada,
    /// and records the exchanges.
    static func signIn(
        at issuer: String, expecting end: String = "loggedIn"
    ) async throws -> (ScenarioRunner.Report, RecordingTransport) {
        let root = packageRoot.appendingPathComponent("journeys")
        let journey = SourceFile(
            path: "journeys/eiam/login.journey.yaml",
            data: try Data(contentsOf: root.appendingPathComponent("eiam/login.journey.yaml")))
        let scenario = SourceFile(
            path: "\(issuer).scenario.yaml",
            data: Data(
                """
                scenario: sign-in-at-\(issuer)
                journey: eiam.login
                needs: ["http://127.0.0.1:4593/api/\(issuer)/.well-known/openid-configuration"]
                params:
                  issuer: "http://127.0.0.1:4593/api/\(issuer)"
                  providerApi: "http://127.0.0.1:4593/api"
                  username: ada
                  password: ada-Analytical-1843
                script:
                  - at: browser
                    action: signIn
                expect:
                  end: \(end)
                \(end == "loggedIn" ? "  stored: { accessToken: { is: set }, idToken: { is: set } }" : "")
                """.utf8))
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([journey, scenario])
        try #require(project.diagnostics.items.isEmpty, "\(project.diagnostics.sorted)")
        let library = try #require(project.library)
        let compiled = try #require(project.scenarios.first)
        let recorder = RecordingTransport()
        let report = await withTaskExecutorPreference(Self.executor) {
            await player(transport: { recorder }).run(compiled, in: library, transcript: Collector())
        }
        try #require(
            report.skipped == nil,
            "the provider is not running: start it with Tests/oidc/provider.sh start (./scripts/test does)")
        return (report, recorder)
    }

    /// The provider's second issuer (`/api/oidcshort`) gives access tokens two seconds long:
    /// one that has really expired is refused at userinfo, which the journey maps to
    /// `unauthorized`.
    @Test("an access token past its real lifetime is refused by the provider")
    func expiredAccessTokenIsRefused() async throws {
        let (report, recorder) = try await Self.signIn(at: "oidcshort")
        #expect(report.passed, "the sign-in must pass: \(report.problems)")
        let accessToken = try #require(recorder.secrets().first { $0.kind == "access_token" }?.value)

        try await Task.sleep(nanoseconds: 3_500_000_000)
        let userinfo = HTTPRequest(
            method: "GET", url: "http://127.0.0.1:4593/api/oidcshort/userinfo",
            headers: [.init("Authorization", "Bearer " + accessToken)])
        let answer = try await withTaskExecutorPreference(Self.executor) {
            // Asked as a scenario would ask it: never together with another run's requests.
            try await ServiceLockedNetwork(HTTPTransport(), services: ["http://127.0.0.1:4593"]).send(userinfo)
        }
        #expect(answer.status == 401, "an expired access token must be refused, got \(answer.status)")
    }

    /// Locker's passwords, keyrings, vaults and sealed records never show: every record and
    /// keyring Locker writes starts with `locker-v1`, so none may appear at all.
    @Test("no Locker password, key or record appears in any transcript")
    func lockerSecretsStayHidden() async throws {
        let library = try #require(Self.project.library)
        let scenarios = Self.project.scenarios.filter { $0.journey.id == "locker.session" }
        try #require(scenarios.count >= 13)
        for scenario in scenarios {
            // What the scenario gives as secret, and the secret records and tokens it starts with.
            let stored = scenario.device.store.values.filter(\.isSecret).compactMap {
                if case .string(let s) = $0.revealed, !s.isEmpty { s } else { nil }
            }
            let secrets = ShippedScenarioTests.secrets(of: scenario) + stored
            try #require(!secrets.isEmpty || scenario.needs.isEmpty)
            let transcript = Collector()
            let report = await withTaskExecutorPreference(Self.executor) {
                await player().run(scenario, in: library, transcript: transcript)
            }
            try #require(report.skipped == nil, "the provider is not running")
            #expect(report.passed, "\(scenario.id): \(report.problems)")
            let output = transcript.text + transcript.jsonl
            let shown = output.contains("locker-v1")
            #expect(!shown, "\(scenario.id): a Locker record or keyring is in its transcript")
            for secret in secrets {
                let leaked = output.contains(secret)
                #expect(!leaked, "\(scenario.id): a password given by the scenario is in its transcript")
            }
        }
    }

    @Test("no token a stubbed server answers with appears in any output")
    func nothingStubbedLeaks() async throws {
        let library = try #require(Self.project.library)
        let stubbed = Self.project.scenarios.filter { !$0.network.isEmpty && $0.needs.isEmpty }
        try #require(!stubbed.isEmpty)
        var checked = 0
        for scenario in stubbed {
            let capture = RecordingTransport()
            for stub in scenario.network {
                capture.note(
                    HTTPRequest(method: stub.method, url: stub.url), HTTPResponse(status: stub.status, body: stub.body))
            }
            let transcript = Collector()
            let report = await player().run(scenario, in: library, transcript: transcript)
            #expect(report.passed, "\(scenario.id): \(report.problems)")
            let outputs = [transcript.text, transcript.jsonl, report.problems.joined(separator: "\n")]
                .joined(separator: "\n")
            for secret in capture.secrets() {
                checked += 1
                let leaked = outputs.contains(secret.value)
                #expect(!leaked, "\(scenario.id): a stubbed \(secret.kind) is in its output")
            }
        }
        #expect(checked > 0, "the stubs hold no tokens to look for")
    }

    @Test("the capture finds what a token response, a redirect and a request carry")
    func captureFindsSecrets() {
        let recorder = RecordingTransport()
        recorder.note(
            HTTPRequest(
                method: "POST", url: "http://p/token", headers: [.init("Authorization", "Bearer abcdefghijk")],
                body: "grant_type=authorization_code&code=CODE12345678&code_verifier=VERIFIER123456"),
            HTTPResponse(
                status: 200, body: #"{"access_token":"AT-0123456789","id_token":"aaaa.bbbb.SIGNATURE99"}"#,
                headers: ["location": "eiam://redirect/?code=REDIRECTCODE1&state=STATE1234567"]))
        let found = Dictionary(recorder.secrets().map { ($0.value, $0.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(found["abcdefghijk"] == "authorization")
        #expect(found["CODE12345678"] == "code")
        #expect(found["VERIFIER123456"] == "code_verifier")
        #expect(found["AT-0123456789"] == "access_token")
        #expect(found["SIGNATURE99"] == "id_token signature")
        #expect(found["REDIRECTCODE1"] == "code")
        #expect(found["STATE1234567"] == "state")
    }
}

/// Real HTTP that remembers every request and response, for searching outputs afterwards.
final class RecordingTransport: NetworkTransport, @unchecked Sendable {
    private let inner = HTTPTransport()
    private let lock = NSLock()
    private var exchanges: [(HTTPRequest, HTTPResponse?)] = []

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            let response = try await inner.send(request)
            note(request, response)
            return response
        } catch {
            note(request, nil)
            throw error
        }
    }

    var recorded: [(HTTPRequest, HTTPResponse?)] { lock.withLock { exchanges } }

    func note(_ request: HTTPRequest, _ response: HTTPResponse?) {
        lock.withLock { exchanges.append((request, response)) }
    }

    struct Secret { var kind: String, value: String }

    /// Values long enough to be unmistakable, labelled by where they were seen.
    func secrets() -> [Secret] {
        let secretNames: Set = [
            "code", "code_verifier", "state", "nonce", "password", "refresh_token", "access_token", "id_token",
            "client_secret", "token",
        ]
        var found: [Secret] = []
        func add(_ kind: String, _ value: String) {
            let value = value.removingPercentEncoding ?? value
            guard value.count >= 8 else { return }
            found.append(Secret(kind: kind, value: value))
            if kind == "id_token", let signature = value.split(separator: ".").last, signature.count >= 8 {
                found.append(Secret(kind: "id_token signature", value: String(signature)))
            }
        }
        func addPairs(_ text: Substring) {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, secretNames.contains(String(parts[0])) { add(String(parts[0]), String(parts[1])) }
            }
        }
        func addURL(_ url: String) {
            guard let question = url.firstIndex(of: "?") else { return }
            addPairs(url[url.index(after: question)...].prefix { $0 != "#" })
            if let hash = url.firstIndex(of: "#") { addPairs(url[url.index(after: hash)...]) }
        }
        func addJSON(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if secretNames.contains(key), let text = child as? String { add(key, text) } else { addJSON(child) }
                }
            } else if let array = value as? [Any] {
                array.forEach(addJSON)
            }
        }
        for (request, response) in lock.withLock({ exchanges }) {
            addURL(request.url)
            if let body = request.body {
                if let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) {
                    addJSON(json)
                } else {
                    addPairs(Substring(body))
                }
            }
            for header in request.headers {
                switch header.name.lowercased() {
                case "authorization": add("authorization", String(header.value.split(separator: " ").last ?? ""))
                case "cookie":
                    for cookie in header.value.split(separator: ";") {
                        add("cookie", String(cookie.split(separator: "=", maxSplits: 1).last ?? ""))
                    }
                default: break
                }
            }
            guard let response else { continue }
            if let json = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) { addJSON(json) }
            if let location = response.headers["location"] { addURL(location) }
            if let cookie = response.headers["set-cookie"] {
                let first = cookie.split(separator: ";").first ?? ""
                add("cookie", String(first.split(separator: "=", maxSplits: 1).last ?? ""))
            }
        }
        return found
    }
}
