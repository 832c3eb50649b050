extension JourneyMachine {
    /// Everything an event can change: the journeys' frames, the device, the run's counters,
    /// the random stream handlers draw from, and the transcript records not yet drained. The interpreter's work is done here, on the
    /// machine's run in place; the machine then sets its state from the action.
    struct Run: Sendable {
        let setup: Setup
        /// The journeys running, the root first; empty before the run starts.
        var frames: [Frame] = []
        /// The step the innermost journey is at. Kept here rather than in its frame, so that
        /// entering a step changes no frame: a fork's first step would otherwise copy them all.
        var at = 0
        var device: DeviceState
        var stepsTaken = 0
        /// Steps counted against the step budget: those since the run started, or since an
        /// explorer's move began (``JourneyMachine/countStepsAfresh()``).
        var budgetSpent = 0
        /// Whether the current step visit has charged its attempt limit.
        var attemptCharged = false
        /// When the current step was entered, on the device's clock.
        var stepEnteredAt = 0
        /// Where handlers draw random bytes from; the machine itself draws none. Kept here so
        /// that a fork draws from its own copy of a seeded stream.
        var random: RandomSource
        /// Transcript records not yet drained.
        var records: [TranscriptRecord] = []
        /// The sink the caller lends for the event being handled
        /// (``JourneyMachine/handle(_:recordingInto:)``): records go straight to it instead of
        /// waiting in ``records``. Nil between events, so the machine keeps no sink and a fork
        /// never shares one (which is also why the run stays `Sendable`).
        nonisolated(unsafe) var lentSink: (any TranscriptSink)?
        /// Whether the event being handled makes no records at all: set only while it is handled.
        var discardsRecords = false
        /// Whether the lent sink keeps no prepared records: set only while an event is handled.
        var discardsPrepared = false
        /// What `input.` and `outcome.` read while a transition is taken: the result being
        /// handled; nil otherwise, so that a fork copies nothing for it. The run reads every
        /// other name in place (``JourneyMachine/NameReading``), so evaluating copies no frame
        /// and no device.
        var given: Given?
        /// What the event being handled took, in order: the sub-journeys it returned from, the
        /// limits it led to their `exceeded`, and the branches of transitions with more than one
        /// (``JourneyMachine/Taken``). Cleared when the next event comes. One list, not one for
        /// each: a fork copies the run, and each list is one more reference to count.
        var taken: [JourneyMachine.Taken] = []

        struct Given: Sendable {
            var inputs: [String: Value] = [:]
            var outcome: [String: Value] = [:]
        }

        init(setup: Setup, device: DeviceState) {
            self.setup = setup
            self.device = device
            self.random = setup.configuration.random
        }
    }

    /// One running journey: the root, or a sub-journey a step of the frame below calls.
    struct Frame: Sendable {
        let journey: CompiledJourney
        var params: [String: Value]
        var state: [String: Value]
        /// For a journey that calls a sub-journey, the step that calls. The innermost journey's
        /// step is the run's ``Run/at`` (``Run/step(of:)``).
        var step = 0
        /// The maximum of each limit whose `max` is computed from params, by limit name:
        /// evaluated when the journey starts, fixed for this run of it.
        var maximums: [String: Int] = [:]
    }
}

// MARK: Events

extension JourneyMachine.Run {
    typealias Action = JourneyMachine.Action

    /// The step the innermost journey is at (frames must not be empty). Read in place, so the
    /// frame's params and state are not copied.
    var topStep: CompiledStep {
        frames[frames.count - 1].journey.steps[at]
    }

    /// The step frame `index` is at: for the innermost journey the run's ``at``, for a caller
    /// the step that calls.
    func step(of index: Int) -> Int {
        index == frames.count - 1 ? at : frames[index].step
    }

    mutating func complete(_ result: HandlerResult, inputs: [String: Value]) -> Action {
        let step = topStep
        let transition = step.transition(for: result.outcome)
        guard let specs = transition?.data ?? step.contract.outcome(named: result.outcome)?.data else {
            return failure(
                step.id,
                "handler '\(step.label)' returned outcome '\(result.outcome)', which its contract does not declare")
        }
        var data: [String: Value] = [:]
        for d in specs {
            if let value = result.data[d.name] { data[d.name] = value.secret(if: d.type.secret) }
        }
        let outcomeEvent = transition?.outcomeEvent
        if keepsRecord(prepared: outcomeEvent != nil) {
            emit(
                .outcome(step: step.id, outcome: result.outcome, data: data.isEmpty ? [] : .sorted(data)),
                encoded: outcomeEvent)
        }
        switch resolve(outcome: result.outcome, transition: transition, data: data, inputs: inputs) {
        case .success(let target): return go(to: target)
        case .failure(let error): return failure(step.id, error.message)
        }
    }

    mutating func fail(_ message: String) -> Action {
        guard !frames.isEmpty else { return failure(nil, message) }
        let step = topStep
        emit(.handlerError(step: step.id, handler: step.label, message: message))
        return failure(step.id, "handler '\(step.label)' failed: \(message)")
    }

    mutating func restart() -> Action {
        emit(.restart)
        frames.removeAll()
        return launch()
    }

    /// Time passes; a clock that would pass the last moment a device's clock can show
    /// (``NumberRange/clock``, 9999-12-31T23:59:59.999Z) fails the run instead, as a run that
    /// waits that long cannot mean it.
    mutating func advanceClock(by milliseconds: Int, reason: String) -> Action {
        let (clock, overflow) = device.clock.addingReportingOverflow(milliseconds)
        guard !overflow, NumberRange.clock.contains(clock) else {
            return failure(
                frames.isEmpty ? nil : topStep.id,
                "the virtual clock cannot move on \(Duration.format(milliseconds: milliseconds)) (\(reason)) from \(TranscriptTextRenderer.isoDate(device.clock)): it ends at 9999-12-31T23:59:59Z"
            )
        }
        device.clock = clock
        emit(.clockAdvance(milliseconds: milliseconds, reason: reason))
        return .proceed
    }

    /// The step's visit with its screen rendered again, now that the virtual clock has moved
    /// while it shows, or nil when nothing the user sees changed. A changed screen is recorded
    /// (`screen.updated`); a screen that no longer renders fails the run.
    mutating func refreshScreen(of invocation: HandlerInvocation) -> Result<HandlerInvocation?, RunFailureMessage> {
        guard !frames.isEmpty else { return .success(nil) }
        let step = topStep
        guard step.fixedVisit == nil, step.screen != nil, step.id == invocation.step else { return .success(nil) }
        let journey = frames[frames.count - 1].journey
        switch JourneyMachine.render(
            step.screen, step.actionConditions, locale: setup.locale, fallback: journey.source.defaultLocale, self)
        {
        case .success(let screen):
            guard let screen, screen != invocation.screen else { return .success(nil) }
            emit(.screenUpdated(step: step.id, screen: screen))
            return .success(invocation.showing(screen))
        case .failure(let error):
            return .failure(.init("cannot render the screen of step '\(step.id)' again: \(error.message)"))
        }
    }

    mutating func setNetwork(online: Bool) -> Action {
        device.profile.online = online
        emit(.network(online: online))
        return .proceed
    }

    mutating func store(_ key: String, _ value: Value?) -> Action {
        let value = value?.secret(if: setup.library.isSecretStored(key))
        if let value { device.store[key] = value } else { device.store.removeValue(forKey: key) }
        emit(.stateSet(variable: "stored.\(key)", value: value ?? .string("(removed)")))
        return .proceed
    }

    mutating func chargeAttempt() -> Action {
        guard !attemptCharged, !frames.isEmpty else { return .proceed }
        let step = topStep
        guard let limit = step.attempts?.limit else { return .proceed }
        let count = count(of: limit) + 1
        setCounter(limit, count)
        attemptCharged = true
        emitAttempt(step, .charged, count: count)
        return .proceed
    }

    mutating func recordHTTP(method: String, url: String, status: Int?, error: String?) -> Action {
        emit(.http(step: topStep.id, method: method, url: URLRedaction.redact(url), status: status, error: error))
        return .proceed
    }

    mutating func recordRefusedInput(_ values: [String: Value], reason: String) -> Action {
        emit(.inputRefused(step: topStep.id, values: .sorted(values), reason: reason))
        return .proceed
    }

    mutating func recordInput(_ values: [String: Value]) -> Action {
        guard !discardsRecords else { return .proceed }
        let step = topStep
        if let prepared = step.preparedInput(values) {
            if keepsRecord(prepared: true) {
                emit(.input(step: step.id, values: prepared.values), encoded: prepared.event)
            }
        } else {
            emit(.input(step: step.id, values: .sorted(values)))
        }
        return .proceed
    }
}

// MARK: Moving

extension JourneyMachine.Run {
    /// Where a move goes next: on to a target, or back to the caller with an action.
    enum Move {
        case to(Target)
        case stop(Action)
    }

    /// Starts the root journey with its params.
    mutating func launch() -> Action {
        let root = setup.root
        let launch: (params: [String: Value], shown: TranscriptEvent.Fields, state: [String: Value])
        switch setup.launch {
        case .success(let prepared): launch = prepared
        case .failure(let problem): return failure(nil, problem.message)
        }
        emit(.journeyStart(journey: root.id, params: launch.shown))
        if let prepared = setup.launchFrames {
            frames = prepared
            return go(to: root.start)
        }
        var frame = JourneyMachine.Frame(journey: root, params: launch.params, state: launch.state)
        if let message = JourneyMachine.evaluateMaximums(
            &frame, device: device, library: setup.library)
        {
            return failure(nil, message)
        }
        frames = [frame]
        return go(to: root.start)
    }

    /// Moves from `first` until a handler must run or the run ends.
    mutating func go(to first: Target) -> Action {
        var target = first
        while true {
            let move =
                switch target {
                case .step(let index): enter(step: index)
                case .end(let index): reach(end: index)
                }
            switch move {
            case .to(let next): target = next
            case .stop(let action): return action
            }
        }
    }

    /// Enters a step of the innermost journey: counts it, applies its attempt limit, and
    /// either calls its sub-journey or prepares its handler's visit.
    @inline(__always)
    mutating func enter(step index: Int) -> Move {
        stepsTaken += 1
        budgetSpent += 1
        let step = frames[frames.count - 1].journey.steps[index]
        let budget = setup.configuration.stepBudget
        if budgetSpent > budget {
            return .stop(
                failure(step.id, "step budget of \(budget) exhausted at step '\(step.id)'; the journey seems to loop"))
        }
        at = index
        if keepsRecord(prepared: true) {
            emit(.stepEnter(step: step.id, handler: step.label), encoded: step.enterEvent)
        }
        attemptCharged = false
        if let limit = step.attempts?.limit {
            if limit.lockedUntil != nil, lockedUntil(of: limit) > 0 {
                if isLocked(limit) {
                    // Locked out: the step is not shown until the lockout ends.
                    emitAttempt(step, .locked, count: count(of: limit))
                    switch takeExceeded(
                        limit, from: step.id, outcome: "limit (limit \(limit.name) locked)", inputs: [:], data: [:])
                    {
                    case .success(let next): return .to(next)
                    case .failure(let error): return .stop(failure(step.id, error.message))
                    }
                }
                // The lockout has passed: the count starts again.
                setCounter(limit, 0)
                emitAttempt(step, .unlocked, count: 0)
                if let ref = limit.lockedUntil { assign(ref, .int(0)) }
            }
            let count = count(of: limit)
            if count >= maximum(of: limit) {
                emitAttempt(step, .exceeded, count: count)
                switch exceed(limit, from: step.id, outcome: "limit") {
                case .success(let next): return .to(next)
                case .failure(let error): return .stop(failure(step.id, error.message))
                }
            }
        }
        // A step whose parameters and screen never change: nothing to evaluate or render.
        if let fixed = step.fixedVisit {
            let visit = fixed.visit(in: setup.locale)
            if let screen = visit.screen, keepsRecord(prepared: visit.screenEvent != nil) {
                emit(.screen(step: step.id, screen: screen), encoded: visit.screenEvent)
            }
            if keepsRecord(prepared: true) {
                emit(
                    .handlerCall(step: step.id, handler: step.label, params: fixed.callFields),
                    encoded: fixed.callEvent)
            }
            return .stop(.runStep(visit.invocation))
        }
        // A visit with the values it reads as an earlier one had is that visit, prepared then.
        var memoKey: VisitMemo.Key?
        if let reads = step.visitNames {
            // The values are read into a buffer on the stack: a visit found allocates nothing;
            // one not found is prepared below and kept under them.
            let found = withUnsafeTemporaryAllocation(of: Value?.self, capacity: reads.count) { buffer in
                let base = buffer.baseAddress!
                for index in reads.indices { (base + index).initialize(to: value(of: reads[index])) }
                defer { base.deinitialize(count: reads.count) }
                let values = UnsafeBufferPointer(start: base, count: reads.count)
                let visit = step.visitMemo.visit(locale: setup.locale, values: values)
                if visit == nil { memoKey = VisitMemo.Key(locale: setup.locale, values: Array(values)) }
                return visit
            }
            if let prepared = found {
                if let screen = prepared.screen { emit(.screen(step: step.id, screen: screen)) }
                emit(.handlerCall(step: step.id, handler: step.label, params: prepared.callFields))
                return .stop(.runStep(prepared.invocation))
            }
        }
        var params: [String: Value] = [:]
        params.reserveCapacity(step.parameters.count)
        var displays: [String: String] = [:]
        for (name, value) in step.parameters {
            switch JourneyMachine.evaluate(value, self) {
            case .success(let evaluated):
                let v: Value
                switch step.checked(name, evaluated) {
                case .success(let checked): v = checked
                case .failure(let error): return .stop(failure(step.id, error.message))
                }
                params[name] = v
                // A value computed partly from secrets (a URL with a code in it) is shown
                // with just those parts redacted; a parameter secret by type never is.
                if v.isSecret, step.rules[name]?.secret != true, case .template(let t) = value, !t.isSingleExpression {
                    displays[name] = try? t.display(in: self)
                }
            case .failure(let error):
                return .stop(failure(step.id, "cannot evaluate '\(name)' of step '\(step.id)': \(error.message)"))
            }
        }
        switch step.runner {
        case .call(let id): return call(id, from: step, params: params)
        case .handler: return .stop(visit(step, params: params, displays: displays, remembering: memoKey))
        }
    }

    /// A step calls a sub-journey: it starts in a frame of its own, with its params.
    @inline(__always)
    mutating func call(_ id: String, from step: CompiledStep, params: [String: Value]) -> Move {
        guard let callee = setup.library[id] else { return .stop(failure(step.id, "unknown journey '\(id)'")) }
        let depth = setup.configuration.maxCallDepth
        if frames.count > depth {
            return .stop(failure(step.id, "sub-journeys nest deeper than \(depth)"))
        }
        var params = params
        for p in callee.params where params[p.name] == nil { params[p.name] = p.defaultValue }
        for p in callee.params { params[p.name] = params[p.name]?.secret(if: p.type.secret) }
        emit(.subjourneyEnter(journey: id, step: step.id, params: .sorted(params)))
        var frame = JourneyMachine.Frame(journey: callee, params: params, state: JourneyMachine.initialState(callee))
        if let message = JourneyMachine.evaluateMaximums(
            &frame, device: device, library: setup.library)
        {
            return .stop(failure(step.id, message))
        }
        // The caller's frame keeps the step that calls; the run's `at` is the callee's.
        frames[frames.count - 1].step = at
        frames.append(frame)
        return .to(callee.start)
    }

    /// A handler step's visit: its screen rendered, its call recorded, its handler to run.
    @inline(__always)
    mutating func visit(
        _ step: CompiledStep, params: [String: Value], displays: [String: String],
        remembering key: VisitMemo.Key? = nil
    ) -> Action {
        let journey = frames[frames.count - 1].journey
        let screen: RenderedScreen?
        switch JourneyMachine.render(
            step.screen, step.actionConditions, locale: setup.locale, fallback: journey.source.defaultLocale, self)
        {
        case .success(let s): screen = s
        case .failure(let error): return failure(step.id, "cannot render the screen: \(error.message)")
        }
        if let screen { emit(.screen(step: step.id, screen: screen)) }
        var shown = params
        for (name, text) in displays { shown[name] = .string(text) }
        let callFields = step.shownParameters(shown)
        emit(.handlerCall(step: step.id, handler: step.label, params: callFields))
        let invocation = HandlerInvocation(
            journey: journey.id, step: step.id, parameters: params, maps: step.maps, tables: step.tables,
            captures: step.captures, screen: screen, contract: step.contract, displays: displays,
            clockActions: step.clockActions)
        if let key {
            step.visitMemo.remember(
                VisitMemo.Visit(screen: screen, callFields: callFields, invocation: invocation), under: key)
        }
        return .runStep(invocation)
    }

    /// The innermost journey reaches an end: the run finishes, or the sub-journey returns its
    /// outputs to the step that called it.
    @inline(__always)
    mutating func reach(end index: Int) -> Move {
        let journey = frames[frames.count - 1].journey
        let end = journey.ends[index]
        if frames.count == 1 {
            emit(.journeyEnd(journey: journey.id, end: end.id, kind: end.kind, steps: stepsTaken))
            return .stop(.finished(RunResult(end: end.id, kind: end.kind, failure: nil, steps: stepsTaken)))
        }
        var outputs: [String: Value] = [:]
        for (name, template) in journey.outputs {
            do {
                outputs[name] = try template.evaluate(in: self)
            } catch {
                return .stop(failure(nil, "cannot evaluate output '\(name)' of \(journey.id): \(error.message)"))
            }
        }
        frames.removeLast()
        at = frames[frames.count - 1].step
        emit(.subjourneyExit(journey: journey.id, end: end.id, kind: end.kind, outputs: .sorted(outputs)))
        let caller = topStep
        taken.append(
            .callReturn(
                JourneyMachine.CallReturn(
                    journey: frames[frames.count - 1].journey.id, step: caller.id, outcome: end.id)))
        emit(.outcome(step: caller.id, outcome: end.id, data: .sorted(outputs)))
        switch resolve(outcome: end.id, transition: caller.transition(for: end.id), data: outputs, inputs: [:]) {
        case .success(let next): return .to(next)
        case .failure(let error): return .stop(failure(caller.id, error.message))
        }
    }

    /// The value of a name a visit of the innermost journey's step reads, read in place: what
    /// ``JourneyMachine/Lookup/value(at:)`` gives for it.
    func value(of read: CompiledStep.VisitRead) -> Value? {
        assert(resolvedValue(of: read) == value(at: read.path), "'\(read.path)' read in place reads otherwise")
        return resolvedValue(of: read)
    }

    private func resolvedValue(of read: CompiledStep.VisitRead) -> Value? {
        switch read {
        case .param(let name): return frames[frames.count - 1].params.value(named: name)
        case .state(let name): return frames[frames.count - 1].state.value(named: name)
        case .limit(let limit, let field): return value(of: field, of: limit)
        case .other(let path): return value(at: path)
        }
    }
}

// MARK: Transitions

extension JourneyMachine.Run {
    /// Applies the attempt rules and the transition of `outcome` at the current step
    /// (`transition`, looked up by the caller).
    mutating func resolve(
        outcome: String, transition: CompiledTransition?, data: [String: Value], inputs: [String: Value]
    ) -> Result<Target, RunFailureMessage> {
        let step = topStep
        if let attempts = step.attempts {
            let limit = attempts.limit
            if attempts.counts.contains(outcome) {
                if !attemptCharged { _ = chargeAttempt() }
                let count = count(of: limit)
                if count >= maximum(of: limit) {
                    emitAttempt(step, .exceeded, count: count)
                    return exceed(limit, from: step.id, outcome: outcome, inputs: inputs, data: data)
                }
            } else if attempts.resets.contains(outcome) {
                setCounter(limit, 0)
                emitAttempt(step, .reset, count: 0)
            } else if attemptCharged {
                let count = max(0, count(of: limit) - 1)
                setCounter(limit, count)
                emitAttempt(step, .refunded, count: count)
            }
            attemptCharged = false
        }
        guard let transition else {
            return .failure(.init("step '\(step.id)' has no transition for outcome '\(outcome)'"))
        }
        return take(transition, from: step.id, outcome: outcome, inputs: inputs, data: data, prepared: true)
    }

    mutating func exceed(
        _ limit: CompiledLimit, from step: String, outcome: String, inputs: [String: Value] = [:],
        data: [String: Value] = [:]
    ) -> Result<Target, RunFailureMessage> {
        if !limit.keep { setCounter(limit, 0) }
        if let lockout = limit.lockout, let ref = limit.lockedUntil {
            // Rounded up to the second: the lockout lasts at least as long as written.
            let (end, overflow) = device.clock.addingReportingOverflow(lockout + 999)
            if overflow { return .failure(.init("the lockout of limit '\(limit.name)' ends past any clock")) }
            assign(ref, .int(end / 1000))
        }
        return takeExceeded(
            limit, from: step, outcome: "\(outcome) (limit \(limit.name) reached)", inputs: inputs, data: data)
    }

    /// Takes `limit`'s `exceeded` transition from `step`, and says so (``limitsExceeded``), with
    /// the branch it took where it has several: a limit's transition, which many steps share,
    /// is said with the limit and the step, not among ``branchesTaken``.
    mutating func takeExceeded(
        _ limit: CompiledLimit, from step: String, outcome: String, inputs: [String: Value], data: [String: Value]
    ) -> Result<Target, RunFailureMessage> {
        let journey = frames[frames.count - 1].journey.id
        let before = taken.count
        let target = take(limit.exceeded, from: step, outcome: outcome, inputs: inputs, data: data)
        var branch: CompiledBranch?
        if taken.count > before, case .branch(let chosen) = taken[taken.count - 1] {
            taken.removeLast()
            branch = chosen
        }
        taken.append(.limit(JourneyMachine.LimitExceeded(limit: limit, journey: journey, step: step, branch: branch)))
        return target
    }

    /// - Parameter prepared: whether the transition is taken for its step's own outcome, so
    ///   its branches' prepared events apply.
    mutating func take(
        _ transition: CompiledTransition, from step: String, outcome: String, inputs: [String: Value],
        data: [String: Value], prepared: Bool = false
    ) -> Result<Target, RunFailureMessage> {
        // The common transition (one branch, no condition, nothing to assign) reads nothing.
        if transition.branches.count == 1, let branch = transition.branches.first, branch.condition == nil,
            branch.assignments.isEmpty
        {
            emitTransition(from: step, outcome: outcome, branch, prepared: prepared)
            return .success(branch.target)
        }
        // Conditions and values read the run in place, the result being handled with it.
        given = Given(inputs: inputs, outcome: data)
        defer { given = nil }
        for branch in transition.branches {
            if let condition = branch.condition {
                do {
                    guard try condition.evaluate(in: self).revealed == .bool(true) else { continue }
                } catch {
                    return .failure(.init("cannot evaluate '\(condition.source)' at step '\(step)': \(error.message)"))
                }
            }
            taken.append(.branch(branch))
            for (variable, value) in branch.assignments {
                let result: Value
                switch JourneyMachine.evaluate(value, self) {
                case .success(let v): result = v
                case .failure(let error):
                    return .failure(
                        .init("cannot evaluate the value of '\(variable)' at step '\(step)': \(error.message)"))
                }
                assign(variable, result)
            }
            emitTransition(from: step, outcome: outcome, branch, prepared: prepared)
            return .success(branch.target)
        }
        return .failure(.init("no branch matched for '\(outcome)' at step '\(step)'"))
    }

    /// Records the transition taken: with its branch's prepared event when taken for its
    /// step's own outcome.
    mutating func emitTransition(from step: String, outcome: String, _ branch: CompiledBranch, prepared: Bool) {
        let encoded = prepared ? branch.event : nil
        guard keepsRecord(prepared: encoded != nil) else { return }
        let journey = frames[frames.count - 1].journey
        emit(
            .transition(from: step, outcome: outcome, branch: branch.label, to: journey.name(of: branch.target)),
            encoded: encoded)
    }

    mutating func assign(_ variable: VariableReference, _ value: Value) {
        let journey = frames[frames.count - 1].journey
        switch variable.scope {
        case .state:
            let secret = journey.state.first { $0.name == variable.name }?.type.secret ?? false
            frames[frames.count - 1].state[variable.name] = value.secret(if: secret)
            emit(.stateSet(variable: variable.description, value: value.secret(if: secret)))
        case .stored:
            let secret =
                setup.library.isSecretStored(variable.name)
                || journey.stored.first { $0.name == variable.name }?.type.secret ?? false
            device.store[variable.name] = value.secret(if: secret)
            emit(.stateSet(variable: variable.description, value: value.secret(if: secret)))
        }
    }

    /// Writes a limit's counter at once: it is on the device before the result is acted on.
    mutating func setCounter(_ limit: CompiledLimit, _ count: Int) {
        switch limit.counter.scope {
        case .state: frames[frames.count - 1].state[limit.counter.name] = .int(count)
        case .stored: device.store[limit.counter.name] = .int(count)
        }
    }
}

// MARK: Records

extension JourneyMachine.Run {
    mutating func failure(_ step: String?, _ message: String) -> Action {
        emit(.failure(step: step, message: message))
        return .failed(RunResult(end: nil, kind: nil, failure: message, steps: stepsTaken))
    }

    /// Records what happened to the step's attempt limit, with the event prepared when the
    /// count is one the limit can reach.
    mutating func emitAttempt(_ step: CompiledStep, _ action: TranscriptEvent.AttemptAction, count: Int) {
        guard let attempts = step.attempts, !discardsRecords else { return }
        let limit = attempts.limit
        let encoded = attempts.event(action, count: count)
        guard keepsRecord(prepared: encoded != nil) else { return }
        emit(
            .attempt(step: step.id, limit: limit.name, action: action, count: count, max: maximum(of: limit)),
            encoded: encoded)
    }

    /// Gives the queued records to `sink`, in order, and empties the queue keeping its storage.
    mutating func drainRecords(into sink: any TranscriptSink) {
        guard !records.isEmpty else { return }
        // Each record is moved out to the sink, so none is copied on the way, and its slot
        // takes a record that holds nothing; emptying the queue then keeps its storage.
        records.withUnsafeMutableBufferPointer { records in
            let base = records.baseAddress!
            for i in records.indices { sink.record((base + i).move()) }
            base.initialize(repeating: Self.vacated, count: records.count)
        }
        records.removeAll(keepingCapacity: true)
    }

    /// Whether a record made now is kept, one whose JSON was prepared ahead (`prepared`) or
    /// not. Where making a record costs, it is asked first: an explorer keeps none of the
    /// prepared records of the millions of steps it plays, and makes none.
    func keepsRecord(prepared: Bool) -> Bool {
        !discardsRecords && !(prepared && discardsPrepared)
    }

    /// What a drained record's slot holds until the queue is emptied.
    private static let vacated = TranscriptRecord(time: 0, depth: 0, event: .restart)

    /// Records a transcript record, to the lent sink or the queue; `encoded` is the event's JSON when it was prepared ahead.
    ///
    /// While the caller discards records (``JourneyMachine/handleDiscardingRecords(_:)``), nothing
    /// is recorded: an explorer plays millions of steps and keeps none of their records.
    mutating func emit(_ event: consuming TranscriptEvent, encoded: consuming [UInt8]? = nil) {
        guard keepsRecord(prepared: encoded != nil) else { return }
        assert(
            encoded == nil || encoded == JSONLinesEncoder.encodedEvent(event),
            "a prepared event's JSON must be the event's own: \(event)")
        let record = TranscriptRecord(
            time: device.elapsed, depth: max(0, frames.count - 1), event: event, encoded: encoded)
        if lentSink == nil { records.append(record) } else { lentSink?.record(record) }
    }
}

// MARK: Limits

/// What a journey's limits are read from: the journey's state and the maximums computed when it
/// started, the device's store and its clock. The run reads its innermost journey's in place
/// (``JourneyMachine/Run``); ``JourneyMachine/FrameOnDevice`` and the names expressions read
/// (``JourneyMachine/Lookup``) read those of the frame they hold.
protocol LimitReading {
    /// The journey whose limits are read.
    var limitJourney: CompiledJourney { get }
    /// A variable of the journey's state.
    func stateValue(_ name: String) -> Value?
    /// A value in the device's store.
    func storedValue(_ name: String) -> Value?
    /// The maximum of a limit whose `max` is computed, as it was when the journey started.
    func computedMaximum(_ limit: String) -> Int?
    /// The device's clock, in milliseconds since 1970.
    var clockNow: Int { get }
}

extension LimitReading {
    /// A limit's count: its counter's value, or the counter's declared default while it was
    /// never written; 0 once a lockout has passed (the count starts again). A counter outside
    /// 0 to the maximum was not written by a run (a store changed by hand, or restored from an
    /// older state): below 0 it counts as 0, so it gives no attempts beyond the maximum, and
    /// above the maximum as the maximum, spent.
    func count(of limit: CompiledLimit) -> Int {
        if limit.lockedUntil != nil, lockedUntil(of: limit) > 0, !isLocked(limit) { return 0 }
        return min(max(int(limit.counter), 0), maximum(of: limit))
    }

    /// An int a limit keeps (its counter, the end of its lockout), or its declared default;
    /// 0 when it has neither.
    func int(_ ref: VariableReference) -> Int {
        let value: Value?
        switch ref.scope {
        case .state: value = stateValue(ref.name)
        case .stored:
            value = storedValue(ref.name) ?? limitJourney.stored.first { $0.name == ref.name }?.defaultValue
        }
        switch value {
        case .int(let n)?: return n
        case .secret(let inner)?:
            if case .int(let n) = inner.revealed { return n }
            return 0
        default: return 0
        }
    }

    /// A limit's maximum in the journey's run: written, or computed when the journey started.
    func maximum(of limit: CompiledLimit) -> Int {
        switch limit.max {
        case .fixed(let n): n
        case .computed: computedMaximum(limit.name) ?? NumberRange.attempts.lowerBound
        }
    }

    /// When a limit's lockout ends, in seconds since 1970; 0 when it has none.
    func lockedUntil(of limit: CompiledLimit) -> Int {
        guard let ref = limit.lockedUntil else { return 0 }
        return int(ref)
    }

    /// Whether a limit is locked out now, on the virtual clock.
    func isLocked(_ limit: CompiledLimit) -> Bool {
        let until = lockedUntil(of: limit)
        guard until > 0 else { return false }
        let (end, overflow) = until.multipliedReportingOverflow(by: 1000)
        return overflow || clockNow < end
    }

    /// What `limits.NAME.FIELD` reads of `limit`: its count, maximum, attempts remaining, and
    /// for a limit that locks out, whether it is locked and for how long.
    func value(of field: CompiledStep.VisitRead.LimitField, of limit: CompiledLimit) -> Value? {
        switch field {
        case .count: .int(count(of: limit))
        case .max: .int(maximum(of: limit))
        case .remaining: .int(max(0, maximum(of: limit) - count(of: limit)))
        case .locked: limit.lockout == nil ? nil : .bool(isLocked(limit))
        case .unlocksIn: limit.lockout == nil ? nil : .duration(unlocksIn(limit))
        }
    }

    /// How long until a limit's lockout ends, in milliseconds; 0 when it is not locked.
    func unlocksIn(_ limit: CompiledLimit) -> Int {
        guard isLocked(limit) else { return 0 }
        let (end, overflow) = lockedUntil(of: limit).multipliedReportingOverflow(by: 1000)
        return overflow ? Duration.maximum : min(Duration.maximum, end - clockNow)
    }
}

extension JourneyMachine.Run: LimitReading {
    var limitJourney: CompiledJourney { frames[frames.count - 1].journey }
    func stateValue(_ name: String) -> Value? { frames[frames.count - 1].state.value(named: name) }
    func storedValue(_ name: String) -> Value? { device.store.value(named: name) }
    func computedMaximum(_ limit: String) -> Int? { frames[frames.count - 1].maximums[limit] }
    var clockNow: Int { device.clock }
}

extension JourneyMachine {
    /// A frame of a machine's run, on its device: that journey's limits as it reads them. It
    /// holds the run's frames and store, not a copy of the frame and device.
    struct FrameOnDevice: LimitReading {
        private let frames: [Frame]
        private let index: Int
        private let store: [String: Value]
        let clockNow: Int

        /// Frame `index` of `machine`'s run.
        init(_ machine: borrowing JourneyMachine, frame index: Int) {
            frames = machine.run.frames
            self.index = index
            store = machine.run.device.store
            clockNow = machine.run.device.clock
        }

        /// The first frame of `machine`'s run that runs journey `id`, if one does.
        init?(_ machine: borrowing JourneyMachine, running id: String) {
            let frames = machine.run.frames
            guard let index = frames.indices.first(where: { frames[$0].journey.id == id }) else { return nil }
            self.init(machine, frame: index)
        }

        var limitJourney: CompiledJourney { frames[index].journey }
        func stateValue(_ name: String) -> Value? { frames[index].state.value(named: name) }
        func storedValue(_ name: String) -> Value? { store.value(named: name) }
        func computedMaximum(_ limit: String) -> Int? { frames[index].maximums[limit] }
    }
}

// MARK: Evaluating

extension JourneyMachine {
    static func initialState(_ journey: CompiledJourney) -> [String: Value] {
        var state: [String: Value] = [:]
        state.reserveCapacity(journey.state.count)
        for s in journey.state {
            state[s.name] = (s.defaultValue ?? Self.zero(s.type.type)).secret(if: s.type.secret)
        }
        return state
    }

    static func zero(_ type: ValueType) -> Value {
        switch type {
        case .string, .any: .string("")
        case .int: .int(0)
        case .bool: .bool(false)
        case .list: .list([])
        case .duration: .duration(0)
        }
    }

    /// Evaluates the maximums of a journey's limits written as expressions, when the journey
    /// starts; the message says why one cannot be used.
    static func evaluateMaximums(_ frame: inout Frame, device: DeviceState, library: CompiledLibrary) -> String? {
        // Most limits have a written maximum: nothing to evaluate, nothing to sort.
        guard frame.journey.computesMaximums else { return nil }
        for (name, limit) in frame.journey.limits.sorted(by: { $0.key < $1.key }) {
            guard case .computed(let template) = limit.max else { continue }
            let lookup = Lookup(frame: frame, device: device, library: library)
            let value: Value
            do {
                value = try template.evaluate(in: lookup)
            } catch {
                return "cannot evaluate 'max' of limit '\(name)' of \(frame.journey.id): \(error.message)"
            }
            guard case .int(let n) = value.revealed, NumberRange.attempts.contains(n) else {
                return
                    "'max' of limit '\(name)' of \(frame.journey.id) is \(value.displayText) (\(template.source)), outside 1 to 1000"
            }
            frame.maximums[name] = n
        }
        return nil
    }

    /// A step's screen with its texts in `locale` (falling back to `fallback`).
    static func render(
        _ screen: Screen?, _ conditions: [String: Expression], locale: String, fallback: String,
        _ lookup: some ValueProvider
    ) -> Result<RenderedScreen?, EvaluationError> {
        guard let screen else { return .success(nil) }
        func text(_ t: LocalizedText?) throws(EvaluationError) -> String? {
            guard let template = t?.template(for: locale, fallback: fallback) else { return nil }
            return try template.display(in: lookup)
        }
        do {
            let actions = try screen.actions.map { action throws(EvaluationError) in
                var enabled = action.enabled
                if enabled, let condition = conditions[action.id.value] {
                    enabled = try condition.evaluate(in: lookup).revealed == .bool(true)
                }
                return RenderedScreen.Action(
                    id: action.id.value, label: try text(action.label) ?? action.id.value, enabled: enabled)
            }
            let fields = try screen.fields.map { field throws(EvaluationError) in
                RenderedScreen.Field(
                    name: field.name.value, label: try text(field.label), kind: field.kind, required: field.required,
                    pattern: field.pattern?.value, minLength: field.minLength, maxLength: field.maxLength,
                    secret: field.secret)
            }
            return .success(
                RenderedScreen(
                    title: try text(screen.title), text: try text(screen.text), actions: actions, fields: fields))
        } catch {
            return .failure(error)
        }
    }

    static func evaluate(_ value: CompiledValue, _ lookup: some ValueProvider) -> Result<Value, EvaluationError> {
        switch value {
        case .constant(let v): return .success(v)
        case .template(let t):
            do { return .success(try t.evaluate(in: lookup)) } catch { return .failure(error) }
        case .list(let items):
            var values: [Value] = []
            var secret = false
            for item in items {
                switch evaluate(item, lookup) {
                case .success(let v):
                    secret = secret || v.isSecret
                    values.append(v.revealed)
                case .failure(let e): return .failure(e)
                }
            }
            return .success(Value.list(values).secret(if: secret))
        }
    }

    /// Reads names for expressions from a frame and device it holds: params, state, stored
    /// values, the device, inputs and outcome data. The run reads its own in place instead
    /// (``NameReading``).
    struct Lookup: NameReading {
        var frame: Frame
        var device: DeviceState
        /// Says which stored keys are secret in the project (``CompiledLibrary/isSecretStored(_:)``).
        let library: CompiledLibrary
        var inputs: [String: Value] = [:]
        var outcome: [String: Value] = [:]

        var limitJourney: CompiledJourney { frame.journey }
        func stateValue(_ name: String) -> Value? { frame.state.value(named: name) }
        func storedValue(_ name: String) -> Value? { device.store.value(named: name) }
        func computedMaximum(_ limit: String) -> Int? { frame.maximums[limit] }
        var clockNow: Int { device.clock }
        func paramValue(_ name: String) -> Value? { frame.params.value(named: name) }
        func inputValue(_ name: String) -> Value? { inputs.value(named: name) }
        func outcomeValue(_ name: String) -> Value? { outcome.value(named: name) }
        func deviceValue(_ name: String) -> Value? { device.value(named: name) }
    }

    /// What expressions read names from: a journey's params and state, with its limits
    /// (``LimitReading``), the device, and the input and outcome data of the result being
    /// handled. ``value(at:)`` reads them all the same way for each reader.
    protocol NameReading: ValueProvider, LimitReading {
        /// Says which stored keys are secret in the project (``CompiledLibrary/isSecretStored(_:)``).
        var library: CompiledLibrary { get }
        func paramValue(_ name: String) -> Value?
        func inputValue(_ name: String) -> Value?
        func outcomeValue(_ name: String) -> Value?
        /// `device.NAME` (``DeviceState/value(named:)``).
        func deviceValue(_ name: String) -> Value?
    }
}

extension JourneyMachine.NameReading {
    func value(at path: [String]) -> Value? {
        guard path.count >= 2 else { return nil }
        let name = path[1]
        switch path[0] {
        case "params": return paramValue(name)
        case "state": return stateValue(name)
        case "stored":
            let decl = limitJourney.stored.first { $0.name == name }
            let declared = decl.map { $0.defaultValue ?? JourneyMachine.zero($0.type.type) }
            guard let value = storedValue(name) ?? declared else { return nil }
            // Kept secret already, or secret where declared, or anywhere in the project.
            if value.isSecret || decl?.type.secret == true { return value.secret(if: true) }
            return value.secret(if: library.isSecretStored(name))
        case "input": return inputValue(name)
        case "outcome": return outcomeValue(name)
        case "device": return deviceValue(name)
        case "limits":
            guard path.count == 3, let limit = limitJourney.limits[name],
                let field = CompiledStep.VisitRead.LimitField(rawValue: path[2])
            else { return nil }
            return value(of: field, of: limit)
        default: return nil
        }
    }
}

/// The run reads the names of its innermost journey in place.
extension JourneyMachine.Run: JourneyMachine.NameReading {
    var library: CompiledLibrary { setup.library }
    func paramValue(_ name: String) -> Value? { frames[frames.count - 1].params.value(named: name) }
    func inputValue(_ name: String) -> Value? { given?.inputs.value(named: name) }
    func outcomeValue(_ name: String) -> Value? { given?.outcome.value(named: name) }
    func deviceValue(_ name: String) -> Value? { device.value(named: name) }
}

extension DeviceState {
    /// What `device.NAME` reads: the profile's biometry, enrolment, network, apps and links,
    /// and `now`, the clock in seconds since 1970.
    func value(named name: String) -> Value? {
        switch name {
        case "biometry": .string(profile.biometry.rawValue)
        case "biometryEnrolled": .bool(profile.biometryEnrolled)
        case "online": .bool(profile.online)
        case "apps": .list(profile.apps.map(Value.string))
        case "opensLinks": .bool(profile.opensLinks)
        case "now": .int(clock / 1000)
        default: nil
        }
    }
}
