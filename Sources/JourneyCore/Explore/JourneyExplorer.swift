import Foundation

/// Explores every path through a journey, breadth first, with the real interpreter and the
/// real handlers: at every step each class of input the step takes (each enabled action, a
/// right and a wrong PIN, each biometric result), anywhere an app restart and jumps of the
/// virtual clock by the durations the journey writes, and after a failure or a cancel end the app
/// opened again (``Move/relaunch(after:)``). Equal situations are one state, as
/// ``StateEncoder`` writes it: the machine's snapshot without what only grows (steps taken,
/// the absolute clock), each time the journey keeps as its distance from the clock, stored
/// values at their declared defaults and state no expression reads left out; the restarts used
/// so far, and what the journey's invariants remember of the path (``InvariantMonitor``).
///
/// On every state and move it checks the built-in invariants (``ExplorationInvariant``) and
/// the journey's own (``JourneyInvariant``), and the first path that breaks one, in
/// breadth-first order, is the shortest counterexample.
/// Handlers draw their random bytes from a stream seeded by the step and the input, so the
/// same input at the same step makes the same salt and the same seal, and a run of the
/// explorer always finds the same states in the same order.
public struct JourneyExplorer: Sendable {
    /// How far to look.
    public struct Bounds: Sendable, Hashable {
        /// Moves from the start.
        public var depth: Int
        /// App restarts on one path, each a restart where a step waits or a launch after a failure
        /// or a cancel ends the journey.
        public var restarts: Int
        /// States to keep: past this many the exploration stops, and says so.
        public var states: Int
        /// The sizes of clock jumps, in milliseconds; nil takes the journey's own durations.
        public var clockJumps: [Int]?
        /// Whether the network goes away and comes back, where there is one (a scenario's stubs).
        public var offline: Bool

        /// The depth bound unless told otherwise: deep enough that every shipped journey, the
        /// deepest of which needs 35 moves, is explored to the end from every start.
        public static let defaultDepth = 50

        public init(
            depth: Int = defaultDepth, restarts: Int = 2, states: Int = 200_000, clockJumps: [Int]? = nil,
            offline: Bool = true
        ) {
            self.depth = depth
            self.restarts = restarts
            self.states = states
            self.clockJumps = clockJumps
            self.offline = offline
        }
    }

    /// One move of a path: an input at a step, an app restart, a clock jump, or the network
    /// going away or coming back.
    public enum Move: Sendable, Hashable, CustomStringConvertible {
        /// The input standing for class `label` at `step`.
        case input(step: String, label: String, values: [String: Value])
        case restart
        /// The app opened again after the journey ended at `end`, a failure or a cancel (the
        /// user sent back to sign in tries again): the store kept, as an app restart keeps it.
        case relaunch(after: String)
        case clock(milliseconds: Int)
        /// The device's network goes away (`online: false`) or comes back.
        case network(online: Bool)

        /// Whether the move launches the app again, spending one of the restarts the bounds allow.
        public var launchesAgain: Bool {
            switch self {
            case .restart, .relaunch: true
            case .input, .clock, .network: false
            }
        }

        public var description: String {
            switch self {
            case .input(let step, let label, _): "\(step): \(label)"
            case .restart: "restart"
            case .relaunch(let end): "relaunch after \(end)"
            case .clock(let milliseconds): "clock +\(Duration.format(milliseconds: milliseconds))"
            case .network(let online): online ? "online" : "offline"
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
            /// For a counter in the state of a journey the root calls, that journey: the path
            /// ends with the run waiting in it, and a scenario reads its state there (`in:`).
            public var journey: String? = nil
            /// The limit whose count ``variable`` is, when a scenario can name it so (`limits:`):
            /// one of the root journey's, or of the called journey the run waits in. Named by
            /// its limit, the expectation holds wherever the journey keeps the count, in `state`
            /// or in `stored`: a counterexample still plays once the count is moved to be fixed.
            public var limit: String? = nil
        }

        /// The built-in invariant broken; nil for one of the journey's own (``declared``).
        public var invariant: ExplorationInvariant?
        /// The journey's own invariant broken (`invariants:`): its id and summary.
        public var declared: (id: String, summary: String?)?
        public var message: String
        public var path: [Move]
        /// The step the journey waits at where the path ends; nil when it ended or failed.
        public var step: String?
        /// The journey ``step`` is a step of, where it is one the explored journey calls; nil
        /// for the explored journey's own.
        public var waitingIn: String?
        /// The end the path reaches, where the move that breaks the rule ends the journey: a
        /// counterexample expects it there (with what the rule demands), not a step.
        public var end: String?
        /// What the rule demands there, when it is a value.
        public var expected: Expected?

        public init(
            invariant: ExplorationInvariant?, declared: (id: String, summary: String?)? = nil, message: String,
            path: [Move], step: String?, waitingIn: String? = nil, end: String? = nil, expected: Expected? = nil
        ) {
            self.invariant = invariant
            self.declared = declared
            self.message = message
            self.path = path
            self.step = step
            self.waitingIn = waitingIn
            self.end = end
            self.expected = expected
        }

        /// The id the violation is reported under: the built-in's, or `invariant.ID`.
        public var id: String { invariant?.rawValue ?? declared?.id ?? "" }
        /// The id without its `explore.` or `invariant.` prefix, for file names.
        public var name: String {
            invariant?.name ?? String(id.dropFirst(JourneyInvariant.prefix.count))
        }
        /// What the rule asks, in one sentence.
        public var rule: String {
            invariant?.rule ?? declared?.summary ?? "The journey's invariant '\(name)' holds."
        }
    }

    /// A rule a called journey declares broken on purpose (``Result/excusedInCalls``).
    public struct CalledException: Sendable, Hashable, Comparable {
        public var journey: String
        public var invariant: ExplorationInvariant
        /// The reason the called journey gives.
        public var reason: String

        public static func < (a: Self, b: Self) -> Bool {
            (a.journey, a.invariant.rawValue) < (b.journey, b.invariant.rawValue)
        }
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
        /// States found but not expanded, at the depth bound or past the state bound
        /// (``truncated``): where they lead is unknown.
        public var frontier: Int
        /// Whether the state bound stopped the exploration before the space was exhausted.
        public var truncated: Bool
        /// Whether the exploration was stopped when asked (``JourneyExplorer/stop``), before
        /// its bounds or its end: what it found until then.
        public var interrupted = false
        /// The memory bound (bytes) that stopped it, when the process came to hold that much
        /// (``JourneyExplorer/memory``): as at the state bound, ``truncated`` is true too.
        public var memoryFull: UInt64? = nil
        public var violations: [Violation]
        /// What the exploration could not play, with why, in order.
        public var leftOut: [LeftOut]
        /// The built-in invariants the journey declares broken on purpose that the exploration
        /// did not look for, which saves work: ``ExplorationInvariant/noSecretLeak`` (what
        /// moves record is not searched) and ``ExplorationInvariant/credentialBeforeSuccess``
        /// (the paths do not remember passing a credential). That none of them was found says
        /// nothing of whether the journey breaks it.
        public var unchecked: [ExplorationInvariant] = []
        /// The rules a path broke on the limits of a journey the root calls that the called
        /// journey declares broken on purpose (its `exceptions:`, which hold wherever it is
        /// called): not violations of the root's, but said, so that a clean verdict shows what
        /// it leans on.
        public var excusedInCalls: Set<CalledException> = []
        /// For random walks (``walk(_:seed:walks:)``): the seed and the number of walks played
        /// (fewer than asked when the state bound stopped them); nil for an exhaustive exploration.
        public var random: (seed: UInt64, walks: Int)? = nil
        /// Whether the network went away and came back on the paths (there was one to lose).
        public var offline = false
        /// The transitions taken over from a state equal but for its restarts rather than played
        /// (``JourneyExplorer/reusesExpansions``): but for ``playedAgain``, moves that ran no
        /// handler.
        public var reused = 0
        /// Of those, the moves played again all the same: a move taken over that had stopped
        /// where a state then known waited leads to a state new on this path, whose step is
        /// asked by playing the move. Each is played once, and the state it reached kept with
        /// the expansion for every later state that takes it over.
        public var playedAgain = 0
        /// Every transition the journey writes (step and outcome), and those the exploration took.
        public var declared: [Edge]
        public var taken: Set<Edge>
        /// The shortest path found to each end of the journey, by end id: the moves that play
        /// the journey from its start to that end (`journey new scenario` writes one as a script).
        public var endPaths: [String: [Move]] = [:]

        /// The transitions no explored path takes.
        public var unreached: [Edge] { declared.filter { !taken.contains($0) } }

        /// Whether the bounds stopped the exploration short of every state it could reach: states
        /// left unexpanded at the depth bound, or the state bound reached (or it was stopped
        /// when asked, ``interrupted``). Its verdict holds within the bounds only. (Random walks see some of the states by nature: of them only
        /// the state bound is said.)
        public var cutShort: Bool { truncated || interrupted || (random == nil && frontier > 0) }

        /// What ``leftOut`` says of programs declared deterministic whose step, run twice from
        /// the same state, ended otherwise: the project file says what the program does not do.
        public var unsteady: [LeftOut] {
            leftOut.filter { if case .unsteady = $0 { true } else { false } }
        }
        /// The steps (`journey.step`) whose request went as if the device were offline, with no
        /// network to send it to (said in ``leftOut``).
        public var sentWithoutNetwork: [String] {
            leftOut.compactMap {
                if case .sentWithoutNetwork(let journey, let step, _) = $0 { "\(journey).\(step)" } else { nil }
            }
        }

        /// Whether a violation of `id` is reported.
        func reports(_ id: String) -> Bool { violations.contains { $0.id == id } }

        /// Reports a violation of `invariant` (or of the journey's own `declared` one) at `step`
        /// with its path, unless one of it is reported already: the first found stands, and a
        /// breadth-first search finds the shortest first.
        mutating func report(
            _ invariant: ExplorationInvariant?, declared: (id: String, summary: String?)?, _ message: String,
            path: () -> [Move], step: String?, waitingIn: String? = nil, end: String? = nil,
            expected: Violation.Expected?
        ) {
            guard let id = invariant?.rawValue ?? declared?.id, !reports(id) else { return }
            violations.append(
                Violation(
                    invariant: invariant, declared: declared, message: message, path: path(), step: step,
                    waitingIn: waitingIn, end: end, expected: expected))
        }
    }

    /// A step's outcome as journeys write it under `on:`.
    public struct Edge: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var step: String
        /// The outcome, or for where a limit leads once spent, `limit NAME reached`.
        public var outcome: String
        /// For a transition with more than one branch (`if:`, `else:`), the one taken, as
        /// transcripts name it (`if 1`, `else`); nil for the transition as a whole.
        public var branch: String?

        public init(step: String, outcome: String, branch: String? = nil) {
            self.step = step
            self.outcome = outcome
            self.branch = branch
        }

        public var description: String {
            branch.map { "\(step) --\(outcome) [\($0)]-->" } ?? "\(step) --\(outcome)-->"
        }
        public static func < (a: Self, b: Self) -> Bool {
            (a.step, a.outcome, a.branch ?? "") < (b.step, b.outcome, b.branch ?? "")
        }

        /// Hashed by the lengths and last bytes of its names, not all their bytes: a journey has
        /// few edges, and an exploration adds the edges of every move it plays to a set.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(step.utf8.count &<< 32 | outcome.utf8.count)
            hasher.combine(UInt16(step.utf8.last ?? 0) &<< 8 | UInt16(outcome.utf8.last ?? 0))
            if let branch { hasher.combine(branch.utf8.count &<< 8 | Int(branch.utf8.last ?? 0)) }
        }

        /// Where limit `limit` leads once spent at `step`, by `branch` of its `exceeded`.
        static func limit(_ limit: String, at step: String, branch: String? = nil) -> Edge {
            Edge(step: step, outcome: "limit \(limit) reached", branch: branch)
        }
    }

    public let library: CompiledLibrary
    /// The device every path starts on.
    public let device: DeviceState
    public let bounds: Bounds
    /// The root journey's params.
    public let params: [String: Value]
    /// Makes the network a step's handler talks to (a scenario's stubs) for every move, given
    /// what it had answered on the path so far (a ``CountingNetwork``'s `answered`, empty at
    /// the start); nil: no network, every request fails.
    public let network: (@Sendable (_ answered: [Int]) -> any NetworkTransport)?
    /// What the starting point knows that handlers may need to make an input (a scenario's PINs).
    public let hints: ExplorationHints
    /// Threads that play a level's moves side by side; any number finds the same result.
    public let jobs: Int
    /// The locale screens are rendered in; nil: the journey's default.
    public var locale: String? = nil
    /// The real time handlers check what live servers issue against: pinned to the device's
    /// clock unless set (a person playing against a live provider sets the system's).
    public var wallClock: WallClock? = nil
    /// Where handlers draw random bytes: a stream seeded by each move, so that every run of a
    /// move draws the same, unless set. A person playing against a live provider sets the
    /// system's: a state, nonce or PKCE verifier sent to a real server must not be predictable.
    public var random: RandomSource? = nil
    /// Whether a state equal to one expanded before but for its restarts takes that state's
    /// expansion instead of playing its moves again (``Reuse``): the same result, found with
    /// fewer handler runs. Off, every move runs through the interpreter and its handler.
    public var reusesExpansions = true
    /// Whether a step of a handler not declared deterministic (a program's) is run at all. An
    /// exploration does not run one: what it does is not the exploration's to judge, nor to
    /// cause (it may reach a live service), and the path is left out there. A person playing
    /// the journey (``PlayedJourney``) runs it.
    var runsUndeclared = false
    /// How far an exploration has got, told after each chunk of a level it plays (``chunk``
    /// states a thread) and after each random walk: for a progress line on a long run. Called
    /// on the exploring task, in order.
    public var progress: (@Sendable (Progress) -> Void)? = nil
    /// Asked after each chunk of a level and each random walk, on the exploring task: when it
    /// answers true the exploration stops there, with what it found until then, and says so
    /// (``Result/interrupted``). A person's Ctrl-C stops a long exploration this way.
    public var stop: (@Sendable () -> Bool)? = nil
    /// How much memory the process may hold while exploring, read on the exploring task after
    /// the chunk of a level, or the random walk, that passes each ``memoryCheckInterval``
    /// transitions: once it holds that much, the exploration stops there as the state bound
    /// stops it, with what it found until then, and says so (``Result/memoryFull``). A space
    /// with no end explored with a large state bound would otherwise grow until the system
    /// killed the process, and nothing it found would be said.
    public var memory: MemoryCheck? = nil

    /// A bound on the memory the process holds, and how to read what it holds now (the caller
    /// reads it: the explorer does no I/O).
    public struct MemoryCheck: Sendable {
        /// The bound, in bytes.
        public var bytes: UInt64
        /// The memory the process holds now, in bytes; nil when it cannot be read.
        public var held: @Sendable () -> UInt64?

        public init(bytes: UInt64, held: @escaping @Sendable () -> UInt64?) {
            self.bytes = bytes
            self.held = held
        }

        /// Whether the process holds the bound or more now; never, when that cannot be read.
        func isReached() -> Bool { held().map { $0 >= bytes } ?? false }
    }

    /// Stops `result` as at the state bound when the process holds the memory bound (``memory``),
    /// read once `result` has played ``memoryCheckInterval`` transitions since the last read
    /// (`checked`, the count then), or once the keys of the states played since then take
    /// ``memoryCheckBytes`` (`written`, set back to 0 when it is read): a journey whose states
    /// hold large values fills memory in few transitions.
    func checkMemory(_ result: inout Result, checked: inout Int, written: inout Int) {
        guard !result.truncated, let memory,
            result.transitions - checked >= memoryCheckInterval || written >= min(memoryCheckBytes, chunkBytes)
        else { return }
        checked = result.transitions
        written = 0
        if memory.isReached() { (result.truncated, result.memoryFull) = (true, memory.bytes) }
    }

    /// How many bytes the keys of the expansions of a chunk may take before the next chunk is
    /// made smaller (``chunkNodes(after:bytes:)``), and that the states played may take before
    /// the memory is read again: a thirty-second of the memory bound, at least 4 MiB; 256 MiB
    /// without one.
    var chunkBytes: Int {
        guard let memory else { return 256 << 20 }
        return max(4 << 20, Int(clamping: memory.bytes / 32))
    }

    /// How many nodes the next chunk of a level takes, after a chunk of `nodes` whose
    /// expansions' keys took `bytes`: twice as many while they take little room (up to
    /// ``chunkSize`` a thread), half as many (down to one a thread) once they take more than
    /// ``chunkBytes``. The memory the states of a chunk hold comes into being before the
    /// memory bound can be read again: a chunk is kept to what the bound can spare.
    func chunkNodes(after nodes: Int, bytes: Int) -> Int {
        let threads = max(1, jobs)
        if bytes > chunkBytes { return max(threads, nodes / 2) }
        if bytes < chunkBytes / 4 { return min(chunkSize * threads, nodes * 2) }
        return nodes
    }
    /// Nodes a thread expands at a time (``chunk``); smaller in tests, to play a small
    /// journey's levels in many chunks.
    var chunkSize = Self.chunk
    /// Transitions played between two reads of the memory the process holds (``memory``):
    /// a read costs a system call, and a level of a narrow space is a chunk of a few states.
    var memoryCheckInterval = 16_384
    /// Bytes of the keys of states played between two reads of the memory the process holds,
    /// at most (``checkMemory(_:checked:written:)``).
    var memoryCheckBytes = 32 << 20
    /// Expansions ``Reuse`` keeps at most; smaller in tests, to let them go often.
    var reuseCapacity = Reuse.capacity

    public init(
        library: CompiledLibrary, device: DeviceState, bounds: Bounds = Bounds(), params: [String: Value] = [:],
        network: (@Sendable (_ answered: [Int]) -> any NetworkTransport)? = nil,
        hints: ExplorationHints = ExplorationHints(), jobs: Int = 1
    ) {
        self.library = library
        self.device = device
        self.bounds = bounds
        self.params = params
        self.network = network
        self.hints = hints
        self.jobs = max(1, jobs)
    }

    /// How far an exploration has got (``progress``).
    public struct Progress: Sendable, Equatable {
        /// The level being played (moves from the start), or the longest walk so far.
        public var depth: Int
        public var states: Int
        public var transitions: Int
        /// The random walks played so far; nil when exploring every path.
        public var walks: Int?

        public init(depth: Int, states: Int, transitions: Int, walks: Int? = nil) {
            self.depth = depth
            self.states = states
            self.transitions = transitions
            self.walks = walks
        }
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
    /// Its situation is a reference, never changed once made: a level of the search, a move's
    /// successors and a path share it instead of copying the machine, and a node costs one
    /// allocation.
    struct Node: Sendable {
        /// Everything but the restarts: the same for a state equal but for its restarts, which
        /// shares it (``restarted(_:)``).
        final class Situation: Sendable {
            let machine: JourneyMachine
            let action: JourneyMachine.Action
            let request: InputRequest?
            let outOfScope: Bool
            let answered: [Int]
            let monitor: InvariantMonitor?
            let broken: InvariantMonitor.Broken?
            let note: LeftOut?
            let known: Bool
            let rounds: UInt64

            init(
                machine: JourneyMachine, action: JourneyMachine.Action, request: InputRequest?, outOfScope: Bool,
                answered: [Int], monitor: InvariantMonitor?, broken: InvariantMonitor.Broken?, note: LeftOut?,
                known: Bool, rounds: UInt64
            ) {
                self.machine = machine
                self.action = action
                self.request = request
                self.outOfScope = outOfScope
                self.answered = answered
                self.monitor = monitor
                self.broken = broken
                self.note = note
                self.known = known
                self.rounds = rounds
            }
        }

        let situation: Situation
        let restarts: Int

        var machine: JourneyMachine { _read { yield situation.machine } }
        var action: JourneyMachine.Action { _read { yield situation.action } }
        /// What the step waits for, when it waits.
        var request: InputRequest? { _read { yield situation.request } }
        /// A step on the way asked the network for something the scenario has no stub for: what
        /// follows is out of the exploration's scope, not the journey's failure.
        var outOfScope: Bool { situation.outOfScope }
        /// What the network has answered on the way (a ``CountingNetwork``'s `answered`).
        var answered: [Int] { _read { yield situation.answered } }
        /// What the path has done that the journey's invariants remember.
        var monitor: InvariantMonitor? { _read { yield situation.monitor } }
        /// The first invariant the last move broke: the path stops there, as a run would.
        var broken: InvariantMonitor.Broken? { _read { yield situation.broken } }
        /// Why what follows is left out, when the explorer can say (a program not declared
        /// deterministic).
        var note: LeftOut? { _read { yield situation.note } }
        /// The move entered a step where a state found before waits, and stopped there: the
        /// node stands for that state, and what its step asks (``request``) was not asked.
        var known: Bool { situation.known }
        /// The limits set back when spent that the path has spent since what they guard was last
        /// replaced or a credential last checked, a bit each (``Scratch/rounds``): a try at one
        /// of them then starts another round against the same secret.
        var rounds: UInt64 { situation.rounds }

        init(
            machine: JourneyMachine, action: JourneyMachine.Action, request: InputRequest?, restarts: Int,
            outOfScope: Bool = false, answered: [Int] = [], monitor: InvariantMonitor? = nil,
            broken: InvariantMonitor.Broken? = nil, note: LeftOut? = nil, known: Bool = false, rounds: UInt64 = 0
        ) {
            situation = Situation(
                machine: machine, action: action, request: request, outOfScope: outOfScope, answered: answered,
                monitor: monitor, broken: broken, note: note, known: known, rounds: rounds)
            self.restarts = restarts
        }

        private init(_ situation: Situation, restarts: Int) {
            self.situation = situation
            self.restarts = restarts
        }

        /// The same situation on a path that took `restarts` restarts.
        func restarted(_ restarts: Int) -> Node { Node(situation, restarts: restarts) }
    }

    /// What the explorer knows of a journey that makes two situations one state: the stored
    /// defaults, the state no expression reads, and how far apart times can be told.
    struct Abstraction: Sendable {
        var defaults: [String: Value]
        var unread: [String: Set<String>]
        var horizon: Int
        /// What of the clock the journey reads as a calendar (the time of day, the day), kept
        /// in the state as it is (``ClockCalendar``).
        var calendar = ClockCalendar()
        /// The attempt limits the moves are checked against: the root journey's, then those of
        /// each journey it can call (``WatchedLimit``).
        var watched: [WatchedLimit] = []
        /// Whether a journey the root can call verifies a credential: a move through it may
        /// start a limit's count afresh (the account's password asked again in a called sheet).
        var calleesVerify = false
        /// The root journey's branches of transitions with more than one, as edges
        /// (``Scratch/covered``).
        var branches: [ObjectIdentifier: Edge] = [:]
        /// Whether the root journey has such branches or limits: what a move covers of them is
        /// read after each event.
        var covers = false
    }

    /// An attempt limit of the root journey or of a journey it can call, whose counter no
    /// restart, clock jump or way round may lower (`explore.counter-survives`,
    /// `explore.exceeded-target`): a limit in a shared sub-journey (a PIN check) guards the
    /// same secret wherever it is called from.
    ///
    /// A class: every move reads each watched limit, and a reference is one count to take
    /// where a value of seven would take seven.
    final class WatchedLimit: Sendable {
        let journey: CompiledJourney
        let limit: CompiledLimit
        /// Whether it is the root journey's own.
        let root: Bool
        /// The invariants a called journey declares broken on purpose (its `exceptions:`): they
        /// hold for its limits wherever it is called. (The root's are applied to the result.)
        let excepts: Set<String>

        /// The steps that charge the limit, with the outcomes they count and reset on.
        let charging: [(step: String, counts: [String], resets: [String])]
        /// Whether the limit is set back when spent (no `keep`, no lockout) and a step charging
        /// it checks a credential: each round of tries after it is spent is against the same
        /// secret unless what it guards is replaced or another credential checked first, so the
        /// path remembers that it was spent (``Node/rounds``).
        let setBackWhenSpent: Bool
        /// Where the journey keeps what those steps check the user's answer against
        /// (``Step/checkedAgainst``, all of theirs); nil when one of them names none.
        let guarded: Set<String>?
        /// The steps of the limit's journey reached only through an outcome that verifies a
        /// credential (the screen after the password was checked again): what is done there is
        /// done by someone who passed one.
        let behindCredential: Set<String>

        init(journey: CompiledJourney, limit: CompiledLimit, root: Bool) {
            self.journey = journey
            behindCredential = Self.behindCredential(journey)
            self.limit = limit
            self.root = root
            excepts = root ? [] : Set(journey.source.exceptions.map(\.rule.value))
            let charging: [(step: String, counts: [String], resets: [String])] = journey.steps.compactMap { step in
                guard let charge = step.attempts, charge.limit.name == limit.name else { return nil }
                return (step.id, charge.counts, charge.resets)
            }
            self.charging = charging
            guarded = Self.guarded(by: Set(charging.map(\.step)), in: journey.source)
            setBackWhenSpent =
                !limit.keep && limit.lockout == nil
                && charging.contains { journey.credentialSteps[$0.step] != nil }
        }

        /// The steps of `journey` not reached from its start (nor from a limit's `exceeded`) but
        /// through an outcome that verifies a credential (``CompiledJourney/credentialSteps``).
        static func behindCredential(_ journey: CompiledJourney) -> Set<String> {
            guard !journey.credentialSteps.isEmpty else { return [] }
            let source = journey.source
            let steps = Dictionary(source.steps.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
            var seen = Set<String>()
            var queue = [source.start.value]
            while let id = queue.popLast() {
                guard seen.insert(id).inserted, let step = steps[id] else { continue }
                let verified = journey.credentialSteps[id] ?? []
                for (outcome, transition) in step.transitions where !verified.contains(outcome.value) {
                    queue += transition.branches.map(\.target.value)
                }
                queue += source.limit(chargedBy: step)?.exceeded.branches.map(\.target.value) ?? []
            }
            return Set(source.steps.map(\.id.value)).subtracting(seen)
        }

        static func guarded(by steps: Set<String>, in journey: Journey) -> Set<String>? {
            var found = Set<String>()
            for step in journey.steps where steps.contains(step.id.value) {
                guard let checked = step.checkedAgainst else { return nil }
                found.formUnion(checked)
            }
            return found
        }

        /// How many of `edges` the limit counts, and whether one resets it.
        func counted(_ edges: some Sequence<Edge>) -> (counted: Int, resets: Bool) {
            var counted = 0
            var resets = false
            for edge in edges {
                for charge in charging where charge.step == edge.step {
                    if charge.counts.contains(edge.outcome) { counted += 1 }
                    if charge.resets.contains(edge.outcome) { resets = true }
                }
            }
            return (counted, resets)
        }

        /// The limit as messages name it: with its journey when that is not the root.
        var name: String { root ? "limit '\(limit.name)'" : "limit '\(limit.name)' of \(journey.id)" }
    }

    /// The limits of `journey` and of every journey it can call, the root's first.
    static func watchedLimits(_ journey: CompiledJourney, in library: CompiledLibrary) -> [WatchedLimit] {
        ScenarioChecker.reachableJourneys(from: journey, in: library).flatMap { reached in
            reached.limitsByName.map { WatchedLimit(journey: reached, limit: $0, root: reached.id == journey.id) }
        }
    }

    /// What no path can play for want of a PIN: each `pin.verify` of a key the device does not
    /// keep and no step of the journeys it reaches seals (`pin.save`), whose right and wrong PINs
    /// are then never asked for (it says `missing` at once).
    func unsealedPINs(_ journey: CompiledJourney) -> [LeftOut] {
        let reached = ScenarioChecker.reachableJourneys(from: journey, in: library)
        let sealed = Set(
            reached.flatMap(\.source.steps).filter { $0.handlerID == "pin.save" }.compactMap {
                $0.literalParameter("key")
            })
        return reached.flatMap { reachedJourney in
            reachedJourney.source.steps.compactMap { step -> LeftOut? in
                guard step.handlerID == "pin.verify", let key = step.literalParameter("key"), device.store[key] == nil,
                    !sealed.contains(key)
                else { return nil }
                return .unsealedPIN(journey: reachedJourney.id, step: step.id.value, key: key)
            }
        }
    }

    /// The abstraction of `journey` for this explorer's library, with these clock jumps.
    func abstraction(_ journey: CompiledJourney, jumps: [Int]) -> Abstraction {
        let branches = Self.branches(of: journey)
        return Abstraction(
            defaults: Self.storedDefaults(library), unread: Self.unreadState(library),
            horizon: Self.horizon(journey, in: library, jumps: jumps, params: params),
            calendar: Self.calendar(of: journey, in: library), watched: Self.watchedLimits(journey, in: library),
            calleesVerify: ScenarioChecker.reachableJourneys(from: journey, in: library).contains {
                $0.id != journey.id && !$0.credentialSteps.isEmpty
            }, branches: branches, covers: !branches.isEmpty || journey.steps.contains { $0.attempts != nil })
    }

    /// The clock jumps `journey`'s exploration plays: those of the bounds (each size once), else each duration
    /// it or a journey it can call writes (a lockout in a shared PIN check counts too), those
    /// that reach what it reads of the clock as a calendar (``ClockCalendar/jumps(from:)``), and
    /// the lifetimes of the tokens the start's stubs issue (``ExplorationHints/waits``), where
    /// the journey reads the clock at all.
    func clockJumps(_ journey: CompiledJourney) -> [Int] {
        if let jumps = bounds.clockJumps {
            // The same size given twice (`5m` and `300s`) is one jump, played once.
            var seen = Set<Int>()
            return jumps.filter { seen.insert($0).inserted }
        }
        let reached = ScenarioChecker.reachableJourneys(from: journey, in: library)
        let waits = hints.waits.isEmpty || clockReader(journey) == nil ? [] : hints.waits
        return Set(
            reached.flatMap { Self.durations(of: $0) }
                + Self.calendar(of: journey, in: library).jumps(from: device.clock) + waits
        ).sorted()
    }

    /// The first of `journey` and the journeys it can call that reads the clock (`device.now`,
    /// `since`, `until`), if any.
    func clockReader(_ journey: CompiledJourney) -> CompiledJourney? {
        ScenarioChecker.reachableJourneys(from: journey, in: library).first { reached in
            JourneyFacts.shared.expressions(reached).contains(where: \.readsClock)
        }
    }

    /// What `journey` and the journeys it can call read of the clock as a calendar.
    static func calendar(of journey: CompiledJourney, in library: CompiledLibrary) -> ClockCalendar {
        ScenarioChecker.reachableJourneys(from: journey, in: library).reduce(ClockCalendar()) {
            $0.merged(JourneyFacts.shared.calendar($1))
        }
    }

    /// An invariant a move breaks, with what to say, the value the counterexample's scenario
    /// expects (``edgeProblem(from:move:to:taking:_:)``), and, when the limit broken is that of
    /// a called journey which declares the invariant broken on purpose, that journey: the move
    /// is then excused, not reported (``Result/excusedInCalls``).
    typealias MoveProblem = (ExplorationInvariant, String, Violation.Expected?, excusedBy: String?)

    /// A node's moves, played: what each led to, in the order of the moves.
    struct Expansion: Sendable {
        struct Successor: Sendable {
            /// What the move did besides the state it led to: the same wherever the expansion is
            /// taken over (``Reuse``), which shares it.
            final class Played: Sendable {
                let move: Move
                /// The root journey's steps and outcomes the move took.
                let edges: [Edge]
                /// The branches of the root journey's transitions with more than one, and where its
                /// limits led once spent, that the move took (``Scratch/covered``).
                let covered: [Edge]
                /// Where a secret shows in what the move recorded, when the explorer looked.
                let leak: String?
                /// The invariant the move itself breaks (``edgeProblem(from:move:to:taking:_:)``),
                /// when it leads anywhere the journey answers for.
                let problem: MoveProblem?

                init(
                    move: Move, edges: [Edge], covered: [Edge] = [], leak: String?,
                    problem: MoveProblem?
                ) {
                    self.move = move
                    self.edges = edges
                    self.covered = covered
                    self.leak = leak
                    self.problem = problem
                }
            }

            var played: Played
            var node: Node
            /// Where the state's key lies in ``Expansion/keys``, and its hash.
            var key: Range<Int>
            var hash: UInt64
            /// The hash of its key without its restarts (``StateEncoder/situationHash``).
            var situation: UInt64
            /// Its place among the successors of the expansion it was taken over from (``Reuse``).
            var place = 0

            var move: Move { played.move }
        }

        var successors: [Successor] = []
        /// The successors' keys, one after another: one buffer for them all.
        var keys: [UInt8] = []
        /// Some input of the step cannot be made (said in `leftOut`).
        var incomplete = false
        /// Some move sent a request with no network to send it to (a start without stubs): it
        /// went as if offline, though the device is online, and what a server would answer is
        /// not played, so where else the state leads is unknown (said in `leftOut`).
        var guesses = false
        var leftOut: Set<LeftOut> = []
    }

    /// What one thread of an exploration reuses from move to move: the driver that answers
    /// handlers, the context they run in (when no network is made for the move), the recorder
    /// of what a move records (kept only when looking for secrets), and the key encoder.
    ///
    /// One thread uses a scratch at a time, and only from the explorer's own calls: its
    /// properties skip the dynamic exclusivity checks, as ``RunContext``'s do.
    final class Scratch {
        let driver = Replies([])
        let recorder: Recorder
        @exclusivity(unchecked) var secrets = SecretSearch()
        @exclusivity(unchecked) var context: RunContext<Replies, Recorder>?
        @exclusivity(unchecked) var encoder: StateEncoder
        /// The states found before this chunk of moves, when the exploration shares them: a
        /// move that enters a step where a known state waits is that state, and its handler
        /// need not run to say what it asks (the path is deterministic from there).
        @exclusivity(unchecked) var known: StateTable?
        /// The states this thread found waiting while it plays a chunk of moves
        /// (``startChunk(known:)``): a later move of the chunk that enters a step where one of
        /// them waits has reached that state, as one that enters where a ``known`` state waits
        /// has. The first move that found it comes first in the chunk's order, so the merge
        /// keeps the node it made, whose handler was asked. Only states found on a path the
        /// exploration judges (in scope, with nothing left out) are kept.
        @exclusivity(unchecked) private var found = StateTable()
        /// Whether the encoder holds the key of the node `settle` returned (it wrote it to look
        /// the state up), with this hash: the same bytes ``key(_:)`` would write.
        @exclusivity(unchecked) var settled: UInt64?
        /// The limits moves are checked against (``Abstraction/watched``).
        let watched: [WatchedLimit]
        /// Whether a journey the root calls has a limit, or (with a limit watched) verifies a
        /// credential: then the steps it completes in a move are kept (``completed``), for the
        /// check of the limits.
        let watchesCallees: Bool
        /// The steps journeys other than the root completed in the move being played, with
        /// their outcomes (only when ``watchesCallees``).
        @exclusivity(unchecked) var completed: [(journey: String, edge: Edge)] = []
        /// The limits the move being played has led to their `exceeded` so far
        /// (``JourneyMachine/limitsExceeded``), when one of the watched is set back when spent.
        @exclusivity(unchecked) var exceeded: [CompiledLimit] = []
        /// Whether a watched limit is set back when spent (``WatchedLimit/setBackWhenSpent``):
        /// then the path remembers which are spent (``Node/rounds``).
        let watchesRounds: Bool
        /// The branches of the root journey's transitions with more than one that the move being
        /// played took, and where its limits led once spent (``Edge/limit(_:at:branch:)``): the
        /// coverage the move's outcome edges do not say.
        @exclusivity(unchecked) var covered: [Edge] = []
        /// ``Abstraction/branches``.
        let branches: [ObjectIdentifier: Edge]
        /// ``Abstraction/covers``.
        let covers: Bool
        /// The keys the handlers of the move being played wrote in the device store: a PIN
        /// sealed again under the key a limit's steps check against replaces it, even where the
        /// explorer's seeded salt makes the same bytes.
        let storeWrites = StoreWrites()

        init(_ abstraction: Abstraction, keepingEveryRecord: Bool = false) {
            watched = abstraction.watched
            watchesCallees =
                abstraction.watched.contains { !$0.root } || (abstraction.calleesVerify && !abstraction.watched.isEmpty)
            watchesRounds = abstraction.watched.prefix(64).contains(where: \.setBackWhenSpent)
            branches = abstraction.branches
            covers = abstraction.covers
            recorder = Recorder(keeping: false, keepsPrepared: keepingEveryRecord)
            encoder = StateEncoder(
                defaults: abstraction.defaults, unread: abstraction.unread, horizon: abstraction.horizon,
                calendar: abstraction.calendar)
        }

        /// What the moves played since the last call could not play, for want of a network:
        /// each step whose handler sent a request with no network to send it to, said once.
        func takeSentWithoutNetwork() -> [LeftOut] {
            guard let context, !context.sentWithoutNetwork.isEmpty else { return [] }
            defer { context.sentWithoutNetwork.removeAll() }
            return context.sentWithoutNetwork.map { .sentWithoutNetwork(journey: $0.journey, step: $0.step) }
        }

        /// Starts a chunk of moves with the states found before it.
        func startChunk(known: StateTable) {
            self.known = known
            found.removeAll()
        }

        /// Ends the chunk: nothing is looked up while a move is played again or a walk goes on.
        func endChunk() {
            known = nil
            found.removeAll()
        }

        /// Whether the state whose key the encoder holds (with this hash) is known: found
        /// before this chunk, or by an earlier move of it.
        func isKnown(hash: UInt64, judged: Bool) -> Bool {
            guard let known else { return false }
            return encoder.bytes.withUnsafeBytes { key in
                known.contains(key, hash: hash) || (judged && !found.isEmpty && found.contains(key, hash: hash))
            }
        }

        /// Keeps the state whose key the encoder holds (with this hash) as found in this chunk.
        func keepFound(hash: UInt64) {
            encoder.bytes.withUnsafeBytes { _ = found.insert($0, hash: hash) }
        }

        /// Appends the node's key to `keys`, the one `settle` wrote or written now, and answers
        /// where it lies, its hash, and the hash of its bytes before its restarts.
        func appendKey(_ node: Node, to keys: inout [UInt8]) -> (range: Range<Int>, hash: UInt64, situation: UInt64) {
            let hash = settled ?? encode(node)
            settled = nil
            let start = keys.count
            keys.append(contentsOf: encoder.bytes)
            return (start..<keys.count, hash, encoder.situationHash)
        }

        /// The node's key: its machine as the abstraction sees it, and what its path remembers.
        func key(_ node: Node) -> StateKey {
            let hash = encode(node)
            return StateKey(bytes: encoder.bytes, hash: hash)
        }

        /// Writes the node's key into the encoder's buffer and answers its hash.
        private func encode(_ node: Node) -> UInt64 {
            encoder.encode(
                node.machine, restarts: node.restarts, answered: node.answered, monitor: node.monitor?.bits,
                broken: node.broken?.id, rounds: node.rounds)
        }
    }

    /// Nodes a thread expands at a time; a level larger than this is expanded in such chunks,
    /// so that the states bound stops the exploration without playing much past it.
    static let chunk = 512

    /// How far apart, in seconds, the times a journey keeps can be told (``StateEncoder``
    /// writes a time as how long ago it is or until it comes, held within this): the longest
    /// clock jump played, duration the
    /// journey or any journey it can call writes, or duration among the params given, in
    /// seconds, and one more. What else is loaded beside them changes nothing.
    static func horizon(
        _ journey: CompiledJourney, in library: CompiledLibrary, jumps: [Int], params: [String: Value] = [:]
    ) -> Int {
        var longest = jumps.max() ?? 0
        for reached in ScenarioChecker.reachableJourneys(from: journey, in: library) {
            longest = max(longest, durations(of: reached).max() ?? 0)
            // And those its expressions compute from constants and params (`params.wait * 3`),
            // the root's with the params given: a guard may tell apart ages beyond every duration
            // written alone.
            let known = ParamValues(reached, given: reached === journey ? params : [:])
            for expression in JourneyFacts.shared.expressions(reached) {
                longest = max(longest, expression.computedDurations(known).max() ?? 0)
            }
        }
        for value in params.values {
            if case .duration(let ms) = value.revealed { longest = max(longest, ms) }
        }
        return longest / 1000 + 1
    }

    /// Explores `journey` breadth-first within the bounds, from its start on the device, and
    /// checks every state and move against the invariants.
    ///
    /// - Parameter prefix: moves played first, from the start, whose end is where the
    ///   exploration starts (a scenario's script, to explore from where it leaves the run).
    public func explore(_ journey: CompiledJourney, after prefix: [Move] = []) async -> Result {
        let jumps = clockJumps(journey)
        let abstraction = abstraction(journey, jumps: jumps)
        let scratch = Scratch(abstraction)
        let (begun, first, watchesSecrets, startLeak) = await begin(
            journey, jumps: jumps, scratch: scratch, after: prefix)
        var result = begun
        var states = ExploredStates(root: journey.id)
        var leftOut = Set(scratch.takeSentWithoutNetwork()).union(unsealedPINs(journey))
        // A journey that reads the clock with no duration to jump it by: time passing is not played.
        if jumps.isEmpty, bounds.clockJumps == nil, let reader = clockReader(journey) {
            leftOut.insert(.clockUnjumped(journey: reader.id))
        }

        var level: [(index: Int, node: Node)] = []
        let root = states.add(first, key: scratch.key(first), parent: nil)
        if first.outOfScope {
            // The start asked the network for what no stub answers: nothing of it is judged.
            states.markUnknown(root.index)
            if let note = first.note { leftOut.insert(note) }
        } else {
            if let startLeak { states.report(.noSecretLeak, startLeak, at: root.index, node: first, into: &result) }
            if !states.reportBroken(first, at: root.index, into: &result) { level.append((root.index, first)) }
            if let problem = stateProblem(first, journey) {
                states.report(problem.0, problem.1, at: root.index, node: first, into: &result)
            }
        }
        // States queued to be expanded: those not expanded are the frontier.
        var queued = level.count
        // At the bound already: the start, if it waits for a move, is not expanded.
        if states.count >= bounds.states, !level.isEmpty, case .runStep = first.action { result.truncated = true }

        var memoryChecked = 0
        var memoryWritten = 0
        // A level is played in chunks that start small and grow while their states take little
        // room (``chunkNodes(after:bytes:)``).
        var chunkNodes = min(8, chunkSize) * max(1, jobs)
        var reuse = Reuse(enabled: reusesExpansions && bounds.restarts > 0, capacity: reuseCapacity)
        var depth = 0
        // Stopped when asked, the states not played yet are left unexpanded: not judged, and
        // counted in the frontier.
        while !level.isEmpty && depth < bounds.depth && !result.truncated && !result.interrupted {
            var next: [(index: Int, node: Node)] = []
            var position = 0
            while position < level.count && !result.truncated && !result.interrupted {
                let chunk = level[position..<min(level.count, position + chunkNodes)]
                position = chunk.endIndex
                let watching = watchesSecrets && !result.reports(ExplorationInvariant.noSecretLeak.rawValue)
                // States equal to one expanded before but for their restarts take its expansion;
                // the others are played.
                reuse.startChunk()
                let reusable = chunk.map {
                    reuse.find($0.index, restarts: $0.node.restarts, bound: bounds.restarts, in: states.table)
                }
                let played = await expand(
                    ArraySlice(zip(chunk, reusable).filter { $0.1 == nil }.map(\.0)), journey: journey, jumps: jumps,
                    abstraction: abstraction, watchesSecrets: watching, known: states.table, scratch: scratch)
                let bytes = played.reduce(0) { $0 + $1.keys.count }
                chunkNodes = self.chunkNodes(after: chunk.count, bytes: bytes)
                memoryWritten += bytes
                var playedNext = 0
                for (offset, found) in reusable.enumerated() {
                    let (index, node) = chunk[chunk.startIndex + offset]
                    let expansion: Expansion
                    // A taken-over expansion's steps and outcomes are taken already.
                    let reused = found != nil
                    if let found {
                        expansion = reuse.expansion(found, restarts: node.restarts, bound: bounds.restarts)
                        result.reused += expansion.successors.count
                    } else {
                        expansion = played[playedNext]
                        playedNext += 1
                        reuse.keep(expansion, of: index, restarts: node.restarts, in: states.table)
                    }
                    states.markExpanded(index)
                    leftOut.formUnion(expansion.leftOut)
                    // A step some of whose input cannot be made is not judged: where it leads is
                    // unknown; so is a state whose request went as if offline for want of a network.
                    if expansion.incomplete || expansion.guesses { states.markUnknown(index) }
                    for step in expansion.successors {
                        let (move, played) = (step.move, step.played)
                        var successor = step.node
                        result.transitions += 1
                        if !reused && !played.edges.isEmpty { result.taken.formUnion(played.edges) }
                        if !reused && !played.covered.isEmpty { result.taken.formUnion(played.covered) }
                        // A move into what the scenario's stubs do not cover is not judged.
                        if !successor.outOfScope {
                            if let leak = played.leak {
                                states.report(
                                    .noSecretLeak, leak, at: index, then: move, node: successor, into: &result)
                            }
                            if let problem = played.problem {
                                if let callee = problem.excusedBy {
                                    result.excusedInCalls.insert(calledException(problem.0, of: callee))
                                } else {
                                    states.report(
                                        problem.0, problem.1, at: index, then: move, node: successor,
                                        expected: problem.2, into: &result)
                                }
                            }
                        }
                        let (target, new) = states.add(
                            successor, keys: expansion.keys, range: step.key, hash: step.hash, parent: (index, move))
                        states.played(move, from: index, to: target)
                        guard new else { continue }
                        if successor.known {
                            // A reused move that stopped where a state then known waits leads
                            // to a state new on this path: played again, to ask what it asks,
                            // and kept in the expansion, so that the next state that takes it
                            // over need not play it again.
                            successor = await play(move, from: node, journey: journey.id, scratch: scratch).0
                            result.playedAgain += 1
                            if let found { reuse.settle(found, place: step.place, move: move, with: successor) }
                        }
                        if successor.outOfScope {
                            states.markUnknown(target)
                            if let note = successor.note { leftOut.insert(note) }
                            continue
                        }
                        if let problem = stateProblem(successor, journey) {
                            states.report(problem.0, problem.1, at: target, node: successor, into: &result)
                        }
                        if !states.reportBroken(successor, at: target, into: &result) {
                            next.append((target, successor))
                            queued += 1
                        }
                        if states.count >= bounds.states {
                            result.truncated = true
                            break
                        }
                    }
                    if result.truncated { break }
                }
                progress?(Progress(depth: depth, states: states.count, transitions: result.transitions))
                if stop?() == true { result.interrupted = true }
                checkMemory(&result, checked: &memoryChecked, written: &memoryWritten)
            }
            if !next.isEmpty { depth += 1 }
            level = next
        }

        // Every expanded state can still reach an end: stuck where it is (a screen with no
        // action enabled), or going round elsewhere (the steps it goes round, from the states
        // played from there).
        if let (trapped, stuck) = states.firstTrapped() {
            states.report(
                .reachesAnEnd,
                "from here no end can be reached but by killing the app: "
                    + (stuck
                        ? "nothing can be done here (no action enabled, no input taken), and waiting changes nothing"
                        : "every way on loops back without finishing, among " + states.roundSteps(from: trapped)),
                at: trapped, node: nil, into: &result)
        }
        result.endPaths = states.endPaths()
        result.states = states.count
        result.depth = depth
        result.frontier = queued - states.expandedCount
        // A move played again in the merge may have sent a request too.
        leftOut.formUnion(scratch.takeSentWithoutNetwork())
        result.leftOut = leftOut.sorted()
        return result
    }

    /// An empty result for `journey`, and the first state: the journey started on the device
    /// and run until a step waits or the run ends; and whether to look for secrets in what
    /// moves record (which costs: not done for a journey that declares the rule broken on
    /// purpose).
    func begin(
        _ journey: CompiledJourney, jumps: [Int], scratch: Scratch, recording: Bool = false, after prefix: [Move] = []
    ) async -> (result: Result, first: Node, watchesSecrets: Bool, leak: String?) {
        var result = Result(
            journey: journey.id, bounds: bounds, clockJumps: jumps, states: 0, transitions: 0, depth: 0, frontier: 0,
            truncated: false, violations: [], leftOut: [], declared: Self.edges(of: journey), taken: [])
        result.offline = bounds.offline && network != nil
        let watchesSecrets = journey.source.exception(to: ExplorationInvariant.noSecretLeak.rawValue) == nil
        if !watchesSecrets { result.unchecked.append(.noSecretLeak) }
        if InvariantMonitor.watchesCredential(journey, in: library) && InvariantMonitor.excepts(journey) {
            result.unchecked.append(.credentialBeforeSuccess)
        }
        let machine = JourneyMachine(
            library: library, journey: journey, params: params, device: device,
            configuration: JourneyMachine.Configuration(
                locale: locale, random: .seeded(0), wallClock: wallClock ?? .pinned(milliseconds: device.clock)))
        // What the start records, up to the first step that waits, is searched for secrets too.
        scratch.recorder.begin(keeping: watchesSecrets || recording)
        let (context, _) = self.context(for: machine, answered: [], scratch: scratch)
        let start = context.handle(.start)
        var startEdges: [Edge] = []
        var first = await settle(
            in: context, start, from: Node(machine: machine, action: .proceed, request: nil, restarts: 0), restarts: 0,
            answered: [], journey: journey.id, taking: &startEdges,
            monitor: InvariantMonitor(journey, library: library),
            scratch: scratch)
        for move in prefix {
            (first, _) = await play(move, from: first, journey: journey.id, scratch: scratch)
        }
        let leak =
            watchesSecrets
            ? scratch.secrets.leak(scratch.recorder.texts, move: .restart, from: first, to: first) : nil
        if !recording { scratch.recorder.begin(keeping: false) }
        result.taken.formUnion(startEdges)
        result.taken.formUnion(scratch.covered)
        scratch.covered.removeAll(keepingCapacity: true)
        return (result, first, watchesSecrets, leak)
    }

    /// Plays the moves of each node, on `jobs` threads when there is enough to share: each
    /// thread takes a contiguous run of the nodes, and the expansions come back in the nodes'
    /// order, so the exploration finds the same states in the same order on any number of cores.
    func expand(
        _ nodes: ArraySlice<(index: Int, node: Node)>, journey: CompiledJourney, jumps: [Int],
        abstraction: Abstraction, watchesSecrets: Bool, known: StateTable, scratch: Scratch
    ) async -> [Expansion] {
        let threads = min(jobs, nodes.count / 4)
        scratch.startChunk(known: known)
        defer { scratch.endChunk() }
        guard threads > 1 else {
            var expansions: [Expansion] = []
            expansions.reserveCapacity(nodes.count)
            for (_, node) in nodes {
                expansions.append(
                    await expand(node, journey: journey, jumps: jumps, watchesSecrets: watchesSecrets, scratch: scratch)
                )
            }
            return expansions
        }
        return await withTaskGroup(of: (Int, [Expansion]).self) { group in
            for (part, range) in Self.parts(of: nodes.count, threads: threads).enumerated() {
                let mine = nodes[(nodes.startIndex + range.lowerBound)..<(nodes.startIndex + range.upperBound)]
                group.addTask {
                    let scratch = Scratch(abstraction)
                    scratch.startChunk(known: known)
                    var expansions: [Expansion] = []
                    expansions.reserveCapacity(mine.count)
                    for (_, node) in mine {
                        expansions.append(
                            await expand(
                                node, journey: journey, jumps: jumps, watchesSecrets: watchesSecrets, scratch: scratch))
                    }
                    return (part, expansions)
                }
            }
            var parts = [[Expansion]](repeating: [], count: threads)
            for await (part, expansions) in group { parts[part] = expansions }
            return parts.flatMap { $0 }
        }
    }

    /// `count` nodes shared among `threads` threads (at most `count`): contiguous runs of
    /// positions, in order, that cover them all, none empty, their sizes at most one apart.
    static func parts(of count: Int, threads: Int) -> [Range<Int>] {
        (0..<threads).map { part in (count * part / threads)..<(count * (part + 1) / threads) }
    }

    /// Plays every move of `node`, looking for secrets in what each records when told to.
    nonisolated(nonsending) func expand(
        _ node: Node, journey: CompiledJourney, jumps: [Int], watchesSecrets: Bool, scratch: Scratch
    ) async -> Expansion {
        var expansion = Expansion()
        // What a move played again in the merge sent: said, and not this state's.
        expansion.leftOut.formUnion(scratch.takeSentWithoutNetwork())
        let (played, incomplete) = moves(node, journey: journey, leftOut: &expansion.leftOut, jumps: jumps)
        expansion.incomplete = incomplete
        expansion.successors.reserveCapacity(played.count)
        // Room for every successor's key at about the length of the last key written.
        expansion.keys.reserveCapacity(played.count * (scratch.encoder.bytes.count + 8))
        // The state's own secrets, gathered once for all of its moves, and its limits' counts.
        let held = watchesSecrets ? SecretSearch.held(by: node.machine) : []
        let counts = Self.counts(scratch.watched, node.machine)
        for move in played {
            scratch.recorder.begin(keeping: watchesSecrets)
            scratch.settled = nil
            if scratch.watchesCallees { scratch.completed.removeAll(keepingCapacity: true) }
            if !scratch.exceeded.isEmpty { scratch.exceeded.removeAll(keepingCapacity: true) }
            scratch.storeWrites.keys.removeAll(keepingCapacity: true)
            let (successor, edges) = await play(move, from: node, journey: journey.id, scratch: scratch)
            // Handed to the successor whole; the next move starts a list of its own.
            let covered = scratch.covered
            if !covered.isEmpty { scratch.covered = [] }
            let leak =
                watchesSecrets
                ? scratch.secrets.leak(scratch.recorder.texts, move: move, from: node, holding: held, to: successor)
                : nil
            let (key, hash, situation) = scratch.appendKey(successor, to: &expansion.keys)
            // A move into what the scenario's stubs do not cover is not judged.
            let problem =
                successor.outOfScope
                ? nil
                : edgeProblem(
                    from: node, move: move, to: successor, taking: edges, journey, watched: scratch.watched,
                    completed: scratch.completed, written: scratch.storeWrites.keys, counts: counts)
            expansion.successors.append(
                .init(
                    played: .init(
                        move: move, edges: edges, covered: covered, leak: leak,
                        problem: problem), node: successor, key: key,
                    hash: hash, situation: situation))
        }
        scratch.recorder.begin(keeping: false)
        let sent = scratch.takeSentWithoutNetwork()
        expansion.guesses = !sent.isEmpty
        expansion.leftOut.formUnion(sent)
        return expansion
    }
}
