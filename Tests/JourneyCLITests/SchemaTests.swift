import Foundation
import Testing

/// The JSON Schemas in schemas/ agree with the loader: every shipped journey, scenario and
/// transcript line validates with a real JSON Schema validator (Python's jsonschema), the
/// schema rejects every file in Tests/Fixtures/schema-bad that `journey check` rejects, and
/// accepts the good ones it accepts; the reports of `journey explore --json` and `journey test
/// --json` validate, show every property their schemas declare, and broken ones are rejected. `./scripts/test` installs jsonschema when it is missing.
@Suite("JSON Schemas")
struct SchemaTests {
    @Test("shipped files validate and the schemas agree with the loader")
    func schemasAgreeWithTheLoader() async throws {
        let binary = try #require(Paths.journeyBinary, "the journey binary was not found")
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let probe = try await runProcess(python, ["python3", "-c", "import jsonschema, yaml"], cwd: Paths.root)
        try #require(
            probe.status == 0,
            "python3 with jsonschema and PyYAML is needed; ./scripts/test installs them\n\(probe.stderr)")
        let result = try await runProcess(
            python, ["python3", "Tests/schema/check_schemas.py", "--journey-bin", binary.path], cwd: Paths.root,
            timeout: 600)
        let failures = result.stdoutLines.filter { $0.hasPrefix("FAIL") }
        #expect(result.status == 0, "\(failures.joined(separator: "\n"))\n\(result.stderr)")
        let summary = try #require(result.stdoutLines.last)
        #expect(summary.hasSuffix(" passed, 0 failed"), "\(summary)")
        let passed = Int(summary.split(separator: " ").first ?? "") ?? 0
        #expect(passed >= 90, "the checker ran fewer checks than expected: \(summary)")
    }
}
