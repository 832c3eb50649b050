import Foundation

// The rules the explorer holds every state and move to.

extension JourneyExplorer {
    /// A state no path may reach: one where the run failed. (That a spent limit's step is
    /// never shown, its `exceeded` leading on instead, the interpreter guarantees.)
    func stateProblem(_ node: Node, _ journey: CompiledJourney) -> (ExplorationInvariant, String)? {
        guard case .failed(let result) = node.action else { return nil }
        return (.neverFails, "the run fails: \(result.failure ?? "without a message")")
    }

    /// - Parameters:
    ///   - watched: the limits to check (``Abstraction/watched``; nil: the root journey's and
    ///     those of the journeys it can call).
    ///   - completed: the steps journeys other than the root completed in the move.
    ///   - written: the keys the move's handlers wrote in the device store.
    ///   - counts: the counts of the watched limits at `node` (``counts(_:_:)``), when the
    ///     caller has them: a node's moves share them.
    func edgeProblem(
        from node: Node, move: Move, to next: Node, taking edges: [Edge] = [], _ journey: CompiledJourney,
        watched: [WatchedLimit]? = nil, completed: [(journey: String, edge: Edge)] = [], written: [String] = [],
        counts: [Int]? = nil
    ) -> MoveProblem? {
        let watched = watched ?? Self.watchedLimits(journey, in: library)
        let counts = counts ?? Self.counts(watched, node.machine)
        switch move {
        case .input, .network:
            return dodgedLimit(
                from: node, to: next, taking: edges, completed: completed, written: written, watched: watched,
                counts: counts, root: journey)
        case .restart, .relaunch, .clock: break
        }
        let isRestart = move.launchesAgain
        let what =
            switch move {
            case .relaunch(let end): "opening the app again after '\(end)'"
            case .restart: "an app restart"
            default: "a clock jump"
            }
        var excused: MoveProblem?
        for (position, watching) in watched.enumerated() {
            let limit = watching.limit
            // A lockout that ends with time gives the attempts back on purpose: a clock jump
            // while one runs; and, once it has ended, the step entered again however the way
            // goes there (the app opened again included).
            if let until = limit.lockedUntil {
                let ends = Self.counter(until, node.machine, journey: watching.journey.id)
                if ends > 0, !isRestart || ends <= node.machine.device.clock / 1000 { continue }
            }
            let before = counts[position]
            let after = Self.counter(limit.counter, next.machine, journey: watching.journey.id)
            if after < before {
                let problem: MoveProblem = (
                    .counterSurvives,
                    "\(what) takes \(watching.name) from \(before) to \(after) attempts (\(limit.counter)): \(isRestart ? "restarting the app" : "waiting") buys more attempts",
                    Self.expected(watching, before, at: next), nil
                )
                guard watching.excepts.contains(ExplorationInvariant.counterSurvives.rawValue) else { return problem }
                excused = excused ?? Self.excused(problem, by: watching)
            }
        }
        return excused
    }

    /// The exception the called journey `callee` declares for `invariant`.
    func calledException(_ invariant: ExplorationInvariant, of callee: String) -> CalledException {
        let declared = library[callee]?.source.exception(to: invariant.rawValue)
        return CalledException(journey: callee, invariant: invariant, reason: declared?.reason ?? "")
    }

    /// `problem`, excused by the called journey whose limit `watching` is.
    static func excused(_ problem: MoveProblem, by watching: WatchedLimit) -> MoveProblem {
        (problem.0, problem.1, problem.2, watching.journey.id)
    }

    /// What a counterexample's scenario expects of a limit's counter (or `variable`, the end
    /// of its lockout) where the path ends, at `node`: the root journey's state or any stored
    /// counter; a sub-journey's state where the run waits in that journey (a scenario reads it
    /// there, `in:` it); nil where it waits elsewhere, the sub-journey's state gone.
    static func expected(
        _ watching: WatchedLimit, _ value: Int, at node: Node, of variable: VariableReference? = nil
    ) -> Violation.Expected? {
        let counter = variable ?? watching.limit.counter
        let limit = variable == nil ? watching.limit.name : nil
        guard !watching.root, counter.scope == .state else {
            return Violation.Expected(variable: counter, value: value, limit: watching.root ? limit : nil)
        }
        guard case .runStep(let invocation) = node.action, invocation.journey == watching.journey.id else { return nil }
        return Violation.Expected(variable: counter, value: value, journey: invocation.journey, limit: limit)
    }

    /// A user's move that lowers a limit's counter before it is spent, other than by an
    /// outcome a step charging the limit counts (the one that reaches `max` takes `exceeded`,
    /// which resets it) or resets on, and changing nothing else the journey keeps: a way round
    /// the limit, each turn of which buys attempts against the same secret.
    func dodgedLimit(
        from node: Node, to next: Node, taking edges: [Edge], completed: [(journey: String, edge: Edge)] = [],
        written: [String] = [], watched: [WatchedLimit], counts: [Int], root: CompiledJourney
    ) -> MoveProblem? {
        var excused: MoveProblem?
        for (position, watching) in watched.enumerated() {
            guard
                let problem = dodged(
                    watching, before: counts[position], from: node, to: next, taking: edges, completed: completed,
                    written: written, root: root)
                    ?? triedAgain(
                        watching, position: position, from: node, to: next, taking: edges, completed: completed,
                        written: written, root: root)
            else { continue }
            guard watching.excepts.contains(ExplorationInvariant.exceededTarget.rawValue) else { return problem }
            excused = excused ?? Self.excused(problem, by: watching)
        }
        return excused
    }

    /// How a user's move goes round the limit `watching` watches, whose count was `before` at
    /// `node` (``dodgedLimit(from:to:taking:completed:written:watched:counts:root:)``); nil when it does not.
    func dodged(
        _ watching: WatchedLimit, before: Int, from node: Node, to next: Node, taking edges: [Edge],
        completed: [(journey: String, edge: Edge)], written: [String] = [], root: CompiledJourney
    ) -> MoveProblem? {
        let limit = watching.limit
        let journey = watching.journey
        let after = Self.counter(limit.counter, next.machine, journey: journey.id)
        let lockout = Self.lockout(of: watching, from: node, to: next, after: after)
        switch lockout {
        case .ended, .running: return nil
        case .none, .endedEarly: break
        }
        let endsLockoutEarly = lockout == .endedEarly
        // A counter that went up has counted what it was to count.
        guard after <= before || endsLockoutEarly else { return nil }
        let taken = watching.root ? edges : completed.filter { $0.journey == journey.id }.map(\.edge)
        let (counted, resets) = watching.counted(taken)
        guard after < before || counted > 0 || endsLockoutEarly else { return nil }
        // Once spent, the limit has led to `exceeded`: what follows may start the count afresh
        // only as anything else may, by replacing what it guards or checking another
        // credential (signing in again); a "Try again" that sets it back buys another round.
        let frame = JourneyMachine.FrameOnDevice(node.machine, running: journey.id)
        let spent = frame.map { before >= $0.maximum(of: limit) } ?? false
        let way = edges.map(\.description).joined(separator: " ")
        // An outcome the limit counts that the move then takes back (its transition sets the
        // counter down), short of spending the limit: the count never reaches its maximum.
        if counted > 0, !resets, !spent, let frame, after < before + counted,
            before + counted < frame.maximum(of: limit)
        {
            return (
                .exceededTarget,
                "\(way.isEmpty ? "a move" : way) is counted against \(watching.name), yet leaves it at \(after) attempts, not \(before + counted) (\(limit.counter)): the count never reaches \(frame.maximum(of: limit)), so '\(limit.name)' exceeded is never reached",
                Self.expected(watching, before + counted, at: next), nil
            )
        }
        // The move that spends a limit with a lockout starts the lockout: one that gives the
        // tries back with none running (its `exceeded` clearing the end it was to keep) lets
        // the next round start at once.
        if counted > 0, !resets, let until = limit.lockedUntil, limit.lockout != nil, let frame,
            before + counted >= frame.maximum(of: limit), after < frame.maximum(of: limit),
            Self.counter(until, next.machine, journey: journey.id) <= next.machine.device.clock / 1000
        {
            return (
                .exceededTarget,
                "\(way.isEmpty ? "a move" : way) spends \(watching.name) and gives its attempts back (\(limit.counter) = \(after)) with no lockout running (\(until) is not in the future): the next round of tries starts at once; leave the lockout's end as the limit sets it",
                Self.expected(watching, before + counted, at: next), nil
            )
        }
        if counted > 0 || resets { return nil }
        // A move that passed a check of another credential (the account's password asked
        // again after "Forgot PIN?", a sign-in) may start the count afresh: whoever passed it
        // could replace what the limit guards anyway.
        if Self.verifiesCredential(edges, of: root)
            || completed.contains(where: { Self.verifiesCredential([$0.edge], of: library[$0.journey]) })
        {
            return nil
        }
        // ...or one made where only a credential checked leads (the screen after it).
        if watching.root, let at = node.request?.step, watching.behindCredential.contains(at) { return nil }
        // A move that replaces what the limit guards (a new PIN sealed, a new code's
        // counter, the store wiped on signing out) starts a new count against a new secret:
        // a dodge lowers the count and leaves what the steps check against as it was.
        if Self.kept(by: node.machine, for: watching) != Self.kept(by: next.machine, for: watching) {
            return nil
        }
        // ...or writes it again: a PIN sealed anew under the same key is a new seal (a new salt
        // on the phone), though the explorer, whose randomness is seeded by the step, made the
        // same bytes for the same PIN.
        if let guarded = watching.guarded, written.contains(where: { guarded.contains("stored." + $0) }) {
            return nil
        }
        if endsLockoutEarly, let until = limit.lockedUntil {
            return (
                .exceededTarget,
                "\(way.isEmpty ? "a move" : way) ends the lockout of \(watching.name) early (\(until)) and leaves \(after) attempts (\(limit.counter)) and what its steps check against as it was, without a credential checked: the next round of tries starts at once, not when the lockout ends; let the lockout run out, or check another credential first",
                Self.expected(
                    watching, Self.counter(until, node.machine, journey: journey.id), at: next, of: until),
                nil
            )
        }
        if spent {
            return (
                .exceededTarget,
                "\(way.isEmpty ? "a move" : way) takes \(watching.name), spent, from \(before) to \(after) attempts (\(limit.counter)) and leaves what its steps check against as it was, without a credential checked: every round of tries buys another against the same secret; replace what the limit guards on the way (session.clear, pin.save), check another credential first, or give the limit a lockout",
                Self.expected(watching, before, at: next), nil
            )
        }
        return (
            .exceededTarget,
            "\(way.isEmpty ? "a move" : way) takes \(watching.name) from \(before) to \(after) attempts (\(limit.counter)) and leaves what its steps check against as it was, without reaching '\(limit.name)' exceeded or an outcome its step resets on: going round this way buys attempts against the same secret",
            Self.expected(watching, before, at: next), nil
        )
    }

    /// A try at a limit set back when spent (``WatchedLimit/setBackWhenSpent``) from a state whose
    /// path has spent it since what it guards was last replaced and a credential last checked
    /// (``Node/rounds``): the limit led to its `exceeded` and gave its tries back, and this
    /// round is against the same secret as the last. Nil when the move replaces what the limit
    /// guards or passes a check of another credential, as for a way round the limit.
    func triedAgain(
        _ watching: WatchedLimit, position: Int, from node: Node, to next: Node, taking edges: [Edge],
        completed: [(journey: String, edge: Edge)], written: [String], root: CompiledJourney
    ) -> MoveProblem? {
        guard node.rounds != 0, position < 64, node.rounds & (1 << UInt64(position)) != 0 else { return nil }
        let journey = watching.journey
        let taken = watching.root ? edges : completed.filter { $0.journey == journey.id }.map(\.edge)
        guard watching.counted(taken).counted > 0,
            !Self.clearsRounds(edges, completed: completed, of: root, in: library)
        else { return nil }
        if watching.root, let at = node.request?.step, watching.behindCredential.contains(at) { return nil }
        if Self.replaces(watching, from: node.machine, to: next.machine, written: written) { return nil }
        let limit = watching.limit
        let maximum = JourneyMachine.FrameOnDevice(next.machine, running: journey.id)?.maximum(of: limit)
        let way = taken.map(\.description).joined(separator: " ")
        return (
            .exceededTarget,
            "\(way.isEmpty ? "a move" : way) tries \(watching.name) again after the path spent it and its count was set back (it has no 'keep' and no lockout), with what its steps check against as it was and no credential checked since: every round of tries buys another against the same secret; give the limit 'keep: true' or a 'lockout', or replace what it guards on the way (session.clear, pin.save)",
            maximum.flatMap { Self.expected(watching, $0, at: next) }, nil
        )
    }

    /// Whether a move that took `edges` (the root journey's) and `completed` (those of the
    /// journeys it calls) passed a check of a credential: the limits it spent start afresh.
    static func clearsRounds(
        _ edges: [Edge], completed: [(journey: String, edge: Edge)], of root: CompiledJourney,
        in library: CompiledLibrary
    ) -> Bool {
        verifiesCredential(edges, of: root)
            || completed.contains(where: { verifiesCredential([$0.edge], of: library[$0.journey]) })
    }

    /// Whether what the limit `watching` guards differs between `machine` and `now`, or a key of
    /// it was written on the way (`written`): a new secret, a new count.
    static func replaces(
        _ watching: WatchedLimit, from machine: borrowing JourneyMachine, to now: borrowing JourneyMachine,
        written: [String]
    ) -> Bool {
        if let guarded = watching.guarded, written.contains(where: { guarded.contains("stored." + $0) }) { return true }
        return kept(by: machine, for: watching) != kept(by: now, for: watching)
    }

    /// What the path remembers of the limits it spent (``Node/rounds``) after the part of a move
    /// from `node` played so far, the machine now `now`: a bit for each watched limit set back
    /// when spent that the move led to its `exceeded` (``Scratch/exceeded``), kept from `node`'s
    /// otherwise; all cleared when the move passed a check of a credential, and one cleared when
    /// the move replaced what its limit guards, or (`launched`) launched the app again while its
    /// counter is in `state`, which every launch starts afresh: that is
    /// ``ExplorationInvariant/counterSurvives``' to report, or its exception's to allow.
    func rounds(
        from node: Node, now: borrowing JourneyMachine, taking edges: [Edge], launched: Bool, scratch: Scratch
    ) -> UInt64 {
        var bits = node.rounds
        if !scratch.exceeded.isEmpty {
            for (position, watching) in scratch.watched.prefix(64).enumerated() where watching.setBackWhenSpent {
                if scratch.exceeded.contains(where: { $0 === watching.limit }) { bits |= 1 << UInt64(position) }
            }
        }
        guard bits != 0, let root = library[node.machine.root.id] else { return bits }
        if Self.clearsRounds(edges, completed: scratch.completed, of: root, in: library) { return 0 }
        for (position, watching) in scratch.watched.prefix(64).enumerated()
        where bits & (1 << UInt64(position)) != 0
            && ((launched && watching.limit.counter.scope == .state)
                || Self.replaces(watching, from: node.machine, to: now, written: scratch.storeWrites.keys))
        {
            bits &= ~(1 << UInt64(position))
        }
        return bits
    }

    /// Where a limit's lockout stands on a user's move from `node` to `next`.
    enum LockoutOnMove: Equatable {
        /// The limit has no lockout, or none was started.
        case none
        /// It has ended at `node`: the step, entered again, starts the count afresh.
        case ended
        /// It runs at `node` and still runs at `next`: no attempt can be made, whatever the
        /// count (the step, entered, leads to `exceeded` until it ends).
        case running
        /// It ran at `node`, and the move ended it with attempts left (`after`, the counter at
        /// `next`, below the maximum, or its count started afresh): tries before its end.
        case endedEarly
    }

    /// Where the lockout of the limit `watching` watches stands on a move from `node` to
    /// `next`, the limit's counter `after` it.
    static func lockout(of watching: WatchedLimit, from node: Node, to next: Node, after: Int) -> LockoutOnMove {
        guard let until = watching.limit.lockedUntil else { return .none }
        let journey = watching.journey.id
        // Ends, in seconds since 1970; the clock in milliseconds: a lockout runs while
        // clock < end * 1000, that is while clock / 1000 < end.
        let ends = counter(until, node.machine, journey: journey)
        guard ends > 0 else { return .none }
        guard ends > node.machine.device.clock / 1000 else { return .ended }
        let endsNext = counter(until, next.machine, journey: journey)
        if endsNext > next.machine.device.clock / 1000 { return .running }
        // Ended by the move: a count left at its maximum locks again when the step is entered
        // (with no end kept, `exceeded` starts a lockout anew); an end in the past, or a count
        // below its maximum, lets the user try at once.
        if endsNext > 0 { return .endedEarly }
        guard let frame = JourneyMachine.FrameOnDevice(node.machine, running: journey) else { return .none }
        return after < frame.maximum(of: watching.limit) ? .endedEarly : .none
    }

    /// Whether one of `edges` (steps of `journey` and their outcomes) is an outcome that
    /// verifies a credential (``CompiledJourney/credentialSteps``).
    static func verifiesCredential(_ edges: [Edge], of journey: CompiledJourney?) -> Bool {
        guard let journey, !journey.credentialSteps.isEmpty else { return false }
        return edges.contains { journey.credentialSteps[$0.step]?.contains($0.outcome) == true }
    }

    /// What the limit's journey keeps of what its steps check against (``WatchedLimit/guarded``);
    /// where they name nothing, all it keeps besides the limit's count (and the end of its
    /// lockout): the store, and the secrets of its state.
    static func kept(by machine: JourneyMachine, for watching: WatchedLimit) -> [String: Value] {
        var found: [String: Value] = [:]
        let limit = watching.limit
        let own = [limit.counter, limit.lockedUntil].compactMap { $0 }.map { "\($0.scope.rawValue).\($0.name)" }
        let guarded = watching.guarded
        for (name, value) in machine.device.store where guarded?.contains("stored." + name) ?? true {
            found["stored." + name] = value
        }
        if let frame = machine.run.frames.first(where: { $0.journey.id == watching.journey.id }) {
            for (name, value) in frame.state {
                if let guarded {
                    if guarded.contains("state." + name) { found["state." + name] = value }
                } else if value.isSecret {
                    found["state." + name] = value
                }
            }
        }
        for name in own { found[name] = nil }
        return found
    }

    /// The counters of the watched limits as `machine` keeps them (``counter(_:_:journey:)``).
    static func counts(_ watched: [WatchedLimit], _ machine: borrowing JourneyMachine) -> [Int] {
        var counts: [Int] = []
        counts.reserveCapacity(watched.count)
        for watching in watched {
            counts.append(counter(watching.limit.counter, machine, journey: watching.journey.id))
        }
        return counts
    }

    /// A limit's counter as the root journey reads it (``LimitReading/int(_:)``: a
    /// stored counter not written is its declared default), or as the device keeps it once the
    /// run has ended.
    static func counter(
        _ reference: VariableReference, _ machine: borrowing JourneyMachine, journey: String
    ) -> Int {
        guard let frame = JourneyMachine.FrameOnDevice(machine, running: journey) else {
            // The run has ended: what the device keeps is all there is.
            if reference.scope == .stored, case .int(let n)? = machine.run.device.store[reference.name]?.revealed {
                return n
            }
            return 0
        }
        return frame.int(reference)
    }
}
