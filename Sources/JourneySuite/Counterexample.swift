import JourneyCore

/// A counterexample as an ordinary scenario: the moves as a script, stopping where the rule
/// breaks and expecting what the rule demands there, so that replaying it fails with the
/// violation.
public enum Counterexample {
    /// How the second line of every scenario `journey explore` writes begins: a file that has
    /// it may be written again by a later exploration; any other is the user's.
    public static let mark = "# Written by journey explore"
    /// The tag of a scenario written here: `journey test` plays it as any other, and exploring
    /// does not start from it (it starts where the exploration that found it did), so that
    /// counterexamples written into a folder that is explored change nothing in the next one.
    public static let tag = "counterexample"

    /// The scenario, starting on the default device, or where `start` (the text of the
    /// scenario the exploration started from) starts: its device, params, network stubs and
    /// needs are kept as written, its script and expectations replaced.
    public static func scenario(
        _ violation: JourneyExplorer.Violation, of result: JourneyExplorer.Result, journey: CompiledJourney,
        startingFrom start: String? = nil
    ) -> String {
        var lines = [
            "# yaml-language-server: $schema=https://journeykit.dev/schemas/scenario.schema.json",
            "\(mark): \(result.random.map { "a path of the random walks from seed \($0.seed)" } ?? "the shortest path") that breaks \(violation.id)"
                + (result.start.map { ", starting where scenario \($0) starts." } ?? "."),
            "# \(violation.id): \(PrintableText.escaped(violation.message))",
            "scenario: \(id(violation, of: result))",
            "journey: \(result.journey)",
            "title: \(quoted(violation.rule))",
            "tags: [explore, \(Self.tag)]",
        ]
        lines += starting(start)
        // A path that opens the app again after an end is played as sessions, one per launch.
        let sessions = sessions(violation.path)
        let last = sessions[sessions.count - 1]  // never empty
        var stopsAt: String?
        for case .input(let step, _, _) in last.moves { stopsAt = step }
        // A move that breaks the rule and ends the journey: the replay reaches that end, and
        // fails on what the rule demands there.
        var expect =
            if violation.step == nil, let end = violation.end {
                ["end: \(end)"]
            } else {
                ["at: \(violation.step ?? stopsAt ?? journey.source.start.value)"]
            }
        // A counter in the state of a journey the root calls is read where the run waits in it.
        // The journey the run waits in, where it is one the journey calls: a step of the same
        // name may be the caller's too.
        if let within = violation.expected?.journey ?? violation.waitingIn, violation.step != nil {
            expect.append("in: \(within)")
        }
        // A trap is where no way on ends: the replay explores from where it stops, and fails
        // while no end can be reached from there.
        if violation.invariant == .reachesAnEnd, violation.step != nil { expect.append("canEnd: true") }
        if let expected = violation.expected {
            // A limit's count by the limit: the expectation outlives the count moved to `stored`.
            expect.append(
                expected.limit.map { "limits: { \($0): \(expected.value) }" }
                    ?? "\(expected.variable.scope.rawValue): { \(expected.variable.name): \(expected.value) }")
        }
        lines += played(sessions, expecting: expect)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `script:` and `expect:` of a scenario that plays `sessions` (``sessions(_:)``) and
    /// expects `expect` (lines such as `end: unlocked`) where the last one stops: one script,
    /// or, when the app was opened again after an end, `sessions:`, each expecting the end it
    /// reached.
    public static func played(
        _ sessions: [(moves: [JourneyExplorer.Move], end: String?)], expecting expect: [String]
    ) -> [String] {
        var lines: [String] = []
        if sessions.count == 1 {
            lines += script(sessions[0].moves)
            lines.append("expect:")
            lines += expect.map { "  " + $0 }
        } else {
            lines.append("sessions:")
            for session in sessions {
                let entries = script(session.moves)
                lines.append("  - " + entries[0])
                lines += entries.dropFirst().map { "    " + $0 }
                if let end = session.end {
                    lines.append("    expect: { end: \(end) }")
                } else {
                    lines.append("    expect:")
                    lines += expect.map { "      " + $0 }
                }
            }
        }
        return lines
    }

    /// A path's moves split at each launch after an end: each session's moves and the end it
    /// reached (nil for the last, which stops where the rule breaks).
    public static func sessions(_ moves: [JourneyExplorer.Move]) -> [(moves: [JourneyExplorer.Move], end: String?)] {
        var sessions: [(moves: [JourneyExplorer.Move], end: String?)] = [([], nil)]
        for move in moves {
            if case .relaunch(let end) = move {
                sessions[sessions.count - 1].end = end
                sessions.append(([], nil))
            } else {
                sessions[sessions.count - 1].moves.append(move)
            }
        }
        return sessions
    }

    /// Where a scenario written from explored or played moves starts: as the scenario `start`
    /// (its text) starts (``startingBlocks(_:)``), or on the device `journey explore` uses
    /// (``JourneyExplorer/defaultDevice``).
    public static func starting(_ start: String?) -> [String] {
        start.map(startingBlocks) ?? ["device: { biometry: faceID, enrolled: true, kdfRounds: 1 }"]
    }

    /// The `script:` entry of a scenario that plays `moves`: each input as `- at: STEP` with
    /// its values, restarts, clock jumps and network changes; `script: []` for none.
    public static func script(_ moves: [JourneyExplorer.Move]) -> [String] {
        guard !moves.isEmpty else { return ["script: []"] }
        var lines = ["script:"]
        for move in moves {
            switch move {
            case .input(let step, _, let values):
                lines.append("  - at: \(step)")
                for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                    lines.append("    \(name): \(yaml(value))")
                }
            case .restart: lines.append("  - restart")
            case .relaunch: break  // a new session (``sessions(_:)``)
            case .clock(let milliseconds):
                lines.append("  - advance: \(JourneyCore.Duration.format(milliseconds: milliseconds))")
            case .network(let online): lines.append("  - online: \(online)")
            }
        }
        return lines
    }

    /// The counterexample's id: the journey's or the starting scenario's, then the rule's name,
    /// within the 64 characters an id may have.
    public static func id(_ violation: JourneyExplorer.Violation, of result: JourneyExplorer.Result) -> String {
        let name = violation.name
        let base = result.start ?? result.journey.replacingOccurrences(of: ".", with: "-")
        var prefix = String(base.prefix(max(1, 63 - name.count)))
        while prefix.count > 1, prefix.last == "-" || prefix.last == "_" { prefix.removeLast() }
        return "\(prefix)-\(name)"
    }

    /// The top-level entries of a scenario's text that say where it starts (all but its name,
    /// title, tags, script, sessions and expectations), as written, comments inside them kept.
    public static func startingBlocks(_ text: String) -> [String] {
        let replaced: Set<String> = [
            "scenario", "journey", "title", "tags", "script", "sessions", "expect", "description", "summary",
        ]
        var kept: [String] = []
        var keeping = false
        for line in text.lines.map(String.init) {
            if let first = line.first, first != " ", first != "\t", first != "#", first != "-",
                let colon = line.firstIndex(of: ":")
            {
                keeping = !replaced.contains(String(line[..<colon]).trimmingCharacters(in: .whitespaces))
            } else if line.first == "#" {
                continue  // a comment at the top level belongs to no entry it can be kept with
            }
            if keeping { kept.append(line) }
        }
        while kept.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { kept.removeLast() }
        return kept
    }

    public static func yaml(_ value: Value) -> String {
        switch value.revealed {
        case .string(let text): quoted(text)
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .duration(let milliseconds): JourneyCore.Duration.format(milliseconds: milliseconds)
        case .list(let items): "[" + items.map(yaml).joined(separator: ", ") + "]"
        case .secret: "\"\""
        }
    }

    /// `text` as a YAML double-quoted scalar: a JSON string is one, control characters (an
    /// escape a terminal's arrow keys type) escaped as the safe YAML reader takes them.
    public static func quoted(_ text: String) -> String { JSONLinesEncoder.quoted(text) }
}
