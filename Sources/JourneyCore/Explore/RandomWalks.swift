extension JourneyExplorer {
    /// Plays `walks` random paths through the journey, each from the start and at most
    /// `bounds.depth` moves long, each move drawn with equal chance among those the state
    /// offers (the same moves an exhaustive exploration plays), for spaces too large to
    /// exhaust. The draws come from `seed` alone: the same seed plays the same walks and
    /// reports the same result. Every state and move is checked as when exploring, but for
    /// `explore.reaches-an-end`, which needs every way out of a state and is not judged; a
    /// violation's path is the walk up to it, not the shortest. The walks stop, and the result
    /// says so (``Result/truncated``), once they have seen `bounds.states` states.
    public func walk(_ journey: CompiledJourney, seed: UInt64, walks: Int) async -> Result {
        let jumps = clockJumps(journey)
        let scratch = Scratch(abstraction(journey, jumps: jumps))
        let (begun, first, watchesSecrets, startLeak) = await begin(journey, jumps: jumps, scratch: scratch)
        var result = begun
        result.random = (seed, 0)

        var seen = StateTable()
        var leftOut = Set(scratch.takeSentWithoutNetwork())
        var draws = RandomSource.seeded(seed)
        var memoryChecked = 0
        // Bytes of the keys of states found since the memory was last read.
        var memoryWritten = 0
        func report(
            _ invariant: ExplorationInvariant?, _ message: String, path: [Move], node: Node,
            expected: Violation.Expected? = nil, declared: (id: String, summary: String?)? = nil
        ) {
            var step: String?
            var (within, end): (String?, String?)
            switch node.action {
            case .runStep(let invocation):
                step = invocation.step
                within = invocation.journey == journey.id ? nil : invocation.journey
            case .finished(let reached): end = reached.end
            default: break
            }
            result.report(
                invariant, declared: declared, message, path: { path }, step: step, waitingIn: within, end: end,
                expected: expected)
        }
        /// Reports what is wrong with the state a walk reached; whether the walk stops there.
        func judge(_ node: Node, path: [Move]) -> Bool {
            let key = scratch.key(node)
            if seen.insert(key).new {
                memoryWritten += key.bytes.count
                if seen.count >= bounds.states { result.truncated = true }
            }
            // What the scenario's stubs do not cover is not judged.
            if node.outOfScope {
                if let note = node.note { leftOut.insert(note) }
                return true
            }
            if let problem = stateProblem(node, journey) { report(problem.0, problem.1, path: path, node: node) }
            if let broken = node.broken {
                report(
                    broken.builtin, broken.detail, path: path, node: node,
                    declared: broken.builtin == nil ? (broken.id, broken.summary) : nil)
                return true
            }
            return false
        }

        if let startLeak, !first.outOfScope { report(.noSecretLeak, startLeak, path: [], node: first) }
        if judge(first, path: []) { return finish(result, seen: seen, leftOut: leftOut) }
        for walk in 0..<walks where !result.truncated && !result.interrupted {
            // The walks played: fewer than asked when the state bound stops them.
            result.random = (seed, walk + 1)
            defer {
                progress?(
                    Progress(
                        depth: result.depth, states: seen.count, transitions: result.transitions, walks: walk + 1))
                if stop?() == true { result.interrupted = true }
                checkMemory(&result, checked: &memoryChecked, written: &memoryWritten)
            }
            var node = first
            var path: [Move] = []
            while path.count < bounds.depth && !result.truncated {
                let (moves, _) = self.moves(node, journey: journey, leftOut: &leftOut, jumps: jumps)
                guard !moves.isEmpty else { break }
                let move = moves[Int(draws.next() % UInt64(moves.count))]
                result.transitions += 1
                scratch.recorder.begin(
                    keeping: watchesSecrets && !result.reports(ExplorationInvariant.noSecretLeak.rawValue))
                if scratch.watchesCallees { scratch.completed.removeAll(keepingCapacity: true) }
                if !scratch.exceeded.isEmpty { scratch.exceeded.removeAll(keepingCapacity: true) }
                if !scratch.covered.isEmpty { scratch.covered.removeAll(keepingCapacity: true) }
                scratch.storeWrites.keys.removeAll(keepingCapacity: true)
                let (next, edges) = await play(move, from: node, journey: journey.id, scratch: scratch)
                leftOut.formUnion(scratch.takeSentWithoutNetwork())
                result.taken.formUnion(edges)
                result.taken.formUnion(scratch.covered)
                path.append(move)
                if !next.outOfScope {
                    if scratch.recorder.keeping,
                        let leak = scratch.secrets.leak(scratch.recorder.texts, move: move, from: node, to: next)
                    {
                        report(.noSecretLeak, leak, path: path, node: next)
                    }
                    if let problem = edgeProblem(
                        from: node, move: move, to: next, taking: edges, journey, watched: scratch.watched,
                        completed: scratch.completed, written: scratch.storeWrites.keys)
                    {
                        if let callee = problem.excusedBy {
                            result.excusedInCalls.insert(calledException(problem.0, of: callee))
                        } else {
                            report(problem.0, problem.1, path: path, node: next, expected: problem.2)
                        }
                    }
                }
                node = next
                result.depth = max(result.depth, path.count)
                if judge(node, path: path) { break }
            }
        }
        return finish(result, seen: seen, leftOut: leftOut)
    }

    private func finish(_ result: Result, seen: StateTable, leftOut: Set<LeftOut>) -> Result {
        var result = result
        result.states = seen.count
        result.leftOut = leftOut.sorted()
        return result
    }
}
