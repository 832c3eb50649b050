import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// The redirect check before any token request: the registered URI exactly, then the state
/// sent, compared in constant time.
@Suite("oidc.callback checks the state sent")
struct OIDCCallbackTests {
    static let journey = oneStep(
        """
        handler: oidc.callback
        with:
          redirect: "${params.redirect}"
          redirectUri: "com.example.app:/callback"
          state: "${params.sent}"
          issuer: "https://op.example"
        on:
          code: done
          error: other
          stateMismatch: other
          foreign: other
        """,
        extra: """
            params:
              redirect: { type: string, secret: true, default: "" }
              sent: { type: string, secret: true, default: "" }
            """)

    static func end(redirect: String, sent: String) async throws -> String? {
        let scenario = """
            scenario: s
            journey: t.one
            params: { redirect: "\(redirect)", sent: "\(sent)" }
            script: []
            expect: { end: done }
            """
        let (report, _) = try await run(journeys: [journey], scenario: scenario)
        return report.result.end
    }

    @Test(
        "a code is taken only with the state sent; with none sent, an empty or missing state matches nothing",
        arguments: [
            ("com.example.app:/callback?code=c1&state=s-123", "s-123", "done"),
            ("com.example.app:/callback?code=c1&state=s-124", "s-123", "other"),
            ("com.example.app:/callback?code=c1", "s-123", "other"),
            // A journey that passes a state it never set: an attacker's redirect with `state=`.
            ("com.example.app:/callback?code=attacker&state=", "", "other"),
            ("com.example.app:/callback?code=attacker", "", "other"),
            // A `?` in the fragment starts no query (it crashed the run: its range ran backwards).
            ("com.example.app:/callback#?code=c1&state=s-123", "s-123", "other"),
            ("com.example.app:/callback?code=c1&state=s-123#?state=x", "s-123", "done"),
            // A parameter twice is no answer (RFC 6749 §3.1); another provider's answer is a
            // mix-up (RFC 9207); the one asked, saying so, is taken.
            ("com.example.app:/callback?code=c1&code=c2&state=s-123", "s-123", "other"),
            ("com.example.app:/callback?code=c1&state=s-123&state=s-123", "s-123", "other"),
            ("com.example.app:/callback?code=c1&state=s-123&iss=https%3A%2F%2Fevil.example", "s-123", "other"),
            ("com.example.app:/callback?code=c1&state=s-123&iss=https%3A%2F%2Fop.example", "s-123", "done"),
        ])
    func state(redirect: String, sent: String, end: String) async throws {
        #expect(try await Self.end(redirect: redirect, sent: sent) == end, "\(redirect) with '\(sent)' sent")
    }
}

@Suite("URLParts reads what routing needs")
struct URLPartsTests {
    @Test("the query is what follows the first ? before the fragment; a host is read without its port or brackets")
    func parts() {
        let inFragment = URLParts("partnerapp://tinkoff-callback#?code=c-1234")
        #expect(inFragment.items.isEmpty && inFragment.host == "tinkoff-callback")
        #expect(URLParts.queryNames("eiam://redirect/#?code=x&state=y").isEmpty)
        let both = URLParts("https://a.example/cb?code=1&x#frag?code=2")
        #expect(both.query == ["code": "1"])
        #expect(URLParts.queryNames("https://a.example/cb?code=1&x#frag?code=2") == ["code", "x"])
        #expect(URLParts("http://[::1]:8080/cb?a=b").host == "::1")
        #expect(URLParts("http://user@Host.Example:443/").host == "host.example")
        // Nothing written ever stops the parse short of its end.
        for url in ["#?", "x:#?", "x://#?", "x://h?#", "?#?", "x://[", "x://[::1", "a:?=&=#?="] {
            _ = URLParts(url)
            _ = URLParts.queryNames(url)
        }
    }
}

@Suite("oidc.endSession tells the provider's page from another host's")
struct OIDCEndSessionTests {
    /// A provider whose end-session endpoint redirects to `location`.
    final class Redirecting: NetworkTransport, @unchecked Sendable {
        let location: String
        init(_ location: String) { self.location = location }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(status: 302, headers: ["location": location])
        }
    }

    static func outcome(redirectingTo location: String) async throws -> String? {
        let journey = """
            journey: t.one
            version: 1
            title: End session
            params:
              idToken: { type: string, secret: true, default: "" }
            start: s
            steps:
              s:
                handler: oidc.endSession
                with:
                  endpoint: https://op.example/end
                  idToken: "${params.idToken}"
                  postLogoutRedirectUri: "com.example.app:/out"
                  providerApi: https://op.example/api
                  cookieJar: cookies
                on: { ended: done, refused: refused, openRedirect: openRedirect, offline: offline }
            ends:
              done: { kind: success }
              refused: { kind: failure }
              openRedirect: { kind: failure }
              offline: { kind: failure }
            """
        let scenario = """
            scenario: s
            journey: t.one
            params: { idToken: "a.b.c" }
            script: []
            expect: { end: done }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(journey.utf8)), SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
        ])
        let library = try #require(project.library)
        let compiled = try #require(project.scenarios.first)
        let transport = Redirecting(location)
        let report = await player(transport: { transport }).run(compiled, in: library, transcript: Collector())
        return report.result.end
    }

    @Test(
        "a redirect to another host, however written, is an open redirect; to the URI asked for, the session ended",
        arguments: [
            ("//evil.example/steal?sid=s1&plugin=oidc", "openRedirect"),
            ("/\\evil.example/steal?sid=s1&plugin=oidc", "openRedirect"),
            ("https://evil.example/x", "openRedirect"),
            ("com.example.app:/out", "done"),
        ])
    func hosts(location: String, end: String) async throws {
        #expect(try await Self.outcome(redirectingTo: location) == end, "\(location)")
    }
}
