/// A journey may not call itself, directly or through other journeys: the call stack would
/// never end.
enum CallCycleRule {
    static let cycleID = "call.cycle"

    static func check(_ journeys: [String: Journey], into d: inout DiagnosticList) {
        var calls: [String: [(callee: String, step: Step)]] = [:]
        for (id, journey) in journeys {
            for step in journey.steps {
                if case .call(let callee) = step.kind, journeys[callee.value] != nil {
                    calls[id, default: []].append((callee.value, step))
                }
            }
        }
        var reported = Set<String>()
        for id in journeys.keys.sorted() {
            // Depth-first search for a path back to `id`.
            var stack: [(journey: String, path: [String])] = [(id, [id])]
            var seen: Set<String> = []
            while let (current, path) = stack.popLast() {
                for (callee, step) in calls[current] ?? [] {
                    if callee == id {
                        let cycle = path + [id]
                        let key = Set(cycle).sorted().joined(separator: ",")
                        guard reported.insert(key).inserted else { continue }
                        if case .call(let name) = step.kind {
                            d.error(
                                cycleID,
                                "sub-journey cycle: \(cycle.joined(separator: " → ")); a journey cannot call itself",
                                at: name.location)
                        }
                    } else if seen.insert(callee).inserted {
                        stack.append((callee, path + [callee]))
                    }
                }
            }
        }
    }
}
