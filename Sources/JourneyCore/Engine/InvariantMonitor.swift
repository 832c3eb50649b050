/// A journey's invariant, compiled: its expressions parsed and checked against the journey.
struct CompiledInvariant: Sendable {
    /// The id it is reported under: `invariant.ID`.
    let id: String
    let summary: String?
    let form: JourneyInvariant.Form
    let condition: Expression
    let after: Expression?
    /// The rule as written, in one line.
    let written: String
}

/// Watches one run (or one explored path) for the rules its journey states under
/// `invariants:`, and for ``ExplorationInvariant/credentialBeforeSuccess`` in a journey with a
/// step that verifies a credential, or that calls a journey with one.
///
/// It is told each step the run enters and the end it reaches (``check(_:_:)``), and each
/// outcome a step completes with (``completed(journey:step:outcome:)``). What it remembers of
/// the path is a bit per temporal invariant ("`after` has held") and one for the credential
/// ("verified"): kept across app restarts, since a path is one, and compared by an explorer
/// so that two states that differ only there stay two.
public struct InvariantMonitor: Sendable, Hashable {
    /// An invariant a run broke.
    public struct Broken: Sendable, Hashable {
        /// The built-in rule, or nil for one of the journey's own.
        public var builtin: ExplorationInvariant?
        /// The id it is reported under: `invariant.ID`, or the built-in's.
        public var id: String
        /// The journey's summary of its own invariant.
        public var summary: String?
        /// What broke it, without values: the step or end, and the rule as written.
        public var detail: String
        /// The other invariants broken at the same place, in the order the journey writes them
        /// (the credential last): one rule broken never hides another.
        public var others: [Broken] = []

        /// The message a run that breaks it fails with: the rule's name, then ``detail``; then
        /// each of the ``others``.
        public var message: String {
            let own =
                builtin == nil
                ? "invariant '\(id.dropFirst(JourneyInvariant.prefix.count))' \(detail)"
                : "\(id) is broken: \(detail)"
            return ([own] + others.map(\.message)).joined(separator: "; and ")
        }
    }

    let invariants: [CompiledInvariant]
    let library: CompiledLibrary
    let checksCredential: Bool
    /// For each invariant with `after`, whether it has held on the path; then, when the
    /// credential is checked, whether a step verified one.
    public private(set) var bits: [Bool]

    /// A monitor for runs of `journey`, or nil when it has nothing to watch: no invariants of
    /// its own, and no credential to watch (``checksCredential(_:in:)``).
    public init?(_ journey: CompiledJourney, library: CompiledLibrary) {
        checksCredential = Self.checksCredential(journey, in: library)
        invariants = journey.invariants
        guard checksCredential || !invariants.isEmpty else { return nil }
        self.library = library
        bits = Array(repeating: false, count: invariants.count + (checksCredential ? 1 : 0))
    }

    /// Whether runs of `journey` are watched for a success end reached without passing a step
    /// that verifies a credential (``watchesCredential(_:in:)``), and it does not declare
    /// ``ExplorationInvariant/credentialBeforeSuccess`` broken on purpose.
    static func checksCredential(_ journey: CompiledJourney, in library: CompiledLibrary) -> Bool {
        watchesCredential(journey, in: library) && !excepts(journey)
    }

    /// Whether `journey` declares ``ExplorationInvariant/credentialBeforeSuccess`` broken on purpose.
    static func excepts(_ journey: CompiledJourney) -> Bool {
        journey.source.exception(to: ExplorationInvariant.credentialBeforeSuccess.rawValue) != nil
    }

    /// Whether ``ExplorationInvariant/credentialBeforeSuccess`` applies to runs of `journey`
    /// and needs watching: it has a step that verifies a credential and not every success end
    /// is behind one in its steps alone; or it has none of its own but calls a journey that
    /// has one (a PIN pad kept in a journey of its own), as if the check were written in it.
    static func watchesCredential(_ journey: CompiledJourney, in library: CompiledLibrary) -> Bool {
        if journey.watchesCredential { return true }
        guard journey.credentialSteps.isEmpty else { return false }
        return ScenarioChecker.reachableJourneys(from: journey, in: library).dropFirst().contains {
            !$0.credentialSteps.isEmpty
        }
    }

    public static func == (a: Self, b: Self) -> Bool { a.bits == b.bits }
    public func hash(into hasher: inout Hasher) { hasher.combine(bits) }

    /// A step of `journey` (the root or one it calls) completed with `outcome`.
    public mutating func completed(journey: String, step: String, outcome: String) {
        guard checksCredential, !bits[bits.count - 1],
            library[journey]?.credentialSteps[step]?.contains(outcome) == true
        else { return }
        bits[bits.count - 1] = true
    }

    /// Checks the invariants where `action` leaves the run: at a step it enters, or at the end
    /// it reaches. The first invariant broken there, in the order the journey writes them.
    public mutating func check(_ action: JourneyMachine.Action, _ machine: JourneyMachine) -> Broken? {
        // Without invariants of its own, only the credential is watched, and only at an end.
        if invariants.isEmpty, case .runStep = action { return nil }
        let root = machine.run.frames.first
        let step: String
        var end = ""
        switch action {
        case .runStep:
            let at = machine.run.step(of: 0)
            guard let root, root.journey.steps.indices.contains(at) else { return nil }
            step = root.journey.steps[at].id
        case .finished(let result):
            guard let id = result.end, let kind = result.kind else { return nil }
            step = id
            end = kind.rawValue
        case .failed, .proceed:
            return nil
        }
        var broken: [Broken] = []
        if !invariants.isEmpty, let root {
            let lookup = Names(
                base: JourneyMachine.Lookup(frame: root, device: machine.device, library: machine.library),
                step: step, end: end)
            for (index, invariant) in invariants.enumerated() {
                do {
                    var holds = true
                    if let after = invariant.after {
                        if !bits[index], try after.evaluate(in: lookup).revealed == .bool(true) { bits[index] = true }
                        holds = bits[index]
                    }
                    let condition = try invariant.condition.evaluate(in: lookup).revealed == .bool(true)
                    let ok =
                        switch invariant.form {
                        case .never: !(holds && condition)
                        case .always: !holds || condition
                        case .only: !condition || holds
                        }
                    if !ok { broken.append(Self.broken(invariant, at: step, end: end, problem: nil)) }
                } catch {
                    broken.append(Self.broken(invariant, at: step, end: end, problem: error.message))
                }
            }
        }
        if checksCredential, end == EndKind.success.rawValue, !bits[bits.count - 1] {
            let rule = ExplorationInvariant.credentialBeforeSuccess
            broken.append(
                Broken(
                    builtin: rule, id: rule.rawValue, summary: nil,
                    detail:
                        "success end '\(step)' is reached without passing a step that verifies a credential (\(Self.credentialSteps(of: machine.root, in: library)))"
                ))
        }
        guard var first = broken.first else { return nil }
        first.others = Array(broken.dropFirst())
        return first
    }

    static func broken(_ invariant: CompiledInvariant, at step: String, end: String, problem: String?) -> Broken {
        let place = end.isEmpty ? "at step '\(step)'" : "at end '\(step)'"
        let what = problem.map { "cannot be checked \(place): \($0)" } ?? "is broken \(place)"
        let summary = invariant.summary.map { ": \($0)" } ?? ""
        return Broken(
            builtin: nil, id: invariant.id, summary: invariant.summary,
            detail: "\(what)\(summary) (\(invariant.written))")
    }

    /// The steps that verify a credential on a run of `journey`, for messages: its own
    /// (`verifyPin: correct`), then those of the journeys it calls, named with their journey
    /// (`t.pin-check.enterPin: correct`), since passing one of those counts too.
    static func credentialSteps(of journey: CompiledJourney, in library: CompiledLibrary) -> String {
        ScenarioChecker.reachableJourneys(from: journey, in: library).flatMap { reached in
            reached.credentialSteps.sorted { $0.key < $1.key }.map {
                "\(reached.id == journey.id ? "" : reached.id + ".")\($0.key): \($0.value.sorted().joined(separator: ", "))"
            }
        }
        .joined(separator: "; ")
    }

    /// The journey's names, and `step` and `end`.
    struct Names: ValueProvider {
        let base: JourneyMachine.Lookup
        let step: String
        let end: String

        func value(at path: [String]) -> Value? {
            if path.count == 1 {
                switch path[0] {
                case "step": return .string(step)
                case "end": return .string(end)
                default: return nil
                }
            }
            return base.value(at: path)
        }
    }
}

extension Expression {
    /// Each `NAME == 'text'`, `NAME != 'text'` or `NAME in ['a', 'b']` comparing a bare name
    /// (`step`, `end`) with texts: the name, each text, and where the text is written.
    func comparedNames() -> [(name: String, value: String, offset: Int)] {
        var found: [(String, String, Int)] = []
        for node in tree.nodes {
            guard case .binary(let op, let left, let right) = node, op == .equal || op == .notEqual || op == .in else {
                continue
            }
            for (name, other) in [(left, right), (right, left)] {
                guard case .name(let path) = tree[name], tree.path(path).count == 1,
                    case .constant(let constant) = tree[other]
                else { continue }
                let names = tree.path(path)[0]
                switch tree.constant(constant).revealed {
                case .string(let text) where op != .in: found.append((names, text, tree.offset(of: other)))
                case .list(let items) where op == .in && name == left:
                    for case .string(let text) in items { found.append((names, text, tree.offset(of: other))) }
                default: break
                }
            }
        }
        return found
    }
}
