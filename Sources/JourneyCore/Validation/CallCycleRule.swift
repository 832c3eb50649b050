/// A journey may not call itself, directly or through other journeys: the call stack would
/// never end. And sub-journeys may nest at most ``JourneyMachine/Configuration/defaultMaxCallDepth``
/// levels deep, which is checked here rather than found only when a run gets there.
///
/// Both checks walk the call graph once (a depth-first search with an explicit stack), so a
/// chain of thousands of journeys is checked in linear time.
enum CallCycleRule {
    static let cycleID = "call.cycle"
    static let depthID = "call.depth"

    /// Reports cycles and too-deep nesting; returns the journeys it reported, which cannot run.
    static func check(
        _ journeys: [String: Journey], maxDepth: Int = JourneyMachine.Configuration.defaultMaxCallDepth,
        into d: inout DiagnosticList
    ) -> Set<String> {
        var calls: [String: [(callee: String, at: SourceLocation)]] = [:]
        for (id, journey) in journeys {
            for step in journey.steps {
                if case .call(let callee) = step.kind, journeys[callee.value] != nil {
                    calls[id, default: []].append((callee.value, callee.location))
                }
            }
        }
        enum Mark { case active, done }
        var mark: [String: Mark] = [:]
        /// Sub-journey levels below each journey (0 for one that calls nothing).
        var height: [String: Int] = [:]
        var flagged: Set<String> = []
        var cycles = false
        for root in journeys.keys.sorted() where mark[root] == nil {
            // The path from `root` to the journey on top, with the index of its next call.
            var stack: [(id: String, next: Int)] = [(root, 0)]
            mark[root] = .active
            while let top = stack.last {
                let edges = calls[top.id] ?? []
                if top.next < edges.count {
                    stack[stack.count - 1].next += 1
                    let (callee, location) = edges[top.next]
                    switch mark[callee] {
                    case nil:
                        mark[callee] = .active
                        stack.append((callee, 0))
                    case .active?:
                        // A call back into the path: a cycle through the journeys from `callee` to here.
                        cycles = true
                        let start = stack.firstIndex { $0.id == callee }!
                        let cycle = stack[start...].map(\.id) + [callee]
                        flagged.formUnion(cycle)
                        d.error(
                            cycleID,
                            "sub-journey cycle: \(cycle.joined(separator: " → ")); a journey cannot call itself",
                            at: location)
                    case .done?:
                        break
                    }
                } else {
                    stack.removeLast()
                    mark[top.id] = .done
                    height[top.id] = edges.reduce(0) { max($0, (height[$1.callee] ?? 0) + 1) }
                }
            }
        }
        // Heights are meaningless around a cycle, which is reported already.
        guard !cycles else { return flagged }
        for id in journeys.keys.sorted() where height[id] == maxDepth + 1 {
            guard let (callee, location) = calls[id]?.first(where: { height[$0.callee] == maxDepth }) else { continue }
            flagged.insert(id)
            d.error(
                depthID,
                "sub-journeys nest \(maxDepth + 1) deep from '\(id)' (\(chain(from: callee, calls: calls, height: height, first: id))); at most \(maxDepth) levels are allowed",
                at: location)
        }
        return flagged
    }

    /// The deepest call chain from `start`, written out (middle elided when long).
    static func chain(
        from start: String, calls: [String: [(callee: String, at: SourceLocation)]], height: [String: Int],
        first: String
    ) -> String {
        var path = [first, start]
        var current = start
        while let next = calls[current]?.first(where: { height[$0.callee] == (height[current] ?? 0) - 1 })?.callee {
            path.append(next)
            current = next
        }
        let shown = path.count > 6 ? path.prefix(3) + ["…"] + path.suffix(2) : path[...]
        return shown.joined(separator: " → ")
    }
}
