extension JourneyExplorer {
    /// The states an exploration has found, numbered in the order found (breadth first), and
    /// what it knows of each: the move that first reached it and from where, the step it waits
    /// at, whether it is an end, and the transitions played between them. The search adds to it
    /// level by level; the judgements that need the whole space (every state can still reach
    /// an end, the shortest way to each end) read it once the search is over.
    struct ExploredStates {
        /// The states' keys, each once: the number a key has is its state's.
        private(set) var table = StateTable()
        /// The state each was first reached from, and the move that reached it; nil for the start.
        private var parents: [(parent: Int, move: Move)?] = []
        /// Every transition played, as (from, to): walked backwards from the ends after the search.
        private var arcs: [(from: Int32, to: Int32)] = []
        /// Whether the user could do something at each state (an input move was played from it).
        private var answers: [Bool] = []
        /// Whether each state ends its path: a journey's end, a failed run, a broken invariant.
        private var ends: [Bool] = []
        /// The end each state is, when it is the journey's end: states are added breadth first,
        /// so the first of each end is at the end of one of its shortest paths.
        private var endOf: [String?] = []
        /// States at a step with input the explorer cannot make, or out of the start's scope:
        /// where they lead is unknown.
        private var unknown: [Bool] = []
        private var expanded: [Bool] = []
        /// The step each state waits at, for a violation found after the search.
        private var waitsAt: [String?] = []
        /// The journey a state waits in, where it is not the root journey (``root``): few are.
        private var waitsIn: [Int: String] = [:]
        /// The journey explored, whose steps ``waitsAt`` names unless ``waitsIn`` says otherwise.
        let root: String

        init(root: String) { self.root = root }

        var count: Int { parents.count }

        /// The states expanded so far.
        var expandedCount: Int { expanded.count { $0 } }

        /// The number of the state `node` stands for, whose key is `keys[range]` (with this
        /// hash), and whether it is new; a new state was reached by `parent`'s move.
        ///
        /// The table is given the key's buffer, not a closure over it: the bookkeeping runs
        /// outside any closure, where the variables it changes need no checks at run time.
        mutating func add(
            _ node: Node, keys: [UInt8], range: Range<Int>, hash: UInt64, parent: (Int, Move)?
        ) -> (index: Int, new: Bool) {
            let (index, new) = table.insert(keys, range, hash: hash)
            guard new else { return (index, false) }
            parents.append(parent.map { (parent: $0.0, move: $0.1) })
            if case .runStep(let invocation) = node.action {
                waitsAt.append(invocation.step)
                if invocation.journey != root { waitsIn[parents.count - 1] = invocation.journey }
            } else {
                waitsAt.append(nil)
            }
            // A failed run is an end of its own kind here: never-fails reports it. A broken
            // invariant stops the path, as it stops a run.
            switch node.action {
            case .finished(let run):
                ends.append(true)
                endOf.append(node.broken == nil ? run.end : nil)
            case .failed:
                ends.append(true)
                endOf.append(nil)
            default:
                ends.append(node.broken != nil)
                endOf.append(nil)
            }
            unknown.append(false)
            expanded.append(false)
            answers.append(false)
            return (index, true)
        }

        /// ``add(_:keys:range:hash:parent:)`` with a key of its own.
        mutating func add(_ node: Node, key: StateKey, parent: (Int, Move)?) -> (index: Int, new: Bool) {
            add(node, keys: key.bytes, range: key.bytes.indices, hash: key.hash, parent: parent)
        }

        /// A transition played from state `from` to state `to` by `move`. Killing the app is no
        /// way on (a screen only that leaves is a trap), and an input move shows that the user
        /// could do something at `from`.
        mutating func played(_ move: Move, from: Int, to: Int) {
            if case .restart = move {} else { arcs.append((Int32(from), Int32(to))) }
            if case .input = move { answers[from] = true }
        }

        mutating func markExpanded(_ index: Int) { expanded[index] = true }

        /// Where the state leads is unknown: it is not judged.
        mutating func markUnknown(_ index: Int) { unknown[index] = true }

        /// The moves of the shortest path from the start to state `index`.
        func path(to index: Int) -> [Move] {
            var moves: [Move] = []
            var current = index
            while let step = parents[current] {
                moves.append(step.move)
                current = step.parent
            }
            return moves.reversed()
        }

        /// Reports `invariant` (or the journey's own, `declared`) broken at state `index`, or by
        /// `move` from it: the path is the shortest to the state, and the step it names the one
        /// `node` waits at (where it is nil, the one state `index` waits at).
        func report(
            _ invariant: ExplorationInvariant?, _ message: String, at index: Int, then move: Move? = nil, node: Node?,
            expected: Violation.Expected? = nil, declared: (id: String, summary: String?)? = nil,
            into result: inout Result
        ) {
            var step = node == nil ? waitsAt[index] : nil
            var journey = node == nil ? waitsIn[index] : nil
            var end: String?
            switch node?.action {
            case .runStep(let invocation)?:
                step = invocation.step
                journey = invocation.journey == root ? nil : invocation.journey
            case .finished(let reached)?: end = reached.end
            default: break
            }
            result.report(
                invariant, declared: declared, message, path: { path(to: index) + (move.map { [$0] } ?? []) },
                step: step, waitingIn: journey, end: end, expected: expected)
        }

        /// Reports the invariants the node broke, if any, and answers whether it broke one: the
        /// path goes no further.
        func reportBroken(_ node: Node, at index: Int, into result: inout Result) -> Bool {
            guard let broken = node.broken else { return false }
            for broken in [broken] + broken.others {
                report(
                    broken.builtin, broken.detail, at: index, node: node,
                    declared: broken.builtin == nil ? (broken.id, broken.summary) : nil, into: &result)
            }
            return true
        }

        /// The first state from which no end can be reached, once the search is over; and
        /// whether nothing can be done there at all (no input taken, no action enabled). States
        /// never expanded (the frontier the bounds left), and those where it leads is unknown,
        /// are not judged.
        func firstTrapped() -> (index: Int, stuck: Bool)? {
            var good = ends
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
            return good.firstIndex(of: false).map { ($0, !answers[$0]) }
        }

        /// The steps the states reachable from `state` wait at, as a trap's message names them:
        /// quoted, in order, the first six and how many more.
        func roundSteps(from state: Int) -> String {
            var next: [Int32: [Int32]] = [:]
            for arc in arcs { next[arc.from, default: []].append(arc.to) }
            var seen: Set<Int32> = [Int32(state)]
            var queue = [Int32(state)]
            while let current = queue.popLast() {
                for target in next[current] ?? [] where seen.insert(target).inserted { queue.append(target) }
            }
            let steps = Set(seen.compactMap { Int($0) < waitsAt.count ? waitsAt[Int($0)] : nil }).sorted()
            let shown = steps.prefix(6).map { "'\($0)'" }.joined(separator: ", ")
            let more = steps.count > 6 ? " and \(steps.count - 6) more steps" : ""
            return steps.count == 1 ? "step \(shown)" : "steps \(shown)\(more)"
        }

        /// The shortest path to each end reached, by the end's id.
        func endPaths() -> [String: [Move]] {
            var paths: [String: [Move]] = [:]
            for (index, end) in endOf.enumerated() {
                guard let end, paths[end] == nil else { continue }
                paths[end] = path(to: index)
            }
            return paths
        }
    }
}
