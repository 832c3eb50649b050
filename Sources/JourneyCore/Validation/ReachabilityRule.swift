/// Every step must be reachable from `start` (else a warning: it is dead), and from every
/// reachable step some end must be reachable (else an error: the journey can never finish).
enum ReachabilityRule {
    static let unreachable = "step.unreachable"
    static let noEnd = "step.no-end"
    static let unusedEnd = "end.unused"

    static func check(_ journey: Journey, into d: inout DiagnosticList) {
        let stepIds = Set(journey.steps.map(\.id.value))
        let endIds = Set(journey.ends.map(\.id.value))
        var edges: [String: [String]] = [:]
        for step in journey.steps {
            let next = journey.branches(from: step).map(\.target.value)
            edges[step.id.value] = next.filter { stepIds.contains($0) || endIds.contains($0) }
        }
        guard stepIds.contains(journey.start.value) else { return }

        var reachable: Set<String> = [journey.start.value]
        var queue = [journey.start.value]
        while let current = queue.popLast() {
            for next in edges[current] ?? [] where reachable.insert(next).inserted { queue.append(next) }
        }
        for step in journey.steps where !reachable.contains(step.id.value) {
            d.warning(
                unreachable, "step '\(step.id.value)' cannot be reached from '\(journey.start.value)'",
                at: step.id.location)
        }
        for end in journey.ends where !reachable.contains(end.id.value) {
            d.warning(unusedEnd, "end '\(end.id.value)' is never reached", at: end.id.location)
        }

        // Walk backwards from the ends.
        var reverse: [String: [String]] = [:]
        for (from, targets) in edges { for to in targets { reverse[to, default: []].append(from) } }
        var finishing = endIds
        queue = Array(endIds)
        while let current = queue.popLast() {
            for previous in reverse[current] ?? [] where finishing.insert(previous).inserted { queue.append(previous) }
        }
        for step in journey.steps where reachable.contains(step.id.value) && !finishing.contains(step.id.value) {
            d.error(
                noEnd, "no end can be reached from step '\(step.id.value)'; every path must be able to finish",
                at: step.id.location)
        }
    }
}
