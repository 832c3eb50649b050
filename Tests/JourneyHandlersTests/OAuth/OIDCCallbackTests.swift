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
        with: { redirect: "${params.redirect}", redirectUri: "com.example.app:/callback", state: "${params.sent}" }
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
        ])
    func state(redirect: String, sent: String, end: String) async throws {
        #expect(try await Self.end(redirect: redirect, sent: sent) == end, "\(redirect) with '\(sent)' sent")
    }
}
