import Foundation

// The moves the explorer plays from a state, and how it plays each: on the real interpreter,
// running the real handlers, until a step waits or the run ends.

extension JourneyExplorer {
    /// The moves from a node, in order: each input class of the step, then a restart, then the
    /// clock jumps (`jumps`, or those of the bounds or the journey), then the network going
    /// away or coming back; and whether some input of the step cannot be made (said in
    /// `leftOut`).
    func moves(
        _ node: Node, journey: CompiledJourney, leftOut: inout Set<LeftOut>, jumps: [Int]
    ) -> (moves: [Move], incomplete: Bool) {
        guard case .runStep(let invocation) = node.action, let request = node.request else {
            // After a failure or a cancel the user opens the app again, with what the device
            // keeps: a state found only in that later session is explored too.
            if case .finished(let result) = node.action, let end = result.end, result.kind != .success,
                node.broken == nil, !node.outOfScope, node.restarts < bounds.restarts
            {
                return ([.relaunch(after: end)], false)
            }
            return ([], false)
        }
        let step = node.machine.currentCompiledStep
        if let step, !step.deterministic, let handler = step.handler {
            leftOut.insert(.undeclared(journey: request.journey, step: request.step, handler: handler.contract.id))
            return ([], true)
        }
        var incomplete = false
        var moves: [Move] = []
        moves.reserveCapacity(8)
        var actions: [Move] = []
        let handler = step?.handler
        var asked = false
        for input in request.inputs {
            if input.name == "action" {
                // Each action the screen shows enabled now: time can enable one (a resend after
                // its cooldown) while the step waits.
                let shown = request.screen?.actions ?? []
                for id in input.classes where !shown.contains(where: { $0.id == id && !$0.enabled }) {
                    actions.append(.input(step: request.step, label: id, values: ["action": .string(id)]))
                }
            } else if input.name == "network" {
                continue  // a device event, not the user's input
            } else if let explorable = step?.explorable {
                // Its choices give every input the step takes at once (a form's fields and
                // its submit): asked once, not once more for each input.
                guard !asked else { continue }
                asked = true
                let choices = explorable.explorationChoices(
                    request, invocation: invocation, device: node.machine.device, hints: hints)
                for choice in choices {
                    moves.append(.input(step: request.step, label: choice.label, values: choice.values))
                }
            } else if !input.type.secret, !input.classes.isEmpty, input.type.type == .string {
                for label in input.classes {
                    moves.append(.input(step: request.step, label: label, values: [input.name: .string(label)]))
                }
            } else if !asked {
                incomplete = true
                leftOut.insert(
                    .inputUnmade(
                        journey: request.journey, step: request.step, handler: handler?.contract.id, input: input.name))
            }
        }
        // An action a choice already presses with its values (a form's submit) is that choice.
        let pressed =
            actions.isEmpty
            ? []
            : moves.compactMap { move -> String? in
                guard case .input(_, _, let values) = move, case .string(let id)? = values["action"] else { return nil }
                return id
            }
        for move in actions {
            if case .input(_, let id, _) = move, pressed.contains(id) { continue }
            moves.append(move)
        }
        if node.restarts < bounds.restarts { moves.append(.restart) }
        // Appended one by one: a move list is made for every state expanded.
        for milliseconds in jumps { moves.append(.clock(milliseconds: milliseconds)) }
        // Without a network every request fails already: going offline changes nothing.
        if bounds.offline, network != nil { moves.append(.network(online: !node.machine.device.profile.online)) }
        return (moves, incomplete)
    }

    /// The node after `move`, and the root journey's steps and outcomes it took.
    ///
    /// The move is played on one machine, the node's copied into the context its handlers run in
    /// and changed there in place, step after step, until a step waits or the run ends; the node
    /// that stands for the state reached copies it once more. Like the handlers it runs, a move
    /// runs on its caller's executor (`nonisolated(nonsending)`): it pays no hop.
    nonisolated(nonsending) func play(
        _ move: Move, from node: Node, journey: String, scratch: Scratch
    ) async -> (Node, [Edge]) {
        var edges: [Edge] = []
        // An app restart where a step waits, or the app opened again after an end: the root
        // journey starts over with what the device keeps.
        if move.launchesAgain {
            // Opened again after an end, the app starts a new session, watched afresh as `journey
            // run` watches each session of a scenario: a credential checked in the last one does
            // not sign this one in. An app killed mid-session is the same session.
            let monitor =
                if case .relaunch = move, node.monitor != nil {
                    InvariantMonitor(node.machine.root, library: library)
                } else {
                    node.monitor
                }
            let (context, _) = self.context(for: node.machine, answered: node.answered, scratch: scratch)
            context.machine.countStepsAfresh()
            let next = await settle(
                in: context, context.handle(.restart), from: node, restarts: node.restarts + 1,
                answered: node.answered, journey: journey, taking: &edges, monitor: monitor, scratch: scratch)
            return (next, edges)
        }
        guard case .runStep(let invocation) = node.action else { return (node, []) }
        let (context, watched) = self.context(for: node.machine, answered: node.answered, scratch: scratch)
        // A move's steps are counted from zero: the step budget stops a runaway loop, not a
        // long path (the steps a path took are no part of its state).
        context.machine.countStepsAfresh()
        let reply: DriverReply
        let label: String
        switch move {
        case .restart, .relaunch: return (node, [])  // launched above
        case .input(_, let name, let values): (reply, label) = (.input(values), name)
        case .network(let online): (reply, label) = (.network(online: online), online ? "online" : "offline")
        case .clock(let milliseconds): (reply, label) = (.advance(milliseconds: milliseconds), "clock")
        }
        let seed = Self.seed(journey, invocation.step, label)
        // A program declared deterministic is held to it: its step runs first on a copy.
        let held = heldProgram(context.machine)
        let trial =
            held == nil
            ? nil
            : await trial(
                invocation, machine: context.machine, seed: seed, reply: reply, answered: node.answered,
                scratch: scratch)
        context.machine.random = random ?? .seeded(seed)
        scratch.driver.reset(reply)
        let run = await run(handlerOf: invocation, in: context)
        // Where the step leads is not judged (a note says why) when the program answered otherwise than its trial,
        // or the step sent a request no stub answers.
        let note =
            held.flatMap { Self.unsteady(invocation, $0, trial: trial, run: run, context.machine) }
            ?? watched?.leftOut(invocation)
        switch run {
        case .asked(let request):
            // The step still waits, with its screen as it shows now (time may have enabled an
            // action): the next move runs its handler with that screen.
            let current = context.machine.currentInvocation.map(JourneyMachine.Action.runStep) ?? node.action
            // The handler runs from its start on the next move: the network is as it was.
            let next = Node(
                machine: context.machine, action: current, request: request, restarts: node.restarts,
                outOfScope: note != nil, answered: node.answered, monitor: node.monitor, note: note,
                rounds: node.rounds)
            return (next, [])
        case .done(let action, let outcome):
            var monitor = node.monitor
            if let outcome {
                Self.took(
                    outcome, at: invocation.step, of: invocation.journey, root: journey, edges: &edges,
                    monitor: &monitor, scratch: scratch)
            }
            let next = await settle(
                in: context, action, from: node, restarts: node.restarts,
                answered: watched?.answered ?? node.answered,
                journey: journey, taking: &edges, note: note, monitor: monitor,
                scratch: scratch)
            return (next, edges)
        }
    }

    /// Runs the steps that ask for nothing (a decision, a save, a wipe) until one asks or the
    /// run ends, checking the journey's invariants at each step entered and at the end; the
    /// first one broken stops the path there. The steps run on the context's machine, in place.
    ///
    /// `node` is the state the move is played from: what the path remembers of the limits it
    /// spent (``Node/rounds``) is carried on from it, as the move goes.
    nonisolated(nonsending) func settle(
        in context: RunContext<Replies, Recorder>, _ action: JourneyMachine.Action, from node: Node, restarts: Int,
        answered: [Int], journey: String, taking edges: inout [Edge], note: LeftOut? = nil,
        monitor: InvariantMonitor? = nil, scratch: Scratch
    ) async -> Node {
        var context = context
        var action = action
        // A move whose step was not judged (`note` says why) leads where nothing is judged.
        var outOfScope = note != nil
        var answered = answered
        var monitor = monitor
        var note = note
        var rounds = node.rounds
        while true {
            // A call step completes when its sub-journey returns, inside the machine: after the
            // event that gave `action`.
            // What the event took besides the step's outcome: the coverage of each branch and of
            // where a limit leads once spent; a limit spent, for the rounds the path remembers.
            for taken in context.machine.taken {
                switch taken {
                case .callReturn(let called):
                    Self.took(
                        called.outcome, at: called.step, of: called.journey, root: journey, edges: &edges,
                        monitor: &monitor, scratch: scratch)
                case .branch(let branch):
                    if scratch.covers, let edge = scratch.branches[ObjectIdentifier(branch)] {
                        scratch.covered.append(edge)
                    }
                case .limit(let exceeded):
                    if scratch.covers, exceeded.journey == journey {
                        scratch.covered.append(
                            .limit(exceeded.limit.name, at: exceeded.step, branch: exceeded.branch?.label))
                    }
                    if scratch.watchesRounds { scratch.exceeded.append(exceeded.limit) }
                }
            }
            if scratch.watchesRounds {
                rounds = self.rounds(
                    from: node, now: context.machine, taking: edges, launched: restarts != node.restarts,
                    scratch: scratch)
            }
            if let broken = monitor?.check(action, context.machine) {
                return Node(
                    machine: context.machine, action: action, request: nil, restarts: restarts,
                    outOfScope: outOfScope, answered: answered, monitor: monitor, broken: broken, note: note,
                    rounds: rounds)
            }
            switch action {
            case .finished, .failed:
                return Node(
                    machine: context.machine, action: action, request: nil, restarts: restarts,
                    outOfScope: outOfScope, answered: answered, monitor: monitor, note: note, rounds: rounds)
            case .proceed:
                action = context.handle(.abort("the machine waited for a handler that was not running"))
            case .runStep(let invocation):
                // Where a known state waits, the path is that state: its handler would ask what
                // it asked there. (A handler that takes no input never waits: not looked up.)
                let step = context.machine.currentCompiledStep
                let takesInput = step?.takesInput == true
                var entered: UInt64?
                if scratch.known != nil, takesInput {
                    let hash = scratch.encoder.encode(
                        context.machine, restarts: restarts, answered: answered, monitor: monitor?.bits, broken: nil,
                        rounds: rounds)
                    if scratch.isKnown(hash: hash, judged: !outOfScope && note == nil) {
                        scratch.settled = hash
                        return Node(
                            machine: context.machine, action: action, request: nil, restarts: restarts,
                            outOfScope: outOfScope, answered: answered, monitor: monitor, note: note, known: true,
                            rounds: rounds)
                    }
                    entered = hash
                }
                if !runsUndeclared, let step, !step.deterministic, let handler = step.handler {
                    return Node(
                        machine: context.machine, action: action, request: nil, restarts: restarts, outOfScope: true,
                        answered: answered, monitor: monitor,
                        note: .undeclared(
                            journey: invocation.journey, step: invocation.step, handler: handler.contract.id),
                        rounds: rounds)
                }
                // The state waits here with the machine as it is before the step's handler runs:
                // kept where it may wait (a handler that takes no input never waits).
                let before = takesInput ? context.machine : nil
                let watched: Watched?
                (context, watched) = self.context(for: context, answered: answered, scratch: scratch)
                let seed = Self.seed(journey, invocation.step, "")
                // A program declared deterministic is held to it: its step runs first on a copy,
                // and where the two runs part, what follows is not judged.
                let held = heldProgram(context.machine)
                let trial =
                    held == nil
                    ? nil
                    : await trial(
                        invocation, machine: context.machine, seed: seed, reply: nil, answered: answered,
                        scratch: scratch)
                context.machine.random = random ?? .seeded(seed)
                scratch.driver.reset(nil)
                let run = await run(handlerOf: invocation, in: context)
                if let unsteady = held.flatMap({
                    Self.unsteady(invocation, $0, trial: trial, run: run, context.machine)
                }) {
                    outOfScope = true
                    note = unsteady
                }
                // A request no stub answers: what the server does is not the scenario's to say,
                // and where the step led is not judged.
                if let unstubbed = watched?.leftOut(invocation) {
                    outOfScope = true
                    note = note ?? unstubbed
                }
                switch run {
                case .asked(let request):
                    guard let before else {
                        action = context.handle(.fail("it asked for input, but its contract declares none"))
                        continue
                    }
                    // The step waits for input: the node is the machine before the handler ran,
                    // and the network as it was. (A program's step that waits is left out by
                    // `moves`, which says why.)
                    scratch.settled = entered
                    if let entered, !outOfScope, note == nil { scratch.keepFound(hash: entered) }
                    return Node(
                        machine: before, action: action, request: request, restarts: restarts, outOfScope: outOfScope,
                        answered: answered, monitor: monitor, note: note, rounds: rounds)
                case .done(let next, let outcome):
                    // A program not declared deterministic that ran a step on its own may do
                    // otherwise next time: what follows is not judged.
                    if let step, !step.deterministic, let handler = step.handler {
                        outOfScope = true
                        note = .undeclared(
                            journey: invocation.journey, step: invocation.step, handler: handler.contract.id)
                    }
                    if let outcome {
                        Self.took(
                            outcome, at: invocation.step, of: invocation.journey, root: journey, edges: &edges,
                            monitor: &monitor, scratch: scratch)
                    }
                    action = next
                    answered = watched?.answered ?? answered
                }
            }
        }
    }

    /// A step completed with `outcome` in the move being played: the root journey's is an edge
    /// the move took; another journey's is kept for the check of its limits, when a called
    /// journey has any (``Scratch/completed``); the journey's invariants hear of either.
    @inline(__always)
    static func took(
        _ outcome: String, at step: String, of stepJourney: String, root: String, edges: inout [Edge],
        monitor: inout InvariantMonitor?, scratch: Scratch
    ) {
        if stepJourney == root {
            edges.append(Edge(step: step, outcome: outcome))
        } else if scratch.watchesCallees {
            scratch.completed.append((stepJourney, Edge(step: step, outcome: outcome)))
        }
        monitor?.completed(journey: stepJourney, step: step, outcome: outcome)
    }

    /// What a journey explored from several starts left out, said of them all: each start's
    /// notes once; what a start's device lacks (a PIN sealed) only when every start lacks it; a
    /// request sent with no network, when some start stubs the server, as left out only from the
    /// others.
    public static func leftOut(ofStarts results: [Result]) -> [LeftOut] {
        var notes = Set(results.flatMap(\.leftOut))
        notes = notes.filter { note in !note.isSaidOfTheDevice || results.allSatisfy { $0.leftOut.contains(note) } }
        if results.contains(where: \.offline) {
            notes = Set(
                notes.map { note in
                    guard case .sentWithoutNetwork(let journey, let step, _) = note else { return note }
                    return .sentWithoutNetwork(journey: journey, step: step, fromSomeStarts: true)
                })
        }
        return notes.sorted()
    }

    /// How a step ended, as far as where it leads goes: what it asked for, or its outcome and
    /// the run's state after it. Boxed (`indirect`): it waits across the move's `await`, and the
    /// move's frame holds only its pointer.
    indirect enum StepAnswer: Equatable {
        case asked(InputRequest)
        case done(outcome: String?, JourneyMachine.Snapshot)

        init(_ run: StepRun, _ machine: borrowing JourneyMachine) {
            switch run {
            case .asked(let request): self = .asked(request)
            case .done(_, let outcome): self = .done(outcome: outcome, machine.snapshot(includingGrowth: false))
            }
        }

        var shown: String {
            switch self {
            case .asked(let request) where request.inputs.isEmpty: "asked for input"
            case .asked(let request): "asked for \(request.inputs.map(\.name).joined(separator: ", "))"
            case .done(let outcome?, _): "outcome \(outcome)"
            case .done(nil, _): "no outcome"
            }
        }
    }

    /// The program the step the machine is at runs when exploring holds it to its declared
    /// determinism (``CompiledStep/heldToDeterminism``); nil for every other step, and in play.
    func heldProgram(_ machine: borrowing JourneyMachine) -> (any StepHandler)? {
        guard !runsUndeclared, let step = machine.currentCompiledStep, step.heldToDeterminism else { return nil }
        return step.handler
    }

    /// The step `invocation` names run on a copy of `machine`, in a context of its own (the
    /// network as `answered` left it, records thrown away), drawing from `seed` and given `reply`
    /// as the explorer then runs it for real: what a program held to its determinism must
    /// answer again.
    private nonisolated(nonsending) func trial(
        _ invocation: HandlerInvocation, machine: JourneyMachine, seed: UInt64, reply: DriverReply?, answered: [Int],
        scratch: Scratch
    ) async -> StepAnswer {
        let copy = RunContext(
            machine: machine, driver: scratch.driver, network: network.map { Watched($0(answered)) },
            sink: Recorder(keeping: false))
        copy.machine.random = random ?? .seeded(seed)
        scratch.driver.reset(reply)
        return StepAnswer(await run(handlerOf: invocation, in: copy), copy.machine)
    }

    /// Why what follows a step of a program declared deterministic is left out, when its run
    /// ended otherwise than the trial before it; nil when the two ended alike.
    static func unsteady(
        _ invocation: HandlerInvocation, _ handler: any StepHandler, trial: StepAnswer?, run: StepRun,
        _ machine: borrowing JourneyMachine
    ) -> LeftOut? {
        guard let trial else { return nil }
        let answer = StepAnswer(run, machine)
        guard answer != trial else { return nil }
        return unsteady(invocation.journey, invocation.step, handler.contract.id, first: trial, then: answer)
    }

    /// Why what follows a step of a program declared deterministic is left out: run twice from
    /// the same state, it ended otherwise.
    static func unsteady(
        _ journey: String, _ step: String, _ handler: String, first: StepAnswer, then: StepAnswer
    ) -> LeftOut {
        let how =
            first.shown == then.shown
            ? "\(first.shown) both times, but the run's state after it differs"
            : "\(first.shown), then \(then.shown)"
        return .unsteady(journey: journey, step: step, handler: handler, how: how)
    }

    enum StepRun {
        /// The handler asked for more than the replies: the step waits for this request.
        case asked(InputRequest)
        /// The step completed (with this outcome) or the run ended; the machine's next action.
        case done(JourneyMachine.Action, outcome: String?)
    }

    /// The context a handler runs in, holding `machine`: the scratch's, reused, when there is no
    /// network; otherwise one made for the handler, with the scenario's network as `answered`
    /// left it (``network``), watched for requests no stub answers.
    func context(
        for machine: consuming JourneyMachine, answered: [Int], scratch: Scratch
    ) -> (RunContext<Replies, Recorder>, Watched?) {
        guard let network else {
            if let reused = scratch.context {
                reused.machine = machine
                return (reused, nil)
            }
            let context = RunContext(machine: machine, driver: scratch.driver, network: nil, sink: scratch.recorder)
            context.storeWrites = scratch.storeWrites
            scratch.context = context
            return (context, nil)
        }
        let watched = Watched(network(answered))
        let context = RunContext(machine: machine, driver: scratch.driver, network: watched, sink: scratch.recorder)
        context.storeWrites = scratch.storeWrites
        return (context, watched)
    }

    /// The context the next handler of a move runs in: `context` itself when there is no network;
    /// otherwise one with the network as `answered` left it, holding `context`'s machine.
    func context(
        for context: RunContext<Replies, Recorder>, answered: [Int], scratch: Scratch
    ) -> (RunContext<Replies, Recorder>, Watched?) {
        guard network != nil else { return (context, nil) }
        return self.context(for: context.machine, answered: answered, scratch: scratch)
    }

    /// Runs the handler of the step the context's machine is at, with `invocation`, answering
    /// its requests from the scratch's driver; the machine is left as the run leaves it. Each
    /// outcome is given to the machine before it is read: the node a failure makes is the run
    /// failed, never the step still waiting.
    private nonisolated(nonsending) func run(
        handlerOf invocation: HandlerInvocation, in context: RunContext<Replies, Recorder>
    ) async -> StepRun {
        guard let handler = context.machine.currentHandler else {
            return .done(context.handle(.abort("step '\(invocation.step)' has no handler to run")), outcome: nil)
        }
        context.inputs = [:]
        do {
            let result = try await handler.run(invocation, context: context)
            return .done(context.handle(.complete(result, inputs: context.inputs)), outcome: result.outcome)
        } catch let stop as Replies.Exhausted {
            return .asked(stop.request)
        } catch let interruption as RunInterruption {
            switch interruption {
            case .restart: return .done(context.handle(.restart), outcome: nil)
            case .abort(let message): return .done(context.handle(.abort(message)), outcome: nil)
            case .ended:
                let result = context.machine.result ?? RunResult(end: nil, kind: nil, failure: "ended", steps: 0)
                return .done(.failed(result), outcome: nil)
            case .waiting: return .asked(invocation.request())
            }
        } catch let error as HandlerError {
            return .done(context.handle(.fail(error.message)), outcome: nil)
        } catch {
            return .done(context.handle(.fail("\(type(of: error)) was thrown")), outcome: nil)
        }
    }
}

/// Answers a handler's requests with the replies given, then stops it: the step waits. Used by
/// one thread at a time, as its ``JourneyExplorer/Scratch`` is.
final class Replies: InputDriver {
    struct Exhausted: Error {
        var request: InputRequest
    }

    @exclusivity(unchecked) private var replies: [DriverReply]
    /// The first reply, kept apart: a move answers one request, and needs no array for it.
    @exclusivity(unchecked) private var first: DriverReply?

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

    /// What the inner network has answered, when it counts.
    var answered: [Int] { (inner as? any CountingNetwork)?.answered ?? [] }

    /// What is left out of the step `invocation` names when it sent a request no stub answers:
    /// where it leads is not judged. Nil when every request was answered.
    func leftOut(_ invocation: HandlerInvocation) -> JourneyExplorer.LeftOut? {
        unstubbed ? .unstubbed(journey: invocation.journey, step: invocation.step) : nil
    }

    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await inner.send(request)
        } catch NetworkError.unstubbed(let message) {
            unstubbed = true
            throw NetworkError.unstubbed(message)
        }
    }
}

/// What one move records, kept only when the explorer looks for secrets in it: an exploration
/// plays millions of steps and writes transcripts only for the paths it reports. Of those, only
/// the texts of the records a run filled in (``EventTexts``): an event prepared when the journey
/// was compiled holds nothing a run made. The records themselves are kept only for a person
/// playing the journey, who reads them all (`keepsPrepared`). Used by one thread at a time, as
/// its ``JourneyExplorer/Scratch`` is.
final class Recorder: TranscriptSink, @unchecked Sendable {
    @exclusivity(unchecked) private(set) var keeping: Bool
    /// Whether the records are kept, prepared ones too: a person playing the journey reads them.
    let keepsPrepared: Bool
    @exclusivity(unchecked) private(set) var records: [TranscriptRecord] = []
    /// The texts of the records a run filled in, for the secret search.
    @exclusivity(unchecked) private(set) var texts = EventTexts()

    init(keeping: Bool, keepsPrepared: Bool = false) {
        self.keeping = keeping
        self.keepsPrepared = keepsPrepared
    }

    /// Starts a move: forgets what the last one recorded, and keeps this one's or not.
    func begin(keeping: Bool) {
        self.keeping = keeping
        if !records.isEmpty { records.removeAll(keepingCapacity: true) }
        texts.removeAll()
    }

    var discardsRecords: Bool { !keeping }
    var discardsPrepared: Bool { !keepsPrepared }

    func record(_ record: TranscriptRecord) {
        guard keeping else { return }
        if keepsPrepared { records.append(record) }
        if record.encodedEvent == nil { texts.add(record.event) }
    }
}
