/// A journey played one move at a time, by a person (`journey play`) or a program, through the
/// same interpreter and handlers as ``JourneyExplorer``: every position is a value, so going
/// back a move is keeping the one before.
///
/// A position is the machine waiting at a step, with what the step asks for (its screen and
/// inputs), or the run ended; and what the move that led there recorded, for the player to
/// read. Randomness is seeded per step and input as when exploring, so the same moves give the
/// same positions.
public final class PlayedJourney {
    /// Where the play stands.
    public struct Position: Sendable {
        let node: JourneyExplorer.Node
        /// What the move that led here recorded, in order.
        public let records: [TranscriptRecord]

        /// What the step the run waits at asks for; nil once the run has ended.
        public var request: InputRequest? { node.request }
        /// How the run ended, when it has.
        public var result: RunResult? {
            switch node.action {
            case .finished(let result), .failed(let result): result
            case .runStep, .proceed: nil
            }
        }
        /// The step the run waits at, when it waits.
        public var step: String? {
            if case .runStep(let invocation) = node.action { invocation.step } else { nil }
        }
        /// The device as it is now: its store, clock and profile.
        public var device: DeviceState { node.machine.device }
        /// Why the position cannot go on, when a handler stepped out of what can be played (a
        /// request no stub answers, a program not declared deterministic).
        public var blocked: String? {
            if let note = node.note { return note.description }
            return node.outOfScope ? "a request the scenario's network stubs do not answer was made" : nil
        }
        /// The restarts taken on the way.
        public var restarts: Int { node.restarts }
    }

    public let explorer: JourneyExplorer
    public let journey: CompiledJourney
    private let scratch: JourneyExplorer.Scratch
    /// The clock jumps the explorer plays (its bounds', or the journey's durations).
    private let jumps: [Int]

    public init(_ explorer: JourneyExplorer, journey: CompiledJourney) {
        var explorer = explorer
        // A person playing runs every step, a program's too.
        explorer.runsUndeclared = true
        self.explorer = explorer
        self.journey = journey
        jumps = explorer.clockJumps(journey)
        scratch = JourneyExplorer.Scratch(explorer.abstraction(journey, jumps: jumps), keepingEveryRecord: true)
    }

    /// The journey started on the explorer's device, run until its first step waits or it ends.
    public func start() async -> Position {
        let (_, first, _, _) = await explorer.begin(journey, jumps: jumps, scratch: scratch, recording: true)
        return Position(node: first, records: scratch.recorder.records)
    }

    /// The position after `move` from `position`. Input is given as the step's handler takes it
    /// (``JourneyExplorer/Move/input(step:label:values:)``, whose label names the move).
    public func play(_ move: JourneyExplorer.Move, from position: Position) async -> Position {
        scratch.recorder.begin(keeping: true)
        let (next, _) = await explorer.play(move, from: position.node, journey: journey.id, scratch: scratch)
        let records = scratch.recorder.records
        scratch.recorder.begin(keeping: false)
        return Position(node: next, records: records)
    }

    /// The attempt limit the step waiting at `position` charges, with the attempts it has left
    /// as the machine counts them (a lockout that has ended gives them back).
    public func attemptsLeft(at position: Position) -> [(limit: String, left: Int)] {
        let machine = position.node.machine
        guard let request = position.request, request.journey == journey.id,
            let index = journey.stepIndex[request.step], let limit = journey.steps[index].attempts?.limit,
            let limits = JourneyMachine.FrameOnDevice(machine, running: journey.id)
        else { return [] }
        return [(limit.name, max(0, limits.maximum(of: limit) - limits.count(of: limit)))]
    }

    /// The moves the explorer would play from `position`, one per input class: suggestions for
    /// a person who does not know what a step takes.
    public func suggestions(at position: Position) -> [JourneyExplorer.Move] {
        var leftOut = Set<JourneyExplorer.LeftOut>()
        return explorer.moves(position.node, journey: journey, leftOut: &leftOut, jumps: jumps).moves
    }
}
