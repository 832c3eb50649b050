/// Explores every path through a journey, breadth first, with the real interpreter and the
/// real handlers: at every step each class of input the step takes (each enabled action, a
/// right and a wrong PIN, each biometric result), and anywhere an app restart and jumps of the
/// virtual clock by the durations the journey writes. Equal situations are one state: the
/// machine's snapshot without what only grows (steps taken, the absolute clock), with stored
/// values at their declared defaults left out, and the restarts used so far.
///
/// On every state and move it checks the built-in invariants (``ExplorationInvariant``), and
/// the first path that breaks one, in breadth-first order, is the shortest counterexample.
/// Handlers draw their random bytes from a stream seeded by the step and the input, so the
/// same input at the same step makes the same salt and the same seal, and a run of the
/// explorer always finds the same states in the same order.
public struct JourneyExplorer: Sendable {
    /// How far to look.
    public struct Bounds: Sendable, Hashable {
        /// Moves from the start.
        public var depth: Int
        /// App restarts on one path.
        public var restarts: Int
        /// States to keep: past this many the exploration stops, and says so.
        public var states: Int
        /// The sizes of clock jumps, in milliseconds; nil takes the journey's own durations.
        public var clockJumps: [Int]?

        public init(depth: Int = 30, restarts: Int = 2, states: Int = 200_000, clockJumps: [Int]? = nil) {
            self.depth = depth
            self.restarts = restarts
            self.states = states
            self.clockJumps = clockJumps
        }
    }

    /// One move of a path: an input at a step, an app restart, or a clock jump.
    public enum Move: Sendable, Hashable, CustomStringConvertible {
        /// The input standing for class `label` at `step`.
        case input(step: String, label: String, values: [String: Value])
        case restart
        case clock(milliseconds: Int)

        public var description: String {
            switch self {
            case .input(let step, let label, _): "\(step): \(label)"
            case .restart: "restart"
            case .clock(let milliseconds): "clock +\(Duration.format(milliseconds: milliseconds))"
            }
        }
    }

    /// An invariant broken, and the shortest path that breaks it.
    public struct Violation: Sendable {
        /// What the rule demands of a counter where the path ends: its value before the move
        /// that lowered it.
        public struct Expected: Sendable {
            public var variable: VariableReference
            public var value: Int
        }

        public var invariant: ExplorationInvariant
        public var message: String
        public var path: [Move]
        /// The step the journey waits at where the path ends; nil when it ended or failed.
        public var step: String?
        /// What the rule demands there, when it is a value.
        public var expected: Expected?
    }

    /// What an exploration found.
    public struct Result: Sendable {
        public var journey: String
        /// Where the exploration started, when not on the default device: a scenario's id.
        public var start: String? = nil
        public var bounds: Bounds
        /// The clock jumps played, in milliseconds.
        public var clockJumps: [Int]
        public var states: Int
        public var transitions: Int
        /// The deepest level reached.
        public var depth: Int
        /// States at the depth bound, not expanded: where they lead is unknown.
        public var frontier: Int
        /// Whether the state bound stopped the exploration before the space was exhausted.
        public var truncated: Bool
        public var violations: [Violation]
        /// Steps whose input the explorer cannot make, with why: they are left out.
        public var leftOut: [String]
        /// Every transition the journey writes (step and outcome), and those the exploration took.
        public var declared: [Edge]
        public var taken: Set<Edge>

        /// The transitions no explored path takes.
        public var unreached: [Edge] { declared.filter { !taken.contains($0) } }
    }

    /// A step's outcome as journeys write it under `on:`.
    public struct Edge: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var step: String
        public var outcome: String
        public var description: String { "\(step) --\(outcome)-->" }
        public static func < (a: Self, b: Self) -> Bool { (a.step, a.outcome) < (b.step, b.outcome) }
    }

    public let library: CompiledLibrary
    /// The device every path starts on.
    public let device: DeviceState
    public let bounds: Bounds
    /// The root journey's params.
    public let params: [String: Value]
    /// Makes the network a step's handler talks to (a scenario's stubs), afresh for every move,
    /// so that no move sees what another asked; nil: no network, every request fails.
    public let network: (@Sendable () -> any NetworkTransport)?
    /// What the starting point knows that handlers may need to make an input (a scenario's PINs).
    public let hints: ExplorationHints
    /// Threads that play a level's moves side by side; any number finds the same result.
    public let jobs: Int

    public init(
        library: CompiledLibrary, device: DeviceState, bounds: Bounds = Bounds(), params: [String: Value] = [:],
        network: (@Sendable () -> any NetworkTransport)? = nil, hints: ExplorationHints = ExplorationHints(),
        jobs: Int = 1
    ) {
        self.library = library
        self.device = device
        self.bounds = bounds
        self.params = params
        self.network = network
        self.hints = hints
        self.jobs = max(1, jobs)
    }

    /// The device exploration starts on unless told otherwise: online, Face ID enrolled, and
    /// the cheapest key derivation, since every state that seals or opens a PIN derives a key.
    public static var defaultDevice: DeviceState {
        var profile = DeviceProfile()
        profile.biometry = .faceID
        profile.biometryEnrolled = true
        profile.kdfRounds = 1
        return DeviceState(profile: profile)
    }

    // MARK: - Exploring

    /// One explored situation: the machine waiting at a step (or ended), and how it got here.
    struct Node: Sendable {
        var machine: JourneyMachine
        var action: JourneyMachine.Action
        /// What the step waits for, when it waits.
        var request: InputRequest?
        var restarts: Int
        /// A step on the way asked the network for something the scenario has no stub for: what
        /// follows is out of the exploration's scope, not the journey's failure.
        var outOfScope = false
    }

    /// A node's moves, played: what each led to, in the order of the moves.
    struct Expansion: Sendable {
        struct Successor: Sendable {
            var move: Move
            var node: Node
            /// The root journey's steps and outcomes the move took.
            var edges: [Edge]
            var key: StateKey
        }

        var successors: [Successor] = []
        /// Some input of the step cannot be made (said in `leftOut`).
        var incomplete = false
        var leftOut: Set<String> = []
    }

    /// What one thread of an exploration reuses from move to move: the context handlers run
    /// in, the driver that answers them, and the encoder of state keys.
    final class Scratch {
        let driver = Replies([])
        var context: RunContext<Replies, Discard>?
        var encoder: StateEncoder

        init(defaults: [String: Value]) { encoder = StateEncoder(defaults: defaults) }
    }

    /// Nodes a thread expands at a time; a level larger than this is expanded in such chunks,
    /// so that the states bound stops the exploration without playing much past it.
    static let chunk = 512

    public func explore(_ journey: CompiledJourney) async -> Result {
        let jumps = bounds.clockJumps ?? Self.durations(of: journey)
        var result = Result(
            journey: journey.id, bounds: bounds, clockJumps: jumps, states: 0, transitions: 0, depth: 0, frontier: 0,
            truncated: false, violations: [], leftOut: [], declared: Self.edges(of: journey), taken: [])
        let defaults = Self.storedDefaults(library)
        let scratch = Scratch(defaults: defaults)
        var machine = JourneyMachine(
            library: library, journey: journey, params: params, device: device,
            configuration: JourneyMachine.Configuration(
                random: .seeded(0), wallClock: .pinned(milliseconds: device.clock)))
        let start = machine.handleDiscardingRecords(.start)
        var startEdges: [Edge] = []
        let first = await settle(
            machine, start, restarts: 0, journey: journey.id, taking: &startEdges, scratch: scratch)
        result.taken.formUnion(startEdges)

        var table = StateTable()
        var parents: [(parent: Int, move: Move)?] = []
        /// Every transition played, as (from, to): walked backwards from the ends after the search.
        var arcs: [(from: Int32, to: Int32)] = []
        var ends: [Bool] = []
        var leftOut = Set<String>()
        var violated = Set<ExplorationInvariant>()
        /// States at a step with input the explorer cannot make.
        var unknown: [Bool] = []
        var expanded: [Bool] = []
        /// The step each state waits at, for a violation found after the search.
        var waitsAt: [String?] = []

        func add(_ node: Node, key: StateKey, parent: (Int, Move)?) -> (index: Int, new: Bool) {
            let (index, new) = table.insert(key)
            guard new else { return (index, false) }
            parents.append(parent.map { (parent: $0.0, move: $0.1) })
            if case .runStep(let invocation) = node.action {
                waitsAt.append(invocation.step)
            } else {
                waitsAt.append(nil)
            }
            // A failed run is an end of its own kind here: never-fails reports it.
            switch node.action {
            case .finished, .failed: ends.append(true)
            default: ends.append(false)
            }
            unknown.append(false)
            expanded.append(false)
            return (index, true)
        }
        func path(to index: Int) -> [Move] {
            var moves: [Move] = []
            var current = index
            while let step = parents[current] {
                moves.append(step.move)
                current = step.parent
            }
            return moves.reversed()
        }
        func report(
            _ invariant: ExplorationInvariant, _ message: String, at index: Int, then move: Move? = nil, node: Node?,
            expected: Violation.Expected? = nil
        ) {
            guard violated.insert(invariant).inserted else { return }
            var step = node == nil ? waitsAt[index] : nil
            if case .runStep(let invocation)? = node?.action { step = invocation.step }
            result.violations.append(
                Violation(
                    invariant: invariant, message: message, path: path(to: index) + (move.map { [$0] } ?? []),
                    step: step, expected: expected))
        }

        var level: [(index: Int, node: Node)] = []
        let root = add(first, key: scratch.encoder.key(first.machine, restarts: first.restarts), parent: nil)
        level.append((root.index, first))
        if let problem = stateProblem(first, journey) { report(problem.0, problem.1, at: root.index, node: first) }

        var depth = 0
        while !level.isEmpty && depth < bounds.depth && !result.truncated {
            var next: [(index: Int, node: Node)] = []
            var position = 0
            while position < level.count && !result.truncated {
                let chunk = level[position..<min(level.count, position + Self.chunk * max(1, jobs))]
                position = chunk.endIndex
                let expansions = await expand(
                    chunk, journey: journey, jumps: jumps, defaults: defaults, scratch: scratch)
                for (offset, expansion) in expansions.enumerated() {
                    let (index, node) = chunk[chunk.startIndex + offset]
                    expanded[index] = true
                    leftOut.formUnion(expansion.leftOut)
                    // A step some of whose input cannot be made is not judged: where it leads is unknown.
                    if expansion.incomplete { unknown[index] = true }
                    for played in expansion.successors {
                        let (move, successor) = (played.move, played.node)
                        result.transitions += 1
                        result.taken.formUnion(played.edges)
                        if let problem = edgeProblem(from: node, move: move, to: successor, journey) {
                            report(problem.0, problem.1, at: index, then: move, node: successor, expected: problem.2)
                        }
                        let (target, new) = add(successor, key: played.key, parent: (index, move))
                        arcs.append((Int32(index), Int32(target)))
                        guard new else { continue }
                        if successor.outOfScope {
                            unknown[target] = true
                            continue
                        }
                        if let problem = stateProblem(successor, journey) {
                            report(problem.0, problem.1, at: target, node: successor)
                        }
                        next.append((target, successor))
                        if parents.count >= bounds.states {
                            result.truncated = true
                            break
                        }
                    }
                    if result.truncated { break }
                }
            }
            if !next.isEmpty { depth += 1 }
            level = next
        }

        // Every expanded state can still reach an end; states never expanded are not judged.
        var good = ends
        for index in level.map(\.index) { good[index] = true }
        for index in good.indices where !expanded[index] || unknown[index] { good[index] = true }
        // The arcs into each state, grouped by target.
        var firstArc = [Int](repeating: 0, count: good.count + 1)
        for arc in arcs { firstArc[Int(arc.to) + 1] += 1 }
        for index in good.indices { firstArc[index + 1] += firstArc[index] }
        var fill = firstArc
        var sources = [Int32](repeating: 0, count: arcs.count)
        for arc in arcs {
            sources[fill[Int(arc.to)]] = arc.from
            fill[Int(arc.to)] += 1
        }
        var queue = good.indices.filter { good[$0] }
        while let current = queue.popLast() {
            for arc in firstArc[current]..<firstArc[current + 1] {
                let previous = Int(sources[arc])
                if !good[previous] {
                    good[previous] = true
                    queue.append(previous)
                }
            }
        }
        if let trapped = good.firstIndex(of: false) {
            report(
                .reachesAnEnd,
                "from here no end can be reached: every way on loops back without finishing", at: trapped,
                node: nil)
        }

        result.states = parents.count
        result.depth = depth
        result.frontier = level.count
        result.leftOut = leftOut.sorted()
        return result
    }

    /// Plays the moves of each node, on `jobs` threads when there is enough to share: each
    /// thread takes a contiguous run of the nodes, and the expansions come back in the nodes'
    /// order, so the exploration finds the same states in the same order on any number of cores.
    func expand(
        _ nodes: ArraySlice<(index: Int, node: Node)>, journey: CompiledJourney, jumps: [Int],
        defaults: [String: Value], scratch: Scratch
    ) async -> [Expansion] {
        let threads = min(jobs, nodes.count / 4)
        guard threads > 1 else {
            var expansions: [Expansion] = []
            expansions.reserveCapacity(nodes.count)
            for (_, node) in nodes {
                expansions.append(await expand(node, journey: journey, jumps: jumps, scratch: scratch))
            }
            return expansions
        }
        let share = (nodes.count + threads - 1) / threads
        return await withTaskGroup(of: (Int, [Expansion]).self) { group in
            for part in 0..<threads {
                let mine = nodes[
                    (nodes.startIndex + part * share)..<min(nodes.endIndex, nodes.startIndex + (part + 1) * share)]
                group.addTask {
                    let scratch = Scratch(defaults: defaults)
                    var expansions: [Expansion] = []
                    expansions.reserveCapacity(mine.count)
                    for (_, node) in mine {
                        expansions.append(await expand(node, journey: journey, jumps: jumps, scratch: scratch))
                    }
                    return (part, expansions)
                }
            }
            var parts = [[Expansion]](repeating: [], count: threads)
            for await (part, expansions) in group { parts[part] = expansions }
            return parts.flatMap { $0 }
        }
    }

    /// Plays every move of `node`.
    func expand(_ node: Node, journey: CompiledJourney, jumps: [Int], scratch: Scratch) async -> Expansion {
        var expansion = Expansion()
        let (played, incomplete) = moves(node, journey: journey, leftOut: &expansion.leftOut, jumps: jumps)
        expansion.incomplete = incomplete
        expansion.successors.reserveCapacity(played.count)
        for move in played {
            let (successor, edges) = await play(move, from: node, journey: journey.id, scratch: scratch)
            let key = scratch.encoder.key(successor.machine, restarts: successor.restarts)
            expansion.successors.append(.init(move: move, node: successor, edges: edges, key: key))
        }
        return expansion
    }

    // MARK: - Moves

    /// The moves from a node, in order: each input class of the step, then a restart, then the
    /// clock jumps (`jumps`, or those of the bounds or the journey); and whether some input of
    /// the step cannot be made (said in `leftOut`).
    func moves(
        _ node: Node, journey: CompiledJourney, leftOut: inout Set<String>, jumps: [Int]? = nil
    ) -> (moves: [Move], incomplete: Bool) {
        guard case .runStep(let invocation) = node.action, let request = node.request else { return ([], false) }
        var incomplete = false
        var moves: [Move] = []
        moves.reserveCapacity(8)
        var actions: [Move] = []
        let handler = node.machine.currentHandler
        var asked = false
        for input in request.inputs {
            if input.name == "action" {
                for id in input.classes {
                    actions.append(.input(step: request.step, label: id, values: ["action": .string(id)]))
                }
            } else if input.name == "network" {
                continue  // a device event, not the user's input
            } else if !asked, let explorable = handler as? any ExplorableHandler {
                asked = true
                let choices = explorable.explorationChoices(
                    request, invocation: invocation, device: node.machine.device, hints: hints)
                moves += choices.map { .input(step: request.step, label: $0.label, values: $0.values) }
            } else if !input.type.secret, !input.classes.isEmpty, input.type.type == .string {
                moves += input.classes.map { .input(step: request.step, label: $0, values: [input.name: .string($0)]) }
            } else if !asked {
                incomplete = true
                leftOut.insert(
                    "\(request.journey).\(request.step): \(handler.map { $0.contract.id } ?? "its handler") cannot say what to give for '\(input.name)'"
                )
            }
        }
        moves += actions
        if node.restarts < bounds.restarts { moves.append(.restart) }
        let jumps = jumps ?? bounds.clockJumps ?? Self.durations(of: journey)
        moves += jumps.map { .clock(milliseconds: $0) }
        return (moves, incomplete)
    }

    /// The node after `move`, and the root journey's steps and outcomes it took.
    func play(
        _ move: Move, from node: Node, journey: String, scratch: Scratch? = nil
    ) async -> (Node, [Edge]) {
        guard case .runStep(let invocation) = node.action else { return (node, []) }
        let scratch = scratch ?? Scratch(defaults: [:])
        var edges: [Edge] = []
        let machine: JourneyMachine
        let run: StepRun
        let unstubbed: Bool
        switch move {
        case .restart:
            var restarted = node.machine
            let action = restarted.handleDiscardingRecords(.restart)
            let next = await settle(
                restarted, action, restarts: node.restarts + 1, journey: journey, taking: &edges, scratch: scratch)
            return (next, edges)
        case .input(_, let label, let values):
            (machine, run, unstubbed) = await runStep(
                node.machine, invocation, reply: .input(values), seed: Self.seed(journey, invocation.step, label),
                scratch: scratch)
        case .clock(let milliseconds):
            (machine, run, unstubbed) = await runStep(
                node.machine, invocation, reply: .advance(milliseconds: milliseconds),
                seed: Self.seed(journey, invocation.step, "clock"), scratch: scratch)
        }
        switch run {
        case .asked(let request):
            let next = Node(
                machine: machine, action: node.action, request: request, restarts: node.restarts, outOfScope: unstubbed)
            return (next, [])
        case .done(let action, let outcome):
            if let outcome, invocation.journey == journey {
                edges.append(Edge(step: invocation.step, outcome: outcome))
            }
            let next = await settle(
                machine, action, restarts: node.restarts, journey: journey, taking: &edges, outOfScope: unstubbed,
                scratch: scratch)
            return (next, edges)
        }
    }

    /// Runs the steps that ask for nothing (a decision, a save, a wipe) until one asks or the
    /// run ends.
    func settle(
        _ machine: JourneyMachine, _ action: JourneyMachine.Action, restarts: Int, journey: String,
        taking edges: inout [Edge], outOfScope: Bool = false, scratch: Scratch? = nil
    ) async -> Node {
        let scratch = scratch ?? Scratch(defaults: [:])
        var machine = machine
        var action = action
        var outOfScope = outOfScope
        while true {
            switch action {
            case .finished, .failed:
                return Node(machine: machine, action: action, request: nil, restarts: restarts, outOfScope: outOfScope)
            case .proceed:
                action = machine.handleDiscardingRecords(
                    .abort("the machine waited for a handler that was not running"))
            case .runStep(let invocation):
                let (after, run, unstubbed) = await runStep(
                    machine, invocation, reply: nil, seed: Self.seed(journey, invocation.step, ""), scratch: scratch)
                outOfScope = outOfScope || unstubbed
                switch run {
                case .asked(let request):
                    // The step waits for input: the node is the machine before the handler ran.
                    return Node(
                        machine: machine, action: action, request: request, restarts: restarts, outOfScope: outOfScope)
                case .done(let next, let outcome):
                    if let outcome, invocation.journey == journey {
                        edges.append(Edge(step: invocation.step, outcome: outcome))
                    }
                    machine = after
                    action = next
                }
            }
        }
    }

    enum StepRun {
        /// The handler asked for more than the replies: the step waits for this request.
        case asked(InputRequest)
        /// The step completed (with this outcome) or the run ended; the machine's next action.
        case done(JourneyMachine.Action, outcome: String?)
    }

    /// Runs the current step's handler, answering its first request with `reply` (none: the
    /// first request stops it).
    func runStep(
        _ machine: JourneyMachine, _ invocation: HandlerInvocation, reply: DriverReply?, seed: UInt64,
        scratch: Scratch
    ) async -> (JourneyMachine, StepRun, outOfScope: Bool) {
        var machine = machine
        machine.random = .seeded(seed)
        scratch.driver.reset(reply)
        // A scenario's network is made afresh for every move; without one, the context is reused.
        let watched = network.map { Watched($0()) }
        let context: RunContext<Replies, Discard>
        if watched == nil, let reused = scratch.context {
            reused.machine = machine
            context = reused
        } else {
            context = RunContext(machine: machine, driver: scratch.driver, network: watched, sink: Discard.shared)
            if watched == nil { scratch.context = context }
        }
        let (after, run) = await run(handlerOf: invocation, in: context)
        return (after, run, watched?.unstubbed ?? false)
    }

    private func run<Sink: TranscriptSink>(
        handlerOf invocation: HandlerInvocation, in context: RunContext<Replies, Sink>
    ) async -> (JourneyMachine, StepRun) {
        guard let handler = context.machine.currentHandler else {
            let action = context.handle(.abort("step '\(invocation.step)' has no handler to run"))
            return (context.machine, .done(action, outcome: nil))
        }
        context.inputs = [:]
        do {
            let result = try await handler.run(invocation, context: context)
            let action = context.handle(.complete(result, inputs: context.inputs))
            return (context.machine, .done(action, outcome: result.outcome))
        } catch let stop as Replies.Exhausted {
            return (context.machine, .asked(stop.request))
        } catch let interruption as RunInterruption {
            switch interruption {
            case .restart: return (context.machine, .done(context.handle(.restart), outcome: nil))
            case .abort(let message): return (context.machine, .done(context.handle(.abort(message)), outcome: nil))
            case .ended:
                let result = context.machine.result ?? RunResult(end: nil, kind: nil, failure: "ended", steps: 0)
                return (context.machine, .done(.failed(result), outcome: nil))
            case .waiting:
                return (context.machine, .asked(invocation.request()))
            }
        } catch let error as HandlerError {
            return (context.machine, .done(context.handle(.fail(error.message)), outcome: nil))
        } catch {
            return (context.machine, .done(context.handle(.fail("\(type(of: error)) was thrown")), outcome: nil))
        }
    }

    // MARK: - Invariants

    /// A state no path may reach: one where the run failed. (That a spent limit's step is
    /// never shown, its `exceeded` leading on instead, the interpreter guarantees.)
    func stateProblem(_ node: Node, _ journey: CompiledJourney) -> (ExplorationInvariant, String)? {
        guard case .failed(let result) = node.action else { return nil }
        return (.neverFails, "the run fails: \(result.failure ?? "without a message")")
    }

    func edgeProblem(
        from node: Node, move: Move, to next: Node, _ journey: CompiledJourney
    ) -> (ExplorationInvariant, String, Violation.Expected?)? {
        let isRestart = move == .restart
        guard isRestart || { if case .clock = move { true } else { false } }() else { return nil }
        for limit in journey.limits.values.sorted(by: { $0.name < $1.name }) {
            // A lockout that ends with time gives the attempts back on purpose.
            if !isRestart && (limit.lockout != nil || limit.lockedUntil != nil) { continue }
            let before = Self.counter(limit.counter, node.machine, journey: journey.id)
            let after = Self.counter(limit.counter, next.machine, journey: journey.id)
            if after < before {
                return (
                    .counterSurvives,
                    "\(isRestart ? "an app restart" : "a clock jump") takes limit '\(limit.name)' from \(before) to \(after) attempts (\(limit.counter)): \(isRestart ? "restarting the app" : "waiting") buys more attempts",
                    Violation.Expected(variable: limit.counter, value: before)
                )
            }
        }
        return nil
    }

    /// A limit's counter as the root journey keeps it (0 when not set).
    static func counter(_ reference: VariableReference, _ machine: JourneyMachine, journey: String) -> Int {
        let value: Value?
        switch reference.scope {
        case .stored: value = machine.device.store[reference.name]
        case .state: value = machine.run.frames.first(where: { $0.journey.id == journey })?.state[reference.name]
        }
        if case .int(let n)? = value?.revealed { return n }
        return 0
    }

    // MARK: - What a journey gives the explorer

    /// The durations a journey writes (handler parameters, a limit's lockout, params'
    /// defaults), each once, in ascending order: the clock jumps it can tell apart.
    static func durations(of journey: CompiledJourney) -> [Int] {
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
        return found.sorted()
    }

    static func edges(of journey: CompiledJourney) -> [Edge] {
        journey.source.steps.flatMap { step in
            step.transitions.map { Edge(step: step.id.value, outcome: $0.outcome.value) }
        }
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

    static func normalized(_ snapshot: JourneyMachine.Snapshot, _ defaults: [String: Value]) -> JourneyMachine.Snapshot
    {
        var snapshot = snapshot
        for (key, value) in snapshot.store where defaults[key] == value.revealed && !value.isSecret {
            snapshot.store[key] = nil
        }
        return snapshot
    }

    /// A stable seed for a step's randomness: the same input at the same step draws the same
    /// bytes in every run (FNV-1a of the journey, the step and the input's class).
    static func seed(_ journey: String, _ step: String, _ label: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        for byte in journey.utf8 { mix(byte) }
        mix(0)
        for byte in step.utf8 { mix(byte) }
        mix(0)
        for byte in label.utf8 { mix(byte) }
        return hash
    }
}

/// Answers a handler's requests with the replies given, then stops it: the step waits.
final class Replies: InputDriver {
    struct Exhausted: Error {
        var request: InputRequest
    }

    private var replies: [DriverReply]
    /// The first reply, kept apart: a move answers one request, and needs no array for it.
    private var first: DriverReply?

    init(_ replies: [DriverReply]) { self.replies = replies }

    /// Answers the next request with `reply` (none: stops at once), forgetting any other.
    func reset(_ reply: DriverReply?) {
        first = reply
        if !replies.isEmpty { replies = [] }
    }

    nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
        if let reply = first {
            first = nil
            return reply
        }
        guard !replies.isEmpty else { throw Exhausted(request: request) }
        return replies.removeFirst()
    }
}

/// The scenario's network, watched for a request no stub answers: a path the scenario's stubs
/// do not cover is out of the exploration's scope, not a failure of the journey.
final class Watched: NetworkTransport {
    private let inner: any NetworkTransport
    private(set) var unstubbed = false

    init(_ inner: any NetworkTransport) { self.inner = inner }

    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await inner.send(request)
        } catch NetworkError.unstubbed(let message) {
            unstubbed = true
            throw NetworkError.unstubbed(message)
        }
    }
}

/// Keeps no record: an exploration plays millions of steps and writes transcripts only for
/// the paths it reports.
final class Discard: TranscriptSink, @unchecked Sendable {
    static let shared = Discard()
    func record(_ record: TranscriptRecord) {}
}
