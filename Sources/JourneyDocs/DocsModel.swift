import JourneyCore

/// A scenario that ran, with its transcript: the material for walkthroughs and coverage.
public struct ScenarioRecording: Sendable {
    public var journey: String
    public var scenario: String
    public var title: String?
    public var tags: [String]
    public var file: String
    public var records: [TranscriptRecord]
    public var passed: Bool

    public init(
        journey: String, scenario: String, title: String?, tags: [String], file: String, records: [TranscriptRecord],
        passed: Bool
    ) {
        self.journey = journey
        self.scenario = scenario
        self.title = title
        self.tags = tags
        self.file = file
        self.records = records
        self.passed = passed
    }
}

/// Everything the documentation says about one journey, in the order it is shown.
public struct JourneyDoc: Sendable {
    public struct Param: Sendable {
        public var name: String
        public var type: String
        public var defaultValue: String?
        public var description: String?
    }

    public struct Edge: Sendable, Hashable {
        public var from: String
        /// The outcome, or `limit NAME reached` for where an exceeded limit leads.
        public var outcome: String
        /// `always`, `if N` or `else`, as transcripts name branches.
        public var branch: String
        public var condition: String?
        public var to: String
        public var sets: [String]
        /// The limit whose `exceeded` transition this is; nil for an outcome's transition.
        public var limit: String?
    }

    public struct StepDoc: Sendable {
        public var id: String
        public var handler: String
        public var calls: String?
        public var title: String?
        public var text: String?
        public var actions: [(id: String, label: String, enabled: String)]
        public var fields: [String]
        public var note: String?
        public var edges: [Edge]
    }

    public struct Walkthrough: Sendable {
        public var scenario: String
        public var title: String?
        public var tags: [String]
        public var file: String
        public var lines: [String]
        public var end: String?
        public var passed: Bool
    }

    public var id: String
    public var title: String
    public var summary: String?
    public var file: String
    /// The folder the journey's file is in (`diia`, `eduid`, …), for grouping.
    public var group: String
    public var locale: String
    public var params: [Param]
    public var reads: [String]
    public var writes: [String]
    public var limits: [String]
    /// The auth rules the journey breaks on purpose: each rule's id, what it asks, and why the
    /// journey does not (``AuthRule``).
    public var exceptions: [(rule: String, asks: String, reason: String)] = []
    /// The rules the journey states about itself (`invariants:`): each one's reported id, its
    /// summary, and the rule as written.
    public var invariants: [(id: String, summary: String?, rule: String)] = []
    public var steps: [StepDoc]
    public var start: String
    public var ends: [(id: String, kind: EndKind, title: String?)]
    public var calls: [String]
    public var walkthroughs: [Walkthrough]
    /// Every transition of the journey, and those some scenario took.
    public var edges: [Edge]
    public var covered: Set<Edge>

    public var uncovered: [Edge] { edges.filter { !covered.contains($0) } }

    /// What the scenarios section says when no scenario plays the journey: a journey other
    /// journeys call may still have its transitions taken by their scenarios.
    static func noScenario(_ doc: JourneyDoc) -> String {
        doc.covered.isEmpty
            ? "No scenario plays this journey yet."
            : "No scenario plays this journey itself; the scenarios of journeys that call it take the transitions counted below."
    }
}

/// Builds ``JourneyDoc``s from journeys, their compiled form and scenario recordings.
public enum DocsBuilder {
    /// - Parameters:
    ///   - secretStoredKeys: stored keys secret anywhere in the project
    ///     (``CompiledLibrary/secretStoredKeys``): a value written into one is never shown.
    ///   - library: the journeys compiled, whose steps' contracts say which inputs and outcomes
    ///     are secret; without it, every input and outcome is taken as secret where an
    ///     expression reads one (its literals are not shown).
    public static func build(
        journeys: [Journey], recordings: [ScenarioRecording], locale: String?, secretStoredKeys: Set<String> = [],
        library: CompiledLibrary? = nil
    ) -> [JourneyDoc] {
        let taken = takenTransitions(recordings)
        let secretStoredKeys = secretStoredKeys.union(library?.secretStoredKeys ?? [])
        return journeys.sorted { $0.id.value < $1.id.value }.map { journey in
            let page = Page(
                journey: journey, locale: locale, secretStoredKeys: secretStoredKeys,
                compiled: library?[journey.id.value])
            var edges: [JourneyDoc.Edge] = []
            var steps: [JourneyDoc.StepDoc] = []
            for step in journey.steps {
                let stepEdges = page.edges(of: step)
                edges += stepEdges
                steps.append(page.step(step, edges: stepEdges))
            }
            let (reads, writes) = usage(journey, storeKeys: library?[journey.id.value]?.handlerStoreKeys ?? [])
            let walkthroughs = recordings.filter { $0.journey == journey.id.value }
                .sorted { $0.scenario < $1.scenario }
                .map { walkthrough($0, journey: journey.id.value) }
            return JourneyDoc(
                id: journey.id.value, title: page.text(journey.title) ?? journey.id.value,
                summary: page.text(journey.summary), file: journey.file, group: group(of: journey.file),
                locale: page.language, params: journey.params.map(Page.param), reads: reads, writes: writes,
                limits: journey.limits.map { describe($0, journey) },
                exceptions: journey.exceptions.map(Page.exception),
                invariants: journey.invariants.map(page.invariant), steps: steps,
                start: journey.start.value,
                ends: journey.ends.map { ($0.id.value, $0.kind, page.text($0.title)) },
                calls: Array(Set(steps.compactMap(\.calls))).sorted(), walkthroughs: walkthroughs,
                edges: edges, covered: Set(edges.filter { taken.contains(Taken(journey: journey.id.value, edge: $0)) }))
        }
    }

    /// One journey's page as it is read from the journey: its texts in the page's language, its
    /// steps with their ways out, and what it declares, secrets never shown.
    struct Page {
        let journey: Journey
        /// Stored keys secret anywhere in the project.
        let secretStoredKeys: Set<String>
        /// The locale the page is written in: the one asked for when the journey has it, else
        /// the journey's default.
        let language: String
        /// The journey compiled, for its steps' contracts (which inputs and outcomes are secret).
        let compiled: CompiledJourney?

        init(journey: Journey, locale: String?, secretStoredKeys: Set<String>, compiled: CompiledJourney? = nil) {
            self.journey = journey
            self.secretStoredKeys = secretStoredKeys
            self.compiled = compiled
            language = journey.locale(for: locale)
        }

        /// An expression or a template as the page shows it: as written, or, when it reads a
        /// secret (``Journey/readsSecret(_:contract:outcome:secretStoredKeys:)``), with each of
        /// its literals as •••, as `journey check` quotes it: `state.pin == '1357'` is shown
        /// `state.pin == '•••'` (an empty text, which tells only whether there is one, is kept).
        /// `step` and `outcome` say where it is written: under the
        /// transition of that outcome of that step; nil for what reads only the journey's names.
        func expression(_ source: String, step: Step? = nil, outcome: String? = nil) -> String {
            let contract = step.flatMap { compiled?.contract(ofStep: $0.id.value) }
            let secret = journey.readsSecret(
                source, contract: contract ?? (step == nil ? Self.noContract : nil),
                outcome: outcome, secretStoredKeys: secretStoredKeys)
            return secret ? Expression.maskingLiterals(source, keepingEmpty: true) : source
        }

        /// Where only the journey's own names are read: no input, no outcome.
        static let noContract = StepContract(inputs: [], outcomes: [])

        /// An invariant as its row shows it: its id, its summary, and its rule as written, with
        /// its literals as ••• when it reads a secret.
        func invariant(_ invariant: JourneyInvariant) -> (String, String?, String) {
            let secret = ([invariant.condition] + (invariant.after.map { [$0] } ?? [])).contains {
                journey.readsSecret($0.value, contract: Self.noContract, secretStoredKeys: secretStoredKeys)
            }
            return (
                invariant.reportedId, invariant.summary,
                secret ? Expression.maskingLiterals(invariant.written, keepingEmpty: true) : invariant.written
            )
        }

        /// A text as written in the page's language; nil when it shows nothing (`journey check`
        /// warns of a blank text), so that a page leaves it out rather than an empty heading or cell.
        func text(_ t: LocalizedText?) -> String? {
            t?.template(for: language, fallback: journey.defaultLocale).flatMap { $0.isBlank ? nil : $0.source }
        }

        /// `target = value` as written, with a literal written into a secret shown as •••, a
        /// template of constants alike, and a list or a map alike, whatever it holds (an
        /// expression that reads a name is shown: it names where the value comes from, not the
        /// value; its literals are •••, as those of any expression that reads a secret are).
        func assignment(_ a: Assignment, step: Step? = nil, outcome: String? = nil) -> String {
            let ref = a.target.value
            let declared = (ref.scope == .stored ? journey.stored : journey.state).first {
                $0.name.value == ref.name
            }
            let secret =
                declared?.type.secret == true || (ref.scope == .stored && secretStoredKeys.contains(ref.name))
            // An empty value (a secret cleared) says nothing about the secret; a template that
            // reads nothing (`${'12' + '34'}`) is literal text however it is written.
            if secret, case .scalar(let text, _, _) = a.value, !text.isEmpty,
                !text.contains("${") || (try? Template.parse(text).get())?.references.isEmpty == true
            {
                return "\(ref) = \(Value.redacted)"
            }
            switch a.value {
            case .list, .map:
                // Every item set into a secret is a piece of it.
                if secret { return "\(ref) = \(Value.redacted)" }
            case .scalar(let text, _, _) where secret && text.contains("${"):
                // What a template adds to a secret is a piece of it: `${outcome.pin + '12'}`.
                return "\(ref) = \(Expression.maskingLiterals(text, keepingEmpty: true))"
            case .scalar: break
            }
            return "\(ref) = \(shown(a.value, step: step, outcome: outcome))"
        }

        /// A value as written, each template in it that reads a secret with its literals as •••.
        func shown(_ raw: RawValue, step: Step?, outcome: String?) -> String {
            switch raw {
            case .scalar(let text, _, _) where text.contains("${"): expression(text, step: step, outcome: outcome)
            case .scalar: display(raw)
            case .list(let items, _):
                "[" + items.map { shown($0, step: step, outcome: outcome) }.joined(separator: ", ") + "]"
            case .map(let pairs, _):
                "{"
                    + pairs.map { "\($0.key): \(shown($0.value, step: step, outcome: outcome))" }.joined(
                        separator: ", ") + "}"
            }
        }

        /// The ways out of `step`: each branch of each outcome, then each of its attempt limit's
        /// `exceeded` branches.
        func edges(of step: Step) -> [JourneyDoc.Edge] {
            var edges: [JourneyDoc.Edge] = []
            for (outcome, transition) in step.transitions {
                for (index, branch) in transition.branches.enumerated() {
                    edges.append(
                        .init(
                            from: step.id.value, outcome: outcome.value, branch: label(branch, index),
                            condition: branch.condition.map {
                                expression($0.value, step: step, outcome: outcome.value)
                            },
                            to: branch.target.value,
                            sets: branch.assignments.map { assignment($0, step: step, outcome: outcome.value) }))
                }
            }
            if let limit = journey.limit(chargedBy: step) {
                for (index, branch) in limit.exceeded.branches.enumerated() {
                    edges.append(
                        .init(
                            from: step.id.value, outcome: "limit \(limit.name.value) reached",
                            branch: label(branch, index), condition: branch.condition.map { expression($0.value) },
                            to: branch.target.value, sets: branch.assignments.map { assignment($0) },
                            limit: limit.name.value))
                }
            }
            return edges
        }

        /// A step as its section shows it: its handler or the journey it calls, its screen, its
        /// note and its ways out.
        func step(_ step: Step, edges: [JourneyDoc.Edge]) -> JourneyDoc.StepDoc {
            let handler: String
            var calls: String?
            switch step.kind {
            case .handler(let name): handler = name.value
            case .call(let name):
                handler = "call"
                calls = name.value
            }
            return .init(
                id: step.id.value, handler: handler, calls: calls, title: text(step.screen?.title),
                text: text(step.screen?.text),
                actions: step.screen?.actions.map { action in
                    let enabled =
                        action.enabledWhen.map { "when \(expression($0.value))" } ?? (action.enabled ? "" : "disabled")
                    return (action.id.value, text(action.label) ?? action.id.value, enabled)
                } ?? [],
                fields: step.screen?.fields.map {
                    "\($0.name.value) (\($0.kind.rawValue)\($0.secret ? ", secret" : ""))"
                }
                    ?? [],
                note: step.note, edges: edges)
        }

        static func param(_ param: VariableDeclaration) -> JourneyDoc.Param {
            .init(
                name: param.name.value, type: param.type.description,
                // A secret's value never appears in docs, its default included.
                defaultValue: param.defaultValue.map { raw in
                    // An empty default says nothing about the secret.
                    if case .scalar(let text, _, _) = raw, text.isEmpty { return display(raw) }
                    return param.type.secret ? Value.redacted : display(raw)
                },
                description: param.description)
        }

        /// A rule the journey breaks on purpose: its id, what the rule says, and the reason with
        /// the steps it is excused at.
        static func exception(_ exception: RuleException) -> (String, String, String) {
            (
                exception.rule.value,
                AuthRule(rawValue: exception.rule.value)?.rule
                    ?? ExplorationInvariant(rawValue: exception.rule.value)?.rule ?? "",
                exception.reason
                    + (exception.steps.map { steps in
                        " (at step\(steps.count == 1 ? "" : "s") "
                            + steps.map { "'\($0.value)'" }.joined(separator: ", ")
                            + ")"
                    } ?? "")
            )
        }
    }

    /// A branch's name as transcripts give it: `always`, `if N` (from 1) or `else`.
    static func label(_ branch: Branch, _ index: Int) -> String {
        branch.isElse ? "else" : (branch.condition == nil ? "always" : "if \(index + 1)")
    }

    static func group(of file: String) -> String {
        let parts = file.split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return "journeys" }
        return parts[parts.count - 2]
    }

    static func display(_ raw: RawValue) -> String {
        switch raw {
        case .scalar(let text, _, _): return text.isEmpty ? "\"\"" : text
        case .list(let items, _): return "[" + items.map(display).joined(separator: ", ") + "]"
        case .map(let pairs, _):
            return "{" + pairs.map { "\($0.key): \(display($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// A limit in words: how many attempts, what counts and resets, where it leads, and
    /// whether the count survives a restart.
    static func describe(_ limit: AttemptLimit, _ journey: Journey) -> String {
        let charging = journey.steps.filter { $0.attempts?.limit.value == limit.name.value }
        var parts: [String] = []
        for step in charging {
            guard let charge = step.attempts else { continue }
            let counts = charge.counts.map { "`\($0.value)`" }.joined(separator: " or ")
            let resets = charge.resets.map { "`\($0.value)`" }.joined(separator: " or ")
            parts.append(
                "at step `\(step.id.value)`, \(counts.isEmpty ? "no outcome" : counts) counts"
                    + (resets.isEmpty ? " and nothing resets the count" : ", \(resets) resets it"))
        }
        let target = limit.exceeded.branches.map { "`\($0.target.value)`" }.joined(separator: " / ")
        let keeping =
            limit.counter.value.scope == .stored
            ? "The count is kept on the device (`\(limit.counter.value)`), so it survives app restarts."
            : "The count lives in this run only (`\(limit.counter.value)`); a restart starts it again."
        let maximum: String
        switch limit.max {
        case .fixed(let n): maximum = "\(n)"
        case .computed(let raw):
            let written = display(raw)
            maximum =
                journey.defaultMaximum(of: limit).map {
                    "\($0) (\(MarkdownRenderer.code(written)) with the params' defaults)"
                }
                ?? MarkdownRenderer.code(written)
        }
        var lockout = ""
        if let duration = limit.lockout, let until = limit.lockedUntil {
            lockout =
                " Once reached, the limit locks for \(Duration.format(milliseconds: duration.value)) (its end kept in `\(until.value)`): its steps lead to \(target) until then, and the count starts again after."
        }
        return "**\(limit.name.value)**: \(maximum) in a row → \(target)"
            + (parts.isEmpty ? "" : " (\(parts.joined(separator: "; ")))") + ". "
            + (limit.keep ? "The count is kept when the limit is reached. " : "") + keeping + lockout
    }

    /// The names a journey reads (in guards, texts, parameters and outputs) and writes, with
    /// the device store keys its steps' handlers read and write
    /// (``CompiledJourney/handlerStoreKeys``).
    static func usage(
        _ journey: Journey, storeKeys: [(key: String, use: ParameterSpec.StoreKeyUse, step: String)] = []
    ) -> (reads: [String], writes: [String]) {
        var reads = Set<String>()
        var writes = Set<String>()
        func readTemplate(_ text: String) {
            if case .success(let template) = Template.parse(text) {
                for part in template.parts {
                    if case .expression(let expression, _) = part {
                        for path in expression.references { reads.insert(name(path)) }
                    }
                }
            }
        }
        func readRaw(_ raw: RawValue) {
            switch raw {
            case .scalar(let text, _, _): readTemplate(text)
            case .list(let items, _): items.forEach(readRaw)
            case .map(let pairs, _): pairs.forEach { readRaw($0.value) }
            }
        }
        func readText(_ text: LocalizedText?) {
            text?.entries.forEach { readTemplate($0.template.source) }
        }
        func readAndWrite(_ transition: Transition) {
            for branch in transition.branches {
                if let condition = branch.condition, case .success(let e) = Expression.parse(condition.value) {
                    for path in e.references { reads.insert(name(path)) }
                }
                for assignment in branch.assignments {
                    writes.insert(assignment.target.value.description)
                    readRaw(assignment.value)
                }
            }
        }
        for step in journey.steps {
            step.with.forEach { readRaw($0.value) }
            readText(step.screen?.title)
            readText(step.screen?.text)
            step.screen?.actions.forEach {
                readText($0.label)
                if let condition = $0.enabledWhen { readTemplate(condition.value) }
            }
            for (_, transition) in step.transitions { readAndWrite(transition) }
        }
        for (key, use, _) in storeKeys {
            if use.contains(.reads) { reads.insert("stored." + key) }
            if use.contains(.writes) { writes.insert("stored." + key) }
        }
        for limit in journey.limits {
            reads.insert(limit.counter.value.description)
            writes.insert(limit.counter.value.description)
            if let until = limit.lockedUntil {
                reads.insert(until.value.description)
                writes.insert(until.value.description)
            }
            if case .computed(let raw) = limit.max { readRaw(raw) }
            // Where an exceeded limit leads may test and set values too.
            readAndWrite(limit.exceeded)
        }
        journey.outputs.forEach { readTemplate($0.value.source) }
        let shown: (String) -> Bool = { !$0.hasPrefix("input.") && !$0.hasPrefix("outcome.") }
        return (reads.filter(shown).sorted(), writes.sorted())
    }

    static func name(_ path: [String]) -> String {
        path.first == "limits" && path.count >= 2 ? "limits.\(path[1])" : path.prefix(2).joined(separator: ".")
    }

    // MARK: Walkthroughs and coverage

    struct Taken: Hashable {
        var journey: String
        var from: String
        var outcome: String
        var branch: String

        init(journey: String, from: String, outcome: String, branch: String) {
            self.journey = journey
            self.from = from
            self.outcome = outcome
            self.branch = branch
        }

        init(journey: String, edge: JourneyDoc.Edge) {
            self.init(journey: journey, from: edge.from, outcome: edge.outcome, branch: edge.branch)
        }

    }

    /// The steps and outcomes of `journey` the recordings took, and where its limits led once
    /// spent (`limit NAME reached`), as `journey explore` counts them: each as a whole and by
    /// the branch taken, since the explorer names a transition by its branch where it has more
    /// than one. What the committed scenarios cover of the paths it finds.
    public static func edgesTaken(_ recordings: [ScenarioRecording], journey: String) -> Set<JourneyExplorer.Edge> {
        var edges = Set<JourneyExplorer.Edge>()
        for taken in takenTransitions(recordings) where taken.journey == journey {
            edges.insert(JourneyExplorer.Edge(step: taken.from, outcome: taken.outcome))
            edges.insert(JourneyExplorer.Edge(step: taken.from, outcome: taken.outcome, branch: taken.branch))
        }
        return edges
    }

    /// Every transition the recordings took, by journey (tracking sub-journeys as they nest).
    /// A limit's edge is the transition that follows its `attempt … exceeded` event at the
    /// same step, by the branch it took: each way a limit leads is covered on its own.
    static func takenTransitions(_ recordings: [ScenarioRecording]) -> Set<Taken> {
        var taken = Set<Taken>()
        for recording in recordings {
            var stack = [recording.journey]
            var exceeded: (step: String, limit: String)?
            for record in recording.records {
                switch record.event {
                case .journeyStart(let journey, _): stack = [journey]
                case .subjourneyEnter(let journey, _, _): stack.append(journey)
                case .subjourneyExit: if stack.count > 1 { stack.removeLast() }
                case .attempt(let step, let limit, .exceeded, _, _), .attempt(let step, let limit, .locked, _, _):
                    exceeded = (step, limit)
                case .stepEnter, .restart, .session, .failure: exceeded = nil
                case .transition(let from, let outcome, let branch, _):
                    let journey = stack.last ?? recording.journey
                    if let limit = exceeded, limit.step == from {
                        taken.insert(
                            Taken(
                                journey: journey, from: from, outcome: "limit \(limit.limit) reached", branch: branch))
                    } else {
                        taken.insert(Taken(journey: journey, from: from, outcome: outcome, branch: branch))
                    }
                    exceeded = nil
                default: break
                }
            }
        }
        return taken
    }

    /// The scenario as a reader follows it: each screen, what the user did, and the end, as
    /// lines of Markdown. What the golden spells (titles, what was typed, addresses, messages)
    /// is text (``MarkdownRenderer/inline(_:)``), and the names JourneyKit marks are code spans
    /// it opens itself (``MarkdownRenderer/code(_:cell:)``): nothing a golden holds is HTML.
    static func walkthrough(_ recording: ScenarioRecording, journey: String) -> JourneyDoc.Walkthrough {
        let text = MarkdownRenderer.inline
        let code = { (name: String) in MarkdownRenderer.code(name) }
        var lines: [String] = []
        var current: String?
        var end: String?
        for record in recording.records {
            let indent = String(repeating: "  ", count: record.depth)
            switch record.event {
            case .stepEnter(let step, let handler):
                current =
                    "\(indent)- \(code(step))"
                    + (handler.hasPrefix("call ") ? " calls \(code(String(handler.dropFirst(5))))" : "")
            case .screen(_, let screen):
                if let title = screen.title { current? += " — “\(text(title))”" }
            case .input(_, let values):
                let given = values.map { "\(text($0.name)) = \(text(shown($0.value)))" }.joined(separator: ", ")
                current? += " · \(given)"
            case .http(_, let method, let url, let status, let error):
                current? +=
                    " · \(text(method)) \(text(url)) → \(text(status.map(String.init) ?? error ?? "no response"))"
            case .clockAdvance(let ms, let reason):
                lines.append("\(indent)- ⏱ \(Duration.format(milliseconds: ms)) pass (\(text(reason)))")
            case .restart:
                if let line = current { lines.append(line) }
                current = nil
                lines.append("- ⟳ the app restarts: state is gone, the device store is kept")
            case .session(let number):
                if let line = current { lines.append(line) }
                current = nil
                lines.append(
                    "- ⟳ session \(number): after the end \(end.map { "*\(text($0))*" } ?? ""), the app is launched again; the device store and clock are kept"
                )
            case .attempt(_, let limit, let action, let count, let max) where action == .exceeded:
                current? += " · limit \(code(limit)) reached (\(count)/\(max))"
            case .attempt(_, let limit, .locked, _, _):
                current? += " · limit \(code(limit)) locked"
            case .attempt(_, let limit, .unlocked, _, _):
                current? += " · limit \(code(limit)) unlocked"
            case .screenUpdated(_, let screen):
                if let updated = screen.text { current? += " · now “\(text(updated))”" }
            case .transition(_, let outcome, _, let to):
                if var line = current {
                    line += " → *\(text(outcome))* → \(code(to))"
                    lines.append(line)
                }
                current = nil
            case .journeyEnd(_, let reached, let kind, _):
                end = "\(reached) (\(kind.rawValue))"
            case .failure(_, let message):
                lines.append("- ✗ \(text(message))")
            default: break
            }
        }
        if let line = current { lines.append(line) }
        return .init(
            scenario: recording.scenario, title: recording.title.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 },
            tags: recording.tags, file: recording.file,
            lines: lines, end: end, passed: recording.passed)
    }

    static func shown(_ value: Value) -> String {
        switch value {
        case .string(let s): "“\(oneLine(s))”"
        default: value.displayText
        }
    }

    static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ")
    }
}
