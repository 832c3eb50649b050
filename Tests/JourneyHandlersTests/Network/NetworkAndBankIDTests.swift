import Foundation
import JourneyCore
import JourneySuite
import Testing

@testable import JourneyHandlers

@Suite("Network stubs, http.request and Bank ID")
struct NetworkAndBankIDTests {
    static let call = """
        journey: t.one
        version: 1
        title: Call
        state:
          token: { type: string, secret: true }
        start: s
        steps:
          s:
            handler: http.request
            with:
              method: POST
              url: "https://api.example.org/v1/session?user=ada"
              headers: ["authorization: bearer top-secret-bearer"]
              body: '{"password": "hunter2"}'
              captures: { token: "session.token", names: "items[*].name", note: "note?" }
              secret: [token]
            on:
              ok:
                set: { state.token: "${outcome.token}" }
                to: done
              failed: other
              offline: other
        ends:
          done: { kind: success }
          other: { kind: failure }
        """

    @Test func stubsAnswerAndCapturesReadTheJSON() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.call],
            scenario: """
                scenario: s
                journey: t.one
                network:
                  - request: POST https://api.example.org/v1/session?*
                    response: { status: 201, json: { session: { token: tok-9a8b }, items: [{ name: a }, { name: b }] } }
                script: []
                expect: { end: done }
                """)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("http POST https://api.example.org/v1/session?user=••• → 201"))
        #expect(transcript.text.contains(#"names: ["a", "b"]"#))
        #expect(transcript.text.contains(#"note: """#), "an optional capture that is absent is empty")
        for secret in ["tok-9a8b", "top-secret-bearer", "hunter2"] {
            #expect(!transcript.text.contains(secret) && !transcript.jsonl.contains(secret), "\(secret) leaked")
        }
    }

    @Test func statusesOfflineAndMissingStubs() async throws {
        let failed = try await run(
            journeys: [Self.call],
            scenario: """
                scenario: s
                journey: t.one
                network:
                  - request: POST https://api.example.org/*
                    response: { status: 503 }
                script: []
                expect: { end: other }
                """)
        #expect(failed.report.passed, "\(failed.report.problems)")
        #expect(failed.transcript.text.contains("outcome failed {status: 503}"))
        let offline = try await run(
            journeys: [Self.call],
            scenario: "scenario: s\njourney: t.one\ndevice: { online: false }\nscript: []\nexpect: { end: other }")
        #expect(offline.report.passed, "\(offline.report.problems)")
        #expect(offline.transcript.text.contains("→ offline"))
        let unstubbed = try await run(
            journeys: [Self.call],
            scenario: """
                scenario: s
                journey: t.one
                network:
                  - request: GET https://api.example.org/v1/other
                    response: { status: 200 }
                script: []
                expect: { end: done }
                """)
        #expect(
            unstubbed.report.problems.first?.contains("no stub for POST https://api.example.org/v1/session?user=•••")
                == true)
    }

    /// A request the stubs do not answer fails the step whatever the handler: an OAuth handler
    /// must not take the scenario's mistake for an offline network.
    @Test func anUnstubbedRequestFailsTheStepInEveryHandler() async throws {
        let journey = """
            journey: t.info
            version: 1
            title: Info
            start: info
            steps:
              info:
                handler: oidc.userinfo
                with: { endpoint: "https://op.example.org/userinfo", accessToken: "t" }
                on: { ok: done, unauthorized: done, failed: done, offline: done }
            ends:
              done: { kind: success }
            """
        let (report, transcript) = try await run(
            journeys: [journey],
            scenario: """
                scenario: s
                journey: t.info
                network:
                  - request: GET https://op.example.org/other
                    response: { status: 200 }
                script: []
                expect: { end: done }
                """)
        #expect(!report.passed)
        #expect(report.problems.contains { $0.contains("no stub for GET https://op.example.org/userinfo") })
        #expect(!transcript.text.contains("outcome offline"))
    }

    @Test func originsNormaliseSchemeHostAndPort() {
        #expect(URLOrigin.of("http://127.0.0.1:4593/api/oidc/x?y=1") == "http://127.0.0.1:4593")
        #expect(URLOrigin.of("HTTPS://Example.ORG/a") == "https://example.org:443")
        #expect(URLOrigin.of("https://example.org:443") == "https://example.org:443")
        #expect(URLOrigin.of("http://user@example.org/") == "http://example.org:80")
        #expect(URLOrigin.of("not a url") == nil)
    }

    /// With stubs and a needed service, only the service's origin reaches the live side;
    /// another port on the same host, or another host, gets the stubs.
    @Test func hostsAreReadAsABrowserReadsThem() {
        #expect(URLHost.of(#"https://evil.example\@eduid.nl/created"#, scheme: "https") == "evil.example")
        #expect(URLHost.of("https://eduid.nl@evil.example/", scheme: "https") == "evil.example")
        #expect(URLHost.of(" HTTPS://User@EduID.nl:443/x ", scheme: "https") == "eduid.nl")
        #expect(URLHost.of(#"http:\\example.com/a"#, scheme: "http") == "example.com")
        #expect(URLHost.of("http://[::1]:8080/", scheme: "http") == "::1")
        #expect(URLHost.of("https://eduid.nl/", scheme: "http") == nil)
    }

    @Test func routingSendsOnlyTheNeededOriginLive() async throws {
        final class Live: NetworkTransport {
            var seen: [String] = []
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                seen.append(request.url)
                return HTTPResponse(status: 299)
            }
        }
        let live = Live()
        let stub = NetworkStub(
            method: "GET", url: "*", status: 201, body: "", times: nil,
            location: SourceLocation(file: "s.yaml", line: 1, column: 1))
        let network = RoutingNetwork(
            live: live, stubs: StubNetwork(stubs: [stub]),
            liveServices: ["http://127.0.0.1:4593/api/oidc/.well-known/openid-configuration"])
        #expect(
            try await network.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:4593/api/oidc/token")).status
                == 299)
        #expect(try await network.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:4594/api")).status == 201)
        #expect(try await network.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:4593/api")).status == 201)
        #expect(try await network.send(HTTPRequest(method: "GET", url: "https://api.example.org/me")).status == 201)
        #expect(live.seen == ["http://127.0.0.1:4593/api/oidc/token"])
    }

    @Test func stubsWithTimesStepAside() async throws {
        let twice = """
            journey: t.one
            version: 1
            title: Twice
            start: a
            steps:
              a:
                handler: http.request
                with: { url: "https://x.org/n" }
                on: { ok: b, failed: other, offline: other }
              b:
                handler: http.request
                with: { url: "https://x.org/n" }
                on: { ok: other, failed: done, offline: other }
            ends:
              done: { kind: success }
              other: { kind: failure }
            """
        let (report, _) = try await run(
            journeys: [twice],
            scenario: """
                scenario: s
                journey: t.one
                network:
                  - request: GET https://x.org/n
                    response: { status: 200 }
                    times: 1
                  - request: GET https://x.org/*
                    response: { status: 404 }
                script: []
                expect: { end: done }
                """)
        #expect(report.passed, "\(report.problems)")
    }

    @Test(arguments: [
        ("https://api2oss.diia.gov.ua/cb?code=abc&state=s", "code"),
        ("https://API2OSS.diia.gov.ua:443/cb?state=s&code=abc", "code"),
        ("https://api2oss.diia.gov.ua/cb?state=s", "navigated"),
        // BankIdAuthPresenter takes the first `code` item with a value: `code=` has the value "";
        // `code` alone has none (URLQueryItem.value is nil).
        ("https://api2oss.diia.gov.ua/cb?code=", "code"),
        ("https://api2oss.diia.gov.ua/cb?code&state=s", "navigated"),
        ("https://evil.example/cb?code=abc", "navigated"),
        ("https://user@evil.example/api2oss.diia.gov.ua?code=abc", "navigated"),
        ("privat24://open", "external"),
        ("unknownbank://open", "navigated"),
        ("https://apps.apple.com/ua/app/x", "external"),
    ])
    func bankPageRoutesRedirects(redirect: String, outcome: String) async throws {
        let page = """
            journey: t.one
            version: 1
            title: Page
            start: s
            steps:
              s:
                handler: bankid.page
                with: { url: "https://bank.example/auth", handledHosts: [api2oss.diia.gov.ua] }
                on: { code: done, navigated: other, external: ext }
            ends:
              done: { kind: success }
              other: { kind: failure }
              ext: { kind: cancel }
            """
        let expected = ["code": "done", "navigated": "other", "external": "ext"][outcome]!
        let (report, transcript) = try await run(
            journeys: [page],
            scenario: """
                scenario: s
                journey: t.one
                device: { apps: [privat24] }
                script:
                  - at: s
                    redirect: "\(redirect)"
                expect: { end: \(expected) }
                """)
        #expect(report.passed, "\(redirect): \(report.problems)")
        #expect(!transcript.text.contains("code=abc"))
    }

    @Test func shippedDiiaTranscriptsHoldNoCodeTokenOrAuthURL() throws {
        let folder = packageRoot.appendingPathComponent("journeys/diia/transcripts")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count >= 58)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for secret in ["c0de-77", "user-token-5c1e", "client=diia", "session=abc", "4826", "5917", "2468"] {
                #expect(!text.contains(secret), "\(file) contains \(secret)")
            }
        }
    }
}
