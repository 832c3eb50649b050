import Foundation
import Testing

/// The OAuth journeys against the real OpenID provider that ./scripts/test starts on
/// 127.0.0.1 (Tests/oidc/provider.sh), compared with their goldens, twice for determinism.
@Suite("OAuth journeys against the real provider")
struct LiveProviderTests {
    @Test(
        "eIAM's, eduID's and Locker's scenarios pass against Glewlwyd and match their goldens", .timeLimit(.minutes(30))
    )
    func eiamAgainstTheProvider() async throws {
        let result = try await runJourney(
            ["test", "journeys/eiam", "journeys/eduid", "journeys/locker", "--repeat", "2"], cwd: Paths.root,
            timeout: 160)
        #expect(
            !result.stdout.contains("SKIP"),
            "the provider is not running: start it with Tests/oidc/provider.sh start (./scripts/test does)")
        let count = ["eiam", "eduid", "locker"].map {
            files(under: Paths.journeys.appendingPathComponent($0), endingWith: ".scenario.yaml").count
        }.reduce(0, +)
        #expect(result.status == Exit.ok, "\(result.stdout)")
        #expect(result.stdoutLines.last == "\(count) passed, 0 failed")
    }

    @Test("without the provider, its scenarios are skipped, not failed")
    func skippedWithoutTheProvider() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let scenario = journeys.appendingPathComponent("eiam/scenarios/i1-sign-in-with-pkce.scenario.yaml")
            try writeText(
                try String(contentsOf: scenario, encoding: .utf8).replacingOccurrences(
                    of: "needs: [\"http://127.0.0.1:4593", with: "needs: [\"http://127.0.0.1:9"), to: scenario)
            let result = try await runJourney(["test", "journeys/eiam", "--filter", "i1-sign-in"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdout.contains("SKIP eiam.login › i1-sign-in-with-pkce: needs http://127.0.0.1:9"))
            #expect(result.stdoutLines.last == "0 passed, 0 failed, 1 skipped")
        }
    }
}
