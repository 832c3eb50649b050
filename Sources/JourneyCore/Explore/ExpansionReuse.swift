extension JourneyExplorer {
    /// The expansions played so far, by their state's key without its restarts: a state equal
    /// to one expanded before but for the restarts its path took has the same moves, leading to
    /// the same situations (handlers are deterministic given the machine, and a restart count
    /// is the explorer's bound, which nothing in the journey reads). Its expansion is the one
    /// kept, each successor on a path with this state's restarts, and the restart move only
    /// while the bound allows one more.
    ///
    /// Kept and looked up on the exploring thread, in the order the states were found, between
    /// the chunks the threads play. What is taken over is what the state would have played, so
    /// the search finds the same on any number of threads; how many moves are taken over
    /// depends on the chunks, which are larger with more threads. Holding an expansion keeps
    /// its successors alive: at most `capacity` are kept, and all are let go when a chunk of
    /// the search starts with that many (``startChunk()``), never while one is merged.
    struct Reuse {
        /// Whether expansions are kept: only when a path may restart, since only then can two
        /// states differ in their restarts alone.
        let enabled: Bool
        let capacity: Int
        private var keys = StateTable()
        private var kept: [Expansion] = []

        /// Expansions kept at most, unless told otherwise.
        static let capacity = 4096

        init(enabled: Bool, capacity: Int = Self.capacity) {
            self.enabled = enabled
            self.capacity = max(1, capacity)
        }

        /// Lets every kept expansion go when `capacity` are kept: called before a chunk's
        /// states are looked up, so that what they found stays kept until they are merged.
        mutating func startChunk() {
            guard kept.count >= capacity else { return }
            keys = StateTable()
            kept.removeAll()
        }

        /// The expansion kept for state `index` of `table`, whose path took `restarts` of the
        /// `bound`, when one serves (it has the restart move, or this state may not restart).
        func find(_ index: Int, restarts: Int, bound: Int, in table: StateTable) -> Int? {
            guard !kept.isEmpty,
                let found = Self.situation(of: index, restarts: restarts, in: table, { keys.index(of: $0, hash: $1) })
            else { return nil }
            return restarts >= bound || Self.restarts(kept[found]) ? found : nil
        }

        /// Keeps the expansion of state `index` of `table`, whose path took `restarts`: in
        /// place of one kept without a restart move, or when none is kept.
        mutating func keep(_ expansion: Expansion, of index: Int, restarts: Int, in table: StateTable) {
            guard enabled else { return }
            let (found, new) = Self.situation(of: index, restarts: restarts, in: table) { keys.insert($0, hash: $1) }
            if new {
                kept.append(expansion)
            } else if !Self.restarts(kept[found]) && Self.restarts(expansion) {
                kept[found] = expansion
            }
        }

        /// Calls `body` with the key of state `index` of `table` without its restarts (the
        /// bytes every state equal to it but for its restarts has), and that prefix's hash.
        private static func situation<R>(
            of index: Int, restarts: Int, in table: StateTable, _ body: (UnsafeRawBufferPointer, UInt64) -> R
        ) -> R {
            table.withKey(index) { key in
                let prefix = UnsafeRawBufferPointer(rebasing: key[..<(key.count - StateKey.restartsLength(restarts))])
                return body(prefix, StateKey.hash(prefix))
            }
        }

        /// Puts `node`, the state successor `place` of kept expansion `found` stands for, in place
        /// of that successor when its move stopped where a state then known waited
        /// (``Node/known``): played again once for a state that took it over, the move need not
        /// be played again for the next (the state is the same but for its restarts).
        mutating func settle(_ found: Int, place: Int, move: Move, with node: Node) {
            // The expansion kept may have been replaced by one with the restart move since: its
            // successors are then in other places.
            guard kept[found].successors.indices.contains(place), kept[found].successors[place].move == move,
                kept[found].successors[place].node.known
            else { return }
            let restarts = kept[found].successors[place].node.restarts
            kept[found].successors[place].node = node.restarted(restarts)
        }

        /// Whether an expansion has the restart move.
        private static func restarts(_ expansion: Expansion) -> Bool {
            expansion.successors.contains { $0.move.launchesAgain }
        }

        /// Expansion `found`, for a state whose path took `restarts` restarts of the `bound`.
        func expansion(_ found: Int, restarts: Int, bound: Int) -> Expansion {
            let template = kept[found]
            var expansion = Expansion()
            expansion.incomplete = template.incomplete
            expansion.guesses = template.guesses
            expansion.leftOut = template.leftOut
            expansion.successors.reserveCapacity(template.successors.count)
            expansion.keys.reserveCapacity(template.keys.count + 8)
            template.keys.withUnsafeBytes { keys in
                for (place, var successor) in template.successors.enumerated() {
                    let isRestart = successor.move.launchesAgain
                    if isRestart && restarts >= bound { continue }
                    let taken = isRestart ? restarts + 1 : restarts
                    let end = successor.key.upperBound - StateKey.restartsLength(successor.node.restarts)
                    let start = expansion.keys.count
                    expansion.keys.append(
                        contentsOf: UnsafeRawBufferPointer(rebasing: keys[successor.key.lowerBound..<end]))
                    StateEncoder.appendInt(taken, to: &expansion.keys)
                    successor.key = start..<expansion.keys.count
                    successor.hash = StateKey.hash(situation: successor.situation, restarts: taken)
                    if successor.node.restarts != taken { successor.node = successor.node.restarted(taken) }
                    successor.place = place
                    expansion.successors.append(successor)
                }
            }
            return expansion
        }
    }
}
