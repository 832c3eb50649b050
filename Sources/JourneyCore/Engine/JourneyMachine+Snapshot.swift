extension JourneyMachine {
    /// Where a run is, as a value to compare and hash: the frames (each journey's step, params
    /// and state), the device's store and profile, the charge of the current visit's attempt
    /// limit, and the phase: what tells two runs apart, for tests and tools to compare. The
    /// explorer writes the same content as compact bytes (``StateEncoder``), with what its
    /// abstraction leaves out.
    ///
    /// What only grows (the steps taken, the absolute virtual clock, the position of a seeded
    /// random stream) can be left out, so two
    /// paths that reach the same step with the same data have equal snapshots however long they
    /// took. Time a journey itself keeps (a stored timestamp) is data and stays in.
    public struct Snapshot: Hashable, Sendable {
        /// One running journey; the root comes first.
        public struct Frame: Hashable, Sendable {
            public var journey: String
            /// The step the journey is at (for a caller, the step that calls the next frame); nil
            /// for a journey without steps.
            public var step: String?
            public var params: [String: Value]
            public var state: [String: Value]
        }

        /// Where the run is in its life.
        public enum Phase: Hashable, Sendable {
            /// Not started.
            case idle
            /// At a step whose handler is to run (the innermost frame's step).
            case atStep
            /// The root journey reached an end.
            case finished(end: String, kind: EndKind)
            /// The run failed, with this message.
            case failed(String)
        }

        public var phase: Phase
        public var frames: [Frame]
        /// The device's persistent store.
        public var store: [String: Value]
        /// The phone: biometry, network, installed apps.
        public var device: DeviceProfile
        /// Whether the current step visit has charged its attempt limit (a restart now keeps
        /// the charge; an outcome that neither counts nor resets gives it back).
        public var attemptCharged: Bool
        /// Steps entered since the run started; nil when growth is left out.
        public var stepsTaken: Int?
        /// The virtual clock, in milliseconds since the Unix epoch; nil when growth is left out.
        public var clock: Int?
        /// The stream handlers draw from next (its position, when seeded); nil when growth is
        /// left out.
        public var random: RandomSource?
    }

    /// Where the run is now.
    ///
    /// - Parameter includingGrowth: whether to keep what only grows (steps taken, the absolute
    ///   clock, the random stream's position). Leave it out to find states that different paths share.
    public func snapshot(includingGrowth: Bool = true) -> Snapshot {
        let phase: Snapshot.Phase
        switch state {
        case .idle: phase = .idle
        case .atStep: phase = .atStep
        case .ended(let result):
            if let end = result.end, let kind = result.kind {
                phase = .finished(end: end, kind: kind)
            } else {
                phase = .failed(result.failure ?? "")
            }
        }
        return Snapshot(
            phase: phase,
            frames: run.frames.indices.map { index in
                let frame = run.frames[index]
                let step = run.step(of: index)
                return Snapshot.Frame(
                    journey: frame.journey.id,
                    step: frame.journey.steps.indices.contains(step) ? frame.journey.steps[step].id : nil,
                    params: frame.params, state: frame.state)
            },
            store: run.device.store, device: run.device.profile, attemptCharged: run.attemptCharged,
            stepsTaken: includingGrowth ? run.stepsTaken : nil, clock: includingGrowth ? run.device.clock : nil,
            random: includingGrowth ? run.random : nil)
    }
}
