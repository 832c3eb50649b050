/// The journey interpreter as a pure state machine: no I/O, no clock, no randomness of its own.
///
/// Shaped the way swift-nio writes its state machines. The machine is in one ``State`` whose
/// cases carry the data that exists in them, and every input is an ``Event`` given to
/// ``handle(_:)``, which moves the machine and returns the ``Action`` its caller must perform
/// next. The events are what a run's driver does (start, a handler's result or error, a
/// restart, an abort) and what a running handler does to the device mid-step (store a value,
/// charge an attempt, let time pass, record its HTTP and input). An action names the step to
/// run; ``currentHandler`` is its handler.
///
/// Transcript records wait in the machine until the caller drains them
/// (``drainRecords(into:)``, ``takeRecords()``), or go straight to a sink the caller lends for
/// one event (``handle(_:recordingInto:)``, what ``JourneyRunner`` does). The machine keeps no
/// sink. ``JourneyRunner`` drives it with real handlers and a driver; tests drive it directly.
///
/// The machine is a value: a copy is a fork that shares nothing either can change (queued
/// records included, so drain before forking to give each fork only its own; the random stream
/// too, so a seeded fork draws what its original would have, without moving the original's),
/// and copying costs a few reference counts, not the run's data. ``snapshot(includingGrowth:)`` tells
/// where a run is, as a `Hashable` value.
public struct JourneyMachine: Sendable {
    public struct Configuration: Sendable {
        /// The locale texts are rendered in; nil uses the journey's default.
        public var locale: String?
        /// Steps a run may take before it is stopped as a runaway loop.
        public var stepBudget: Int
        /// How deep sub-journeys may nest.
        public var maxCallDepth: Int
        /// Where handlers take random bytes from (``HandlerContext/random``): the system's
        /// secure generator, or a seeded one for reproducible exploration, never for security.
        /// The machine starts its ``JourneyMachine/random`` stream here and itself draws none.
        public var random: RandomSource
        /// The real time handlers check what live servers issue against
        /// (``HandlerContext/wallClock``): the system's, or pinned for reproducible runs.
        public var wallClock: WallClock

        /// How deep sub-journeys may nest unless configured otherwise; `journey check` reports
        /// deeper nesting before anything runs.
        public static let defaultMaxCallDepth = 16

        public init(
            locale: String? = nil, stepBudget: Int = 10_000, maxCallDepth: Int = defaultMaxCallDepth,
            random: RandomSource = .system, wallClock: WallClock = .system
        ) {
            self.locale = locale
            self.stepBudget = stepBudget
            self.maxCallDepth = maxCallDepth
            self.random = random
            self.wallClock = wallClock
        }
    }

    /// An input to the machine. Each moves it and answers with the ``Action`` to take.
    public enum Event: Sendable, Hashable {
        /// The app launches: the root journey starts. Given once, first.
        case start
        /// The handler of the current step produced `result`; `inputs` are what the driver gave it.
        case complete(HandlerResult, inputs: [String: Value] = [:])
        /// The handler of the current step threw; the run fails with the message recorded.
        case fail(String)
        /// The run stops for a reason outside the journey (a scenario mismatch, a driver error).
        case abort(String)
        /// The app is killed and launched again: every journey's state is lost, the device
        /// store survives, and the root journey starts over.
        case restart
        /// Time passes on the virtual clock. The screen of the step waiting for input is rendered
        /// again, and recorded when anything on it changed (``currentInvocation`` shows it).
        case advanceClock(milliseconds: Int, reason: String)
        /// The device's network comes back or goes away.
        case setNetwork(online: Bool)
        /// A handler writes (or with nil removes) a value in the device store.
        case store(String, Value?)
        /// A handler charges the current step's attempt limit now and writes the counter to the
        /// device, before it acts on what it checks (increment, then verify): a restart or a
        /// kill between here and the outcome cannot give the attempt back. Charged once per
        /// visit; outcomes that neither count nor reset give it back.
        case chargeAttempt
        /// A handler's HTTP exchange for the current step.
        case recordHTTP(method: String, url: String, status: Int?, error: String?)
        /// Input the driver gave for the current step.
        case recordInput([String: Value])
        /// Input the step refused, as the driver said it would; the step asks again.
        case recordRefusedInput([String: Value], reason: String)
    }

    /// What the caller must do next.
    public enum Action: Sendable {
        /// Run the handler of the step the invocation names (``currentHandler``) with it, then
        /// give the machine ``Event/complete(_:inputs:)`` or ``Event/fail(_:)``.
        case runStep(HandlerInvocation)
        /// Nothing: the handler that is running carries on. The answer to a mid-step event.
        case proceed
        /// The root journey reached an end.
        case finished(RunResult)
        /// The run failed; the transcript says why.
        case failed(RunResult)
    }

    /// Where the run is. Each case carries the data that exists only in it; what every state
    /// has (the frames, the device, the counters, the records not yet drained) is the ``Run``.
    ///
    /// swift-nio moves a state's data out and back with a `.modifying` case so that changing it
    /// does not copy its storage. Here the data every state shares is the large part and the
    /// cases carry small values that are replaced, never changed, so an event changes the run
    /// in place and then sets the state: moving the run through the state, even swapped out
    /// rather than copied, cost about an eighth of `journey bench`'s steps per second.
    enum State {
        /// Created, waiting for ``Event/start``.
        case idle
        /// At a step whose handler the caller runs, with what it runs it with.
        case atStep(HandlerInvocation)
        /// The root journey reached an end, or the run failed.
        case ended(RunResult)
    }

    /// What never changes in a run: shared by every fork.
    final class Setup: Sendable {
        let library: CompiledLibrary
        let root: CompiledJourney
        let rootParams: [String: Value]
        let configuration: Configuration
        let locale: String
        /// What every launch of the root journey starts with, prepared once: its params with
        /// their defaults (secret where declared) and as its `journey.start` event shows them,
        /// and its initial state; or why it cannot start.
        let launch:
            Result<(params: [String: Value], shown: TranscriptEvent.Fields, state: [String: Value]), Unlaunchable>
        /// The frames a launch starts with, made once when the root journey's limits all have a
        /// written maximum (none is computed from what the device keeps when it starts).
        let launchFrames: [Frame]?

        struct Unlaunchable: Error {
            var message: String
        }

        init(library: CompiledLibrary, root: CompiledJourney, rootParams: [String: Value], configuration: Configuration)
        {
            self.library = library
            self.root = root
            self.rootParams = rootParams
            self.configuration = configuration
            self.locale = root.source.locale(for: configuration.locale)
            var params = rootParams
            var missing: String?
            for p in root.params where params[p.name] == nil {
                guard let value = p.defaultValue else {
                    missing = "param '\(p.name)' of \(root.id) has no default and was not given"
                    break
                }
                params[p.name] = value
            }
            for p in root.params { params[p.name] = params[p.name]?.secret(if: p.type.secret) }
            launch =
                if let missing {
                    .failure(Unlaunchable(message: missing))
                } else {
                    .success((params, .sorted(params), JourneyMachine.initialState(root)))
                }
            if case .success(let launch) = launch, !root.computesMaximums {
                launchFrames = [Frame(journey: root, params: launch.params, state: launch.state)]
            } else {
                launchFrames = nil
            }
        }
    }

    private(set) var state = State.idle
    private(set) var run: Run

    /// - Parameters:
    ///   - params: the root journey's params; missing ones take their defaults.
    public init(
        library: CompiledLibrary, journey: CompiledJourney, params: [String: Value] = [:], device: DeviceState,
        configuration: Configuration = Configuration()
    ) {
        var device = device
        // A key secret anywhere in the project holds a secret whoever wrote it.
        for (key, value) in device.store where library.isSecretStored(key) && !value.isSecret {
            device.store[key] = .secret(value)
        }
        let setup = Setup(library: library, root: journey, rootParams: params, configuration: configuration)
        run = Run(setup: setup, device: device)
    }

    public var library: CompiledLibrary { run.setup.library }
    public var root: CompiledJourney { run.setup.root }
    public var configuration: Configuration { run.setup.configuration }
    /// The locale texts are rendered in.
    public var locale: String { run.setup.locale }

    /// The simulated phone: its profile, store and clock.
    public var device: DeviceState { run.device }
    /// When the current step was entered, on the virtual clock (milliseconds since 1970).
    public var stepEnteredAt: Int { run.stepEnteredAt }

    /// Steps entered since the run started.
    public var stepsTaken: Int { run.stepsTaken }

    /// Counts the steps entered from zero again for the step budget: to an explorer each move
    /// is a run of its own as far as a runaway loop goes, however long the path before it. The
    /// steps the run took (``stepsTaken``, what its end records) still count from its start.
    mutating func countStepsAfresh() { run.budgetSpent = 0 }

    /// The stream the running handler draws random bytes from (through
    /// ``HandlerContext/random``), started from the configuration's. The machine draws none;
    /// it carries the stream so that each fork has its own.
    public var random: RandomSource {
        get { run.random }
        set { run.random = newValue }
    }

    /// What the handler of the current step runs with: the invocation the last
    /// ``Action/runStep(_:)`` carried, kept so that a fork knows what to run next.
    public var currentInvocation: HandlerInvocation? {
        guard case .atStep(let invocation) = state else { return nil }
        return invocation
    }

    /// The id of the step whose handler is to run, if any.
    public var currentStep: String? { currentInvocation?.step }

    /// The handler of the step whose handler is to run, if any: the one ``Action/runStep(_:)`` names.
    public var currentHandler: (any StepHandler)? {
        guard case .atStep = state else { return nil }
        return run.topStep.handler
    }

    /// The step whose handler is to run, compiled, if any.
    var currentCompiledStep: CompiledStep? {
        guard case .atStep = state else { return nil }
        return run.topStep
    }

    /// A sub-journey's end returned to the step that called it, as that step's outcome: the
    /// caller's journey and step, and the end.
    public struct CallReturn: Sendable, Hashable {
        public var journey: String
        public var step: String
        public var outcome: String

        public init(journey: String, step: String, outcome: String) {
            self.journey = journey
            self.step = step
            self.outcome = outcome
        }
    }

    /// The sub-journeys the last event returned from, innermost first: each a call step
    /// completed with the end its sub-journey reached (which a handler's result does not
    /// show). A driver that follows the outcomes steps complete (an invariant monitor, an
    /// explorer's transitions taken) reads them after each event.
    public var callReturns: [CallReturn] {
        run.taken.compactMap { if case .callReturn(let called) = $0 { called } else { nil } }
    }

    /// A limit an event led to its `exceeded`: at which step of which journey, by which branch
    /// of its transition when it has more than one.
    struct LimitExceeded {
        let limit: CompiledLimit
        let journey: String
        let step: String
        let branch: CompiledBranch?
    }

    /// What an event took besides its step's outcome.
    enum Taken {
        /// A sub-journey returned to the step that called it (``callReturns``).
        case callReturn(CallReturn)
        /// An attempt limit led to its `exceeded` (spent, or entered while spent or locked out).
        case limit(LimitExceeded)
        /// A branch of a transition with more than one, but a limit's (said with the limit).
        case branch(CompiledBranch)
    }

    /// What the last event took, in order: an explorer reads it after each event, for the
    /// coverage of each branch and of where each limit leads once spent, and to remember on
    /// the path that a limit set back when spent was spent.
    var taken: [Taken] { run.taken }

    /// The state of the current (innermost) journey.
    public var currentState: [String: Value] { run.frames.last?.state ?? [:] }

    /// The root journey's state.
    public var rootState: [String: Value] { run.frames.first?.state ?? [:] }

    /// How the run ended, once it has.
    public var result: RunResult? {
        guard case .ended(let result) = state else { return nil }
        return result
    }

    // MARK: Events

    /// Moves the machine by `event` and returns what the caller must do next.
    public mutating func handle(_ event: consuming Event) -> Action {
        if !run.taken.isEmpty { run.taken.removeAll() }
        let atStep: Bool
        if case .atStep = state { atStep = true } else { atStep = false }
        let action: Action
        switch consume event {
        case .start:
            guard case .idle = state else { return settle(run.failure(currentStep, "the run was started twice")) }
            action = run.launch()
        case .complete(let result, let inputs):
            // A run that ended while the handler ran (its wait passed the end of the clock)
            // stays as it ended.
            if case .ended(let result) = state { return result.failure == nil ? .finished(result) : .failed(result) }
            guard atStep else { return settle(run.failure(nil, "a handler result arrived while no step was running")) }
            action = run.complete(result, inputs: inputs)
        case .fail(let message):
            action = run.fail(message)
        case .abort(let message):
            action = run.failure(currentStep, message)
        case .restart:
            action = run.restart()
        case .advanceClock(let milliseconds, let reason):
            let action = run.advanceClock(by: milliseconds, reason: reason)
            if case .failed = action { return settle(action) }
            // The screen shown lives on: texts and enabled actions that read the clock change.
            guard case .atStep(let invocation) = state else { return action }
            switch run.refreshScreen(of: invocation) {
            case .success(let updated?): state = .atStep(updated)
            case .success(nil): break
            case .failure(let error): return settle(run.failure(invocation.step, error.message))
            }
            return action
        case .setNetwork(let online):
            return run.setNetwork(online: online)
        case .store(let key, let value):
            return run.store(key, value)
        case .chargeAttempt:
            return atStep ? run.chargeAttempt() : .proceed
        case .recordHTTP(let method, let url, let status, let error):
            return atStep ? run.recordHTTP(method: method, url: url, status: status, error: error) : .proceed
        case .recordInput(let values):
            return atStep ? run.recordInput(values) : .proceed
        case .recordRefusedInput(let values, let reason):
            return atStep ? run.recordRefusedInput(values, reason: reason) : .proceed
        }
        return settle(action)
    }

    /// Puts the machine in the state `action` leads to: at a step, or ended.
    private mutating func settle(_ action: Action) -> Action {
        switch action {
        case .runStep(let invocation):
            state = .atStep(invocation)
            run.stepEnteredAt = run.device.clock
        case .finished(let result), .failed(let result): state = .ended(result)
        case .proceed: break
        }
        return action
    }

    // MARK: Records

    /// Moves the machine by `event` like ``handle(_:)``, giving the records it makes to `sink`
    /// as they are made (after any still queued) instead of queueing them. The machine keeps
    /// the sink only while it handles the event.
    ///
    /// For a caller that writes every record out at once, as ``JourneyRunner`` does: draining
    /// after each event gives the same records, but a record that waits in the queue must own
    /// everything in it, and the runner was about a tenth slower that way.
    public mutating func handle(_ event: consuming Event, recordingInto sink: some TranscriptSink) -> Action {
        run.drainRecords(into: sink)
        run.lentSink = sink
        run.discardsPrepared = sink.discardsPrepared
        defer {
            run.lentSink = nil
            run.discardsPrepared = false
        }
        return handle(event)
    }

    /// Moves the machine by `event` like ``handle(_:)``, making no transcript records for it:
    /// for a caller that keeps none, such as an explorer playing every path (records already
    /// queued stay queued).
    mutating func handleDiscardingRecords(_ event: consuming Event) -> Action {
        run.discardsRecords = true
        defer { run.discardsRecords = false }
        return handle(event)
    }

    /// Gives the records queued since the last drain to `sink`, in order, and empties the
    /// queue keeping its storage, so a run allocates nothing for it step after step.
    public mutating func drainRecords(into sink: some TranscriptSink) {
        run.drainRecords(into: sink)
    }

    /// Takes the transcript records queued since the last call.
    public mutating func takeRecords() -> [TranscriptRecord] {
        defer { run.records = [] }
        return run.records
    }
}

/// How a run ended.
public struct RunResult: Sendable, Hashable {
    /// The end reached, or nil if the run failed.
    public var end: String?
    public var kind: EndKind?
    /// Why the run failed, if it did.
    public var failure: String?
    public var steps: Int
    /// The step the journey waited at when its driver stopped it without an end (a scenario
    /// whose script runs out where it `expect`s `at:`).
    public var waiting: String?
    /// The journey whose step ``waiting`` is: the root, or a sub-journey the run waited inside.
    public var waitingIn: String?

    public init(
        end: String?, kind: EndKind?, failure: String?, steps: Int, waiting: String? = nil, waitingIn: String? = nil
    ) {
        self.end = end
        self.kind = kind
        self.failure = failure
        self.steps = steps
        self.waiting = waiting
        self.waitingIn = waitingIn
    }
}

struct RunFailureMessage: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
