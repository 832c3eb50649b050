import JourneyCore

/// Counts of a suite run.
public struct SuiteSummary: Sendable, Equatable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0

    public init(_ outcomes: [ScenarioOutcome]) {
        for outcome in outcomes {
            switch outcome.status {
            case .failed: failed += 1
            case .skipped: skipped += 1
            case .passed, .recorded: passed += 1
            }
        }
    }

    /// `N passed, N failed` (with `, N skipped` when some were), the line CI systems read.
    public var line: String {
        "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
    }
}

/// JUnit XML as GitHub, GitLab and Jenkins render it: a `testsuite` per journey, a `testcase`
/// per scenario, the first problem as the failure message and the diff in its body.
public enum JUnitReport {
    public static func render(_ outcomes: [ScenarioOutcome]) -> String {
        let summary = SuiteSummary(outcomes)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let total = outcomes.reduce(0) { $0 + $1.milliseconds }
        xml +=
            #"<testsuites name="journey test" tests="\#(outcomes.count)" failures="\#(summary.failed)" errors="0" skipped="\#(summary.skipped)" time="\#(seconds(total))">"#
            + "\n"
        var journeys: [String] = []
        for outcome in outcomes where !journeys.contains(outcome.journey) { journeys.append(outcome.journey) }
        for journey in journeys {
            let cases = outcomes.filter { $0.journey == journey }
            let failures = cases.filter { $0.status == .failed }.count
            let skippedCases = cases.filter { $0.status == .skipped }.count
            let time = cases.reduce(0) { $0 + $1.milliseconds }
            xml +=
                #"  <testsuite name="\#(escape(journey))" tests="\#(cases.count)" failures="\#(failures)" errors="0" skipped="\#(skippedCases)" time="\#(seconds(time))">"#
                + "\n"
            for outcome in cases {
                let head =
                    #"    <testcase classname="\#(escape(journey))" name="\#(escape(outcome.scenario))" file="\#(escape(outcome.file))" time="\#(seconds(outcome.milliseconds))""#
                if outcome.status == .skipped {
                    let reason = outcome.problems.first?.message ?? "skipped"
                    xml += head + ">\n      <skipped message=\"\(escape(reason))\"/>\n    </testcase>\n"
                    continue
                }
                guard let problem = outcome.problems.first, outcome.status == .failed else {
                    xml += head + "/>\n"
                    continue
                }
                var body = outcome.problems.map(\.message).joined(separator: "\n")
                for diff in outcome.problems.compactMap(\.diff) { body += "\n\n" + diff }
                xml += head + ">\n"
                xml += #"      <failure message="\#(escape(problem.message))" type="\#(problem.kind.rawValue)">"#
                xml += escape(body) + "</failure>\n"
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    /// The report of a run that could not start because its input has errors: one `testcase`
    /// per error, reported as an `error`, so CI shows what is wrong instead of an old report.
    public static func render(invalid diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.filter { $0.severity == .error }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuites name="journey test" tests="\#(errors.count)" failures="0" errors="\#(errors.count)" skipped="0" time="0.000">"#
            + "\n"
        xml +=
            #"  <testsuite name="journey check" tests="\#(errors.count)" failures="0" errors="\#(errors.count)" skipped="0" time="0.000">"#
            + "\n"
        for error in errors {
            let at = "\(error.location.file):\(error.location.line):\(error.location.column)"
            xml +=
                #"    <testcase classname="journey check" name="\#(escape(at))" file="\#(escape(error.location.file))" time="0.000">"#
                + "\n"
            xml += #"      <error message="\#(escape(error.message))" type="\#(escape(error.id))">"#
            xml += escape("\(at): error: \(error.message) [\(error.id)]") + "</error>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    static func seconds(_ ms: Double) -> String {
        let value = (ms / 1000 * 1000).rounded() / 1000
        return String(format: "%.3f", value)
    }

    /// Escapes text for XML attributes and content; drops characters XML 1.0 cannot hold.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

/// The suite's results as JSON, for tools: the summary and every scenario in order.
public enum JSONReport {
    public static func render(_ outcomes: [ScenarioOutcome]) -> String {
        let summary = SuiteSummary(outcomes)
        var json = "{\n"
        json +=
            #"  "summary": {"passed": \#(summary.passed), "failed": \#(summary.failed), "skipped": \#(summary.skipped)},"#
            + "\n"
        json += #"  "scenarios": ["# + (outcomes.isEmpty ? "]\n" : "\n")
        for (index, outcome) in outcomes.enumerated() {
            var fields: [String] = [
                #""journey": \#(string(outcome.journey))"#, #""scenario": \#(string(outcome.scenario))"#,
                #""file": \#(string(outcome.file))"#,
                #""tags": [\#(outcome.tags.map(string).joined(separator: ", "))]"#,
                #""status": \#(string(outcome.status.rawValue))"#, #""steps": \#(outcome.steps)"#,
                #""milliseconds": \#(String(format: "%.3f", outcome.milliseconds))"#,
            ]
            let problems = outcome.problems.map { problem in
                var parts = [#""kind": \#(string(problem.kind.rawValue))"#, #""message": \#(string(problem.message))"#]
                if let diff = problem.diff { parts.append(#""diff": \#(string(diff))"#) }
                return "{" + parts.joined(separator: ", ") + "}"
            }
            fields.append(#""problems": [\#(problems.joined(separator: ", "))]"#)
            json += "    {" + fields.joined(separator: ", ") + "}" + (index == outcomes.count - 1 ? "\n  ]\n" : ",\n")
        }
        json += "}\n"
        return json
    }

    /// The report of a run that could not start because its input has errors: no scenario
    /// ran, `invalid` is true, and `diagnostics` says what is wrong.
    public static func render(invalid diagnostics: [Diagnostic]) -> String {
        var json = "{\n"
        json += #"  "summary": {"passed": 0, "failed": 0, "skipped": 0},"# + "\n"
        json += #"  "invalid": true,"# + "\n"
        let items = diagnostics.map { d in
            let fields = [
                #""file": \#(string(d.location.file))"#, #""line": \#(d.location.line)"#,
                #""column": \#(d.location.column)"#, #""severity": \#(string(d.severity.rawValue))"#,
                #""id": \#(string(d.id))"#, #""message": \#(string(d.message))"#,
            ]
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        json += #"  "diagnostics": ["# + (items.isEmpty ? "],\n" : "\n" + items.joined(separator: ",\n") + "\n  ],\n")
        json += #"  "scenarios": []"# + "\n}\n"
        return json
    }

    private static func string(_ text: String) -> String { JSONLinesEncoder.quoted(text) }
}
