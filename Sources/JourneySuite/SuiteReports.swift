import JourneyCore

/// Counts of a suite run.
public struct SuiteSummary: Sendable, Equatable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0
    /// Scenarios that could not run: their file, or their journey's, has errors.
    public var errors = 0
    /// Passed scenarios whose goldens `--update` wrote (they changed, or there were none).
    public var recorded = 0

    public init(_ outcomes: [ScenarioOutcome]) {
        for outcome in outcomes {
            switch outcome.status {
            case .failed: failed += 1
            case .skipped: skipped += 1
            case .error: errors += 1
            case .passed: passed += 1
            case .recorded:
                passed += 1
                recorded += 1
            }
        }
    }

    /// `N passed, N failed` (with `, N skipped` and `, N errors` when there were some), the line
    /// CI systems read.
    public var line: String {
        "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
            + (errors > 0 ? ", \(errors) error\(errors == 1 ? "" : "s")" : "")
    }

    /// What `--update` did to the goldens of the scenarios that passed: `N golden pairs
    /// recorded, N unchanged`.
    public var updateLine: String {
        let unchanged = passed - recorded
        return
            (recorded == 0 ? "no golden pair recorded" : "\(recorded) golden pair\(recorded == 1 ? "" : "s") recorded")
            + (unchanged > 0 ? ", \(unchanged) unchanged" : "")
    }
}

/// Where a suite run stands, as its reports say: a report is written before the first
/// scenario runs, so that a run that dies (a kill, a power cut) never leaves an earlier run's
/// report looking like its own.
public enum SuiteRunState: String, Sendable, Codable {
    /// The run has started and has not finished: the report is not a result.
    case running
    /// The run was stopped (SIGINT, SIGTERM) before every scenario ran; what finished is listed.
    case interrupted
    /// Every selected scenario ran.
    case finished
}

/// What the reports of one `journey test` run hold.
public struct SuiteReport: Sendable {
    public var outcomes: [ScenarioOutcome]
    /// Errors in the files that no scenario outcome stands for (a journey file with errors, a
    /// file that is neither a journey nor a scenario).
    public var errors: [Diagnostic]
    public var state: SuiteRunState
    /// How many scenarios the run selected (so an interrupted report says how many did not run).
    public var selected: Int
    /// Why the run was interrupted (a signal's name), when it was.
    public var interruption: String?

    public init(
        outcomes: [ScenarioOutcome], errors: [Diagnostic] = [], state: SuiteRunState = .finished,
        selected: Int? = nil, interruption: String? = nil
    ) {
        self.outcomes = outcomes
        self.errors = errors.filter { $0.severity == .error }
        self.state = state
        self.selected = selected ?? outcomes.count
        self.interruption = interruption
    }

    /// What a running or interrupted report says about the run itself.
    var stateMessage: String? {
        switch state {
        case .finished: return nil
        case .running:
            return "journey test is running (or was killed before it finished): this report is not a result"
        case .interrupted:
            // `selected` counts scenarios; explorations (`journey test --explore`) come after them.
            let ran = outcomes.filter { !$0.isExploration }.count
            let explored = outcomes.count - ran
            let by = interruption.map { " by \($0)" } ?? ""
            var message = "the run was interrupted\(by) after \(ran) of \(selected) scenarios"
            if explored > 0 { message += explored == 1 ? " and 1 exploration" : " and \(explored) explorations" }
            if ran < selected {
                message += "; the others did not run"
            } else if explored > 0 {
                message += "; the rest was not explored"
            }
            return message
        }
    }
}

/// JUnit XML as GitHub, GitLab and Jenkins render it: a `testsuite` per journey, a `testcase`
/// per scenario, the first problem as the failure message and the diff in its body. Scenarios
/// that could not run are `error`s; file errors no scenario stands for, and a run that is
/// still going or was interrupted, are `error`s of a `journey test` suite, so CI never reads
/// such a report as a pass.
public enum JUnitReport {
    public static func render(_ outcomes: [ScenarioOutcome]) -> String {
        render(SuiteReport(outcomes: outcomes))
    }

    public static func render(_ report: SuiteReport) -> String {
        let outcomes = report.outcomes
        let summary = SuiteSummary(outcomes)
        var runErrors: [(name: String, file: String, type: String, message: String, body: String)] = []
        for error in report.errors {
            let at = "\(error.location.file):\(error.location.line):\(error.location.column)"
            runErrors.append(
                (at, error.location.file, error.id, error.message, "\(at): error: \(error.message) [\(error.id)]"))
        }
        if let message = report.stateMessage {
            runErrors.append((report.state.rawValue, "", report.state.rawValue, message, message))
        }
        let errorCount = summary.errors + runErrors.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let total = outcomes.reduce(0) { $0 + $1.milliseconds }
        xml +=
            #"<testsuites name="journey test" tests="\#(outcomes.count + runErrors.count)" failures="\#(summary.failed)" errors="\#(errorCount)" skipped="\#(summary.skipped)" time="\#(seconds(total))">"#
            + "\n"
        if !runErrors.isEmpty {
            xml +=
                #"  <testsuite name="journey test" tests="\#(runErrors.count)" failures="0" errors="\#(runErrors.count)" skipped="0" time="0.000">"#
                + "\n"
            for error in runErrors {
                xml +=
                    #"    <testcase classname="journey test" name="\#(escape(error.name))" file="\#(escape(error.file))" time="0.000">"#
                    + "\n"
                xml += #"      <error message="\#(escape(error.message))" type="\#(escape(error.type))">"#
                xml += escape(error.body) + "</error>\n"
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        var journeys: [String] = []
        for outcome in outcomes where !journeys.contains(outcome.journey) { journeys.append(outcome.journey) }
        for journey in journeys {
            let cases = outcomes.filter { $0.journey == journey }
            let failures = cases.filter { $0.status == .failed }.count
            let errors = cases.filter { $0.status == .error }.count
            let skippedCases = cases.filter { $0.status == .skipped }.count
            let time = cases.reduce(0) { $0 + $1.milliseconds }
            xml +=
                #"  <testsuite name="\#(escape(journey))" tests="\#(cases.count)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skippedCases)" time="\#(seconds(time))">"#
                + "\n"
            for outcome in cases {
                let head =
                    #"    <testcase classname="\#(escape(journey))" name="\#(escape(outcome.scenario))" file="\#(escape(outcome.file))" time="\#(seconds(outcome.milliseconds))""#
                if outcome.status == .skipped {
                    let reason = outcome.problems.first?.message ?? "skipped"
                    xml += head + ">\n      <skipped message=\"\(escape(reason))\"/>\n    </testcase>\n"
                    continue
                }
                guard let problem = outcome.problems.first, outcome.status == .failed || outcome.status == .error
                else {
                    xml += head + "/>\n"
                    continue
                }
                var body = outcome.problems.map(\.message).joined(separator: "\n")
                for diff in outcome.problems.compactMap(\.diff) { body += "\n\n" + diff }
                let element = outcome.status == .error ? "error" : "failure"
                xml += head + ">\n"
                xml += #"      <\#(element) message="\#(escape(problem.message))" type="\#(problem.kind.rawValue)">"#
                xml += escape(body) + "</\(element)>\n"
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
        render(SuiteReport(outcomes: [], errors: diagnostics))
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

/// The suite's results as JSON, for tools: the run's state, the summary, the errors no
/// scenario stands for, and every scenario in order.
public enum JSONReport {
    public static func render(_ outcomes: [ScenarioOutcome]) -> String {
        render(SuiteReport(outcomes: outcomes))
    }

    public static func render(_ report: SuiteReport) -> String {
        let outcomes = report.outcomes
        let summary = SuiteSummary(outcomes)
        var json = "{\n"
        json += #"  "state": \#(string(report.state.rawValue)),"# + "\n"
        if let message = report.stateMessage { json += #"  "message": \#(string(message)),"# + "\n" }
        json +=
            #"  "summary": {"passed": \#(summary.passed), "failed": \#(summary.failed), "skipped": \#(summary.skipped), "errors": \#(summary.errors), "selected": \#(report.selected)},"#
            + "\n"
        json += #"  "invalid": \#(report.errors.isEmpty && summary.errors == 0 ? "false" : "true"),"# + "\n"
        let items = report.errors.map { d in
            let fields = [
                #""file": \#(string(d.location.file))"#, #""line": \#(d.location.line)"#,
                #""column": \#(d.location.column)"#, #""severity": \#(string(d.severity.rawValue))"#,
                #""id": \#(string(d.id))"#, #""message": \#(string(d.message))"#,
            ]
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        json += #"  "diagnostics": ["# + (items.isEmpty ? "],\n" : "\n" + items.joined(separator: ",\n") + "\n  ],\n")
        json += #"  "scenarios": ["# + (outcomes.isEmpty ? "]\n" : "\n")
        for (index, outcome) in outcomes.enumerated() {
            var fields: [String] = [
                #""journey": \#(string(outcome.journey))"#, #""scenario": \#(string(outcome.scenario))"#,
                #""file": \#(string(outcome.file))"#,
                #""tags": [\#(outcome.tags.map(string).joined(separator: ", "))]"#,
                #""status": \#(string(outcome.status.rawValue))"#, #""steps": \#(outcome.steps)"#,
                #""milliseconds": \#(String(format: "%.3f", outcome.milliseconds))"#,
            ]
            // Where the run stopped: the end it reached, or the step it waits at.
            if let end = outcome.end { fields.append(#""end": \#(string(end))"#) }
            if let waiting = outcome.waiting { fields.append(#""waits": \#(string(waiting))"#) }
            if let note = outcome.note { fields.append(#""note": \#(string(note))"#) }
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
        render(SuiteReport(outcomes: [], errors: diagnostics))
    }

    private static func string(_ text: String) -> String { JSONLinesEncoder.quoted(text) }
}
