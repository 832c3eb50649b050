import Foundation

// What a journey gives the explorer: the durations it writes, the state no expression reads,
// its edges, worked out once per journey.

extension JourneyExplorer {
    /// The durations a journey writes (handler parameters, a limit's lockout, params'
    /// defaults, and those in its expressions), each once, in ascending order: the clock jumps
    /// it can tell apart. Worked out once per journey (``JourneyFacts``).
    static func durations(of journey: CompiledJourney) -> [Int] {
        JourneyFacts.shared.durations(journey)
    }

    /// ``durations(of:)`` worked out: it reads every text of the journey, so it is remembered.
    static func writtenDurations(of journey: CompiledJourney) -> [Int] {
        var found = Set<Int>()
        for step in journey.source.steps {
            for (_, value) in step.with {
                if case .scalar(let text, _, _) = value, let ms = Duration.parse(text), ms > 0 { found.insert(ms) }
            }
        }
        for limit in journey.source.limits { if let lockout = limit.lockout?.value { found.insert(lockout) } }
        for param in journey.source.params where param.type.type == .duration {
            if case .scalar(let text, _, _)? = param.defaultValue, let ms = Duration.parse(text), ms > 0 {
                found.insert(ms)
            }
        }
        // And those written in expressions: a guard `since(state.sentAt) >= 5m`, an action's
        // `enabled:`, a template's `${…}`, an invariant.
        for expression in JourneyFacts.shared.expressions(journey) {
            for constant in expression.tree.constants {
                if case .duration(let ms) = constant, ms > 0 { found.insert(ms) }
            }
            // And seconds written as ints against the clock: `device.now - state.sentAt < 900`.
            for seconds in expression.clockSeconds { found.insert(seconds * 1000) }
        }
        return found.sorted()
    }

    /// What `journey` reads of the clock as a calendar (``ClockCalendar``), worked out: it reads
    /// every text of the journey, so it is remembered (``JourneyFacts``).
    static func writtenCalendar(of journey: CompiledJourney) -> ClockCalendar {
        JourneyFacts.shared.expressions(journey).reduce(ClockCalendar()) { $0.merged($1.calendar) }
    }

    /// Each expression written in `journey`'s steps (guards, templates, `enabled:`) and
    /// invariants, parsed again from its text: read once per journey (``JourneyFacts``).
    static func writtenExpressions(of journey: CompiledJourney) -> [Expression] {
        var found: [Expression] = []
        func read(_ text: String) {
            if text.contains("${") {
                guard case .success(let template) = Template.parse(text) else { return }
                for case .expression(let expression, _) in template.parts { found.append(expression) }
            } else if text.contains(where: \.isNumber), case .success(let expression) = Expression.parse(text) {
                found.append(expression)
            }
        }
        for step in journey.source.steps { step.forEachText(read) }
        for invariant in journey.source.invariants { invariant.forEachText(read) }
        return found
    }

    static func edges(of journey: CompiledJourney) -> [Edge] {
        journey.source.steps.flatMap { step -> [Edge] in
            let id = step.id.value
            let compiled = journey.stepIndex[id].map { journey.steps[$0] }
            var edges: [Edge] = []
            for transition in step.transitions {
                let outcome = transition.outcome.value
                let branches = compiled?.transition(for: outcome)?.branches ?? []
                if branches.count > 1 {
                    edges += branches.map { Edge(step: id, outcome: outcome, branch: $0.label) }
                } else {
                    edges.append(Edge(step: id, outcome: outcome))
                }
            }
            // Where the limit the step charges leads once it is spent there.
            if let limit = compiled?.attempts?.limit {
                let branches = limit.exceeded.branches
                if branches.count > 1 {
                    edges += branches.map { Edge.limit(limit.name, at: id, branch: $0.label) }
                } else {
                    edges.append(.limit(limit.name, at: id))
                }
            }
            return edges
        }
    }

    /// The branches of `journey`'s transitions that have more than one, each as its edge, by
    /// the branch (whose object the machine says it took: ``JourneyMachine/branchesTaken``).
    static func branches(of journey: CompiledJourney) -> [ObjectIdentifier: Edge] {
        var found: [ObjectIdentifier: Edge] = [:]
        for step in journey.steps {
            for (outcome, transition) in step.transitions where transition.branches.count > 1 {
                for branch in transition.branches {
                    found[ObjectIdentifier(branch)] = Edge(step: step.id, outcome: outcome, branch: branch.label)
                }
            }
        }
        return found
    }

    /// Each stored key's declared default, across the library: a value equal to it is as good
    /// as none, since the journey reads the default either way.
    static func storedDefaults(_ library: CompiledLibrary) -> [String: Value] {
        var defaults: [String: Value] = [:]
        for id in library.ids {
            for declaration in library[id]?.storedDeclarations ?? [] {
                defaults[declaration.name] = declaration.defaultValue ?? JourneyMachine.zero(declaration.type.type)
            }
        }
        return defaults
    }

    /// The state a journey writes but never reads, by journey id, across the library: a
    /// variable no expression reads but those that set the variable itself (a count of links
    /// kept for scenarios to check, `state.n: "${state.n + 1}"`) cannot change what happens
    /// next, so situations that differ only in it are one state. A limit's counter is read.
    static func unreadState(_ library: CompiledLibrary) -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for id in library.ids {
            guard let journey = library[id] else { continue }
            let unread = JourneyFacts.shared.unread(journey)
            if !unread.isEmpty { found[id] = unread }
        }
        return found
    }

    static func unreadState(_ journey: Journey) -> Set<String> {
        let names = Set(journey.state.map(\.name.value))
        guard !names.isEmpty else { return [] }
        func count(_ text: String, into counts: inout [String: Int]) {
            var rest = Substring(text)
            while let range = rest.range(of: "state.") {
                let before = range.lowerBound == text.startIndex ? nil : rest[..<range.lowerBound].last
                let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if !(before.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." } ?? false) {
                    counts[String(name), default: 0] += 1
                }
                rest = rest[range.upperBound...]
            }
        }
        // Every text the journey writes: templates, guards, parameters, invariants.
        var reads: [String: Int] = [:]
        journey.forEachText { count($0, into: &reads) }
        // Less what an assignment reads of the variable it sets.
        var own: [String: Int] = [:]
        for step in journey.steps {
            for branch in step.transitions.flatMap(\.transition.branches) {
                for assignment in branch.assignments where assignment.target.value.scope == .state {
                    var counts: [String: Int] = [:]
                    assignment.value.forEachText { count($0, into: &counts) }
                    own[assignment.target.value.name, default: 0] += counts[assignment.target.value.name] ?? 0
                }
            }
        }
        let counters = Set(
            journey.limits.flatMap { [$0.counter.value, $0.lockedUntil?.value].compactMap { $0 } }
                .filter { $0.scope == .state }.map(\.name))
        return names.filter { name in !counters.contains(name) && (reads[name] ?? 0) == (own[name] ?? 0) }
    }

    /// A stable seed for a step's randomness: the same input at the same step draws the same
    /// bytes in every run (FNV-1a of the journey, the step and the input's class).
    static func seed(_ journey: String, _ step: String, _ label: String) -> UInt64 {
        // FNV-1a over the three names joined by NUL, read in place rather than joined.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        func add(_ text: String) {
            let read: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
                for byte in bytes { add(byte) }
            }
            if read == nil {
                for byte in text.utf8 { add(byte) }
            }
        }
        add(journey)
        add(0)
        add(step)
        add(0)
        add(label)
        return hash
    }
}

extension ParamValues {
    /// The params of `journey` as the explorer knows them before a run: those given, else
    /// their defaults.
    init(_ journey: CompiledJourney, given: [String: Value] = [:]) {
        var values: [String: Value] = [:]
        for param in journey.params { values[param.name] = param.defaultValue }
        values.merge(given) { _, given in given }
        self.init(values: values)
    }
}

/// What the explorer works out of each compiled journey by reading every text of it (the state
/// no expression reads, the durations it writes), kept for the process: a suite explores the
/// same journeys from many starts. A journey is kept alive with its entry, so that its identity
/// is never another's.
final class JourneyFacts: @unchecked Sendable {
    static let shared = JourneyFacts()
    private struct Entry {
        let journey: CompiledJourney
        var unread: Set<String>?
        var expressions: [Expression]?
        var durations: [Int]?
        var calendar: ClockCalendar?
    }
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// What ``JourneyExplorer/unreadState(_:)-(Journey)`` finds of `journey`.
    func unread(_ journey: CompiledJourney) -> Set<String> {
        remembered(journey, \.unread) { JourneyExplorer.unreadState($0.source) }
    }

    /// What ``JourneyExplorer/writtenDurations(of:)`` finds of `journey`.
    func durations(_ journey: CompiledJourney) -> [Int] {
        remembered(journey, \.durations) { JourneyExplorer.writtenDurations(of: $0) }
    }

    /// What ``JourneyExplorer/writtenExpressions(of:)`` finds of `journey`: what its durations,
    /// its calendar and whether it reads the clock are read from.
    func expressions(_ journey: CompiledJourney) -> [Expression] {
        remembered(journey, \.expressions) { JourneyExplorer.writtenExpressions(of: $0) }
    }

    /// What ``JourneyExplorer/writtenCalendar(of:)`` finds of `journey`.
    func calendar(_ journey: CompiledJourney) -> ClockCalendar {
        remembered(journey, \.calendar) { JourneyExplorer.writtenCalendar(of: $0) }
    }

    /// The fact at `key` of `journey`'s entry, worked out (outside the lock) the first time.
    private func remembered<Fact>(
        _ journey: CompiledJourney, _ key: WritableKeyPath<Entry, Fact?>, _ work: (CompiledJourney) -> Fact
    ) -> Fact {
        let id = ObjectIdentifier(journey)
        lock.lock()
        if let fact = entries[id]?[keyPath: key] {
            lock.unlock()
            return fact
        }
        lock.unlock()
        let fact = work(journey)
        lock.lock()
        entries[id, default: Entry(journey: journey)][keyPath: key] = fact
        lock.unlock()
        return fact
    }
}
