import Foundation
import Testing

/// Tests/Fixtures/timers end to end: a code screen whose resend button enables after a
/// minute, a limit whose maximum the scenario passes, and a 15-minute lockout that survives a
/// restart. Its scenarios pass against their goldens, `journey check` locates misuse, and the
/// docs tell the lockout and the evaluated maximum.
@Suite("Time while a screen shows, lockouts and computed maximums, end to end", .timeLimit(.minutes(30)))
struct TimersFixtureTests {
    static let folder = "Tests/Fixtures/timers"

    @Test("the scenarios pass against their goldens, which hold the updated screens and the lockout")
    func scenariosPass() async throws {
        let result = try await runJourney(["test", Self.folder], cwd: Paths.root)
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(result.stdoutLines.last == "2 passed, 0 failed", "\(result.stdout)")
        let root = Paths.root.appendingPathComponent(Self.folder).appendingPathComponent("transcripts")
        let resend = try String(contentsOf: root.appendingPathComponent("resend-after-a-minute.txt"), encoding: .utf8)
        #expect(resend.contains(#"00:59.000   screen updated "Enter the code" · text "A new code in 1 s."#))
        #expect(resend.contains(#"01:00.000   screen updated "Enter the code" · text "No code? Ask for a new one."#))
        #expect(resend.contains("00:59.000   input refused action=\"resend\""))
        #expect(resend.contains("01:00.000   input action=\"resend\""))
        let lockout = try String(
            contentsOf: root.appendingPathComponent("locked-out-for-15-minutes.jsonl"), encoding: .utf8)
        #expect(
            lockout.contains(
                #""event":"attempt","step":"code","limit":"codeEntry","action":"exceeded","count":2,"max":2"#))
        #expect(lockout.contains(#""event":"state.set","variable":"stored.codeLockedUntil","value":1767258900"#))
        #expect(
            lockout.contains(
                #""event":"attempt","step":"code","limit":"codeEntry","action":"locked","count":0,"max":2"#))
        #expect(
            lockout.contains(
                #""event":"attempt","step":"code","limit":"codeEntry","action":"unlocked","count":0,"max":2"#))
        #expect(lockout.contains(#""text":"Try again in 1 s (1s).""#))
    }

    @Test("misuse of each construct is a located error, exit 2")
    func misuseIsLocated() async throws {
        let original = try String(
            contentsOf: Paths.root.appendingPathComponent(Self.folder).appendingPathComponent("code.journey.yaml"),
            encoding: .utf8)
        let cases: [(from: String, to: String, id: String, at: String)] = [
            ("lockout: 15m", "lockout: 1500ms", "value.range", "28:14"),
            ("lockedUntil: stored.codeLockedUntil", "lockedUntil: state.sentAt", "limit.lockout", "29:18"),
            ("max: \"${params.maxAttempts}\"", "max: \"${params.resendAfter}\"", "value.type", "25:10"),
            (
                "enabled: \"${since(state.sentAt) >= params.resendAfter}\"",
                "enabled: \"${device.now - state.sentAt >= params.resendAfter}\"", "expr.type", "52:81"
            ),
            ("${!limits.codeEntry.locked}", "${!limits.codeEntry.lockd}", "expr.undefined", "65:49"),
        ]
        for (from, to, id, at) in cases {
            try await withTemporaryDirectory { directory in
                #expect(original.contains(from), "\(from)")
                let file = directory.appendingPathComponent("code.journey.yaml")
                try writeText(original.replacingOccurrences(of: from, with: to), to: file)
                let result = try await runJourney(["check", file.path], cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(to): \(result)")
                let errors = result.diagnostics.filter { $0.severity == "error" }
                #expect(errors.map { "\($0.id) \($0.position)" } == ["\(id) \(at)"], "\(to): \(result.stderr)")
            }
        }
    }

    @Test("the docs show the evaluated maximum and the lockout, and cover the locked edge")
    func docs() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs").path
            let result = try await runJourney(["docs", Self.folder, "--out", out], cwd: Paths.root)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            let page = try String(contentsOfFile: out + "/timers.code.md", encoding: .utf8)
            #expect(
                page.contains("**codeEntry**: 3 (`${params.maxAttempts}` with the params' defaults) in a row"),
                "\(page)")
            #expect(page.contains("the limit locks for 15m (its end kept in `stored.codeLockedUntil`)"), "\(page)")
            #expect(page.contains("limit `codeEntry` locked"), "\(page)")
            #expect(page.contains("`stored.codeLockedUntil`"))
        }
    }
}
