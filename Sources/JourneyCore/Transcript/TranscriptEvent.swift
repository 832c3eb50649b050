/// One entry of a transcript: what happened, when on the virtual clock, and how deep in
/// sub-journeys. Values are ``Value``s, so secrets stay redacted whatever renders them.
public struct TranscriptRecord: Sendable, Equatable {
    /// Milliseconds since the run started, on the virtual clock.
    public var time: Int
    /// 0 for the root journey, 1 inside a sub-journey it calls, and so on.
    public var depth: Int
    /// What happened (fixed once recorded, so its prepared JSON cannot go stale).
    public let event: TranscriptEvent
    /// The event's JSON, prepared when the journey was compiled for events that never change
    /// between visits (entering a step, a screen without templates, a transition): everything
    /// after `"depth":N,` up to and including the newline. ``JSONLinesEncoder`` copies it
    /// instead of encoding the event again. Not part of the record's identity.
    let encodedEvent: [UInt8]?

    public init(time: Int, depth: Int, event: TranscriptEvent) {
        self.time = time
        self.depth = depth
        self.event = event
        self.encodedEvent = nil
    }

    init(time: Int, depth: Int, event: TranscriptEvent, encoded: [UInt8]?) {
        self.time = time
        self.depth = depth
        self.event = event
        self.encodedEvent = encoded
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.time == rhs.time && lhs.depth == rhs.depth && lhs.event == rhs.event
    }
}

/// The transcript event vocabulary; `schemas/transcript.schema.json` describes its JSON form.
public enum TranscriptEvent: Sendable, Equatable {
    public typealias Fields = [Pair]

    /// A name and a value, kept in order so output is deterministic.
    public struct Pair: Sendable, Equatable {
        public var name: String
        public var value: Value
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    public struct Header: Sendable, Equatable {
        public var journey: String
        public var scenario: String?
        public var locale: String
        public var device: DeviceProfile
        public var clock: Int
        public var store: Fields
        /// Run settings that change behaviour and must be visible (for example a lowered
        /// key-derivation cost in tests).
        public var settings: Fields

        public init(
            journey: String, scenario: String?, locale: String, device: DeviceProfile, clock: Int, store: Fields,
            settings: Fields = []
        ) {
            self.journey = journey
            self.scenario = scenario
            self.locale = locale
            self.device = device
            self.clock = clock
            self.store = store
            self.settings = settings
        }
    }

    public enum AttemptAction: String, Sendable, Equatable, CaseIterable {
        case charged, refunded, reset, exceeded
        /// A step of a limit that locks out was entered while locked: the journey goes to the
        /// limit's `exceeded` target without showing the step.
        case locked
        /// A step of the limit was entered after its lockout ended: the count starts again at 0.
        case unlocked
    }

    case header(Header)
    case journeyStart(journey: String, params: Fields)
    case journeyEnd(journey: String, end: String, kind: EndKind, steps: Int)
    case subjourneyEnter(journey: String, step: String, params: Fields)
    case subjourneyExit(journey: String, end: String, kind: EndKind, outputs: Fields)
    case stepEnter(step: String, handler: String)
    case screen(step: String, screen: RenderedScreen)
    /// The screen a step shows changed while it waited for input, because the virtual clock
    /// moved on (a text that counts down, an action that enables after a while).
    case screenUpdated(step: String, screen: RenderedScreen)
    case input(step: String, values: Fields)
    /// Input the app refused (an action that is disabled or not shown), as a scenario said it
    /// would: the step asks again.
    case inputRefused(step: String, values: Fields, reason: String)
    case handlerCall(step: String, handler: String, params: Fields)
    case handlerError(step: String, handler: String, message: String)
    case outcome(step: String, outcome: String, data: Fields)
    case attempt(step: String, limit: String, action: AttemptAction, count: Int, max: Int)
    case stateSet(variable: String, value: Value)
    case transition(from: String, outcome: String, branch: String, to: String)
    case restart
    /// A scenario's next session: after the journey's end, the app is launched again with the
    /// device (store, clock) as the previous session left it.
    case session(number: Int)
    case clockAdvance(milliseconds: Int, reason: String)
    /// The device's network came back or went away.
    case network(online: Bool)
    /// A handler's HTTP exchange: the URL with query values redacted, and the status (or the
    /// reason there was none). Headers and bodies are never recorded.
    case http(step: String, method: String, url: String, status: Int?, error: String?)
    case failure(step: String?, message: String)

    /// The event's name in JSON and text.
    public var name: String {
        switch self {
        case .header: "transcript"
        case .journeyStart: "journey.start"
        case .journeyEnd: "journey.end"
        case .subjourneyEnter: "subjourney.enter"
        case .subjourneyExit: "subjourney.exit"
        case .stepEnter: "step.enter"
        case .screen: "screen"
        case .screenUpdated: "screen.updated"
        case .input: "input"
        case .inputRefused: "input.refused"
        case .handlerCall: "handler.call"
        case .handlerError: "handler.error"
        case .outcome: "outcome"
        case .attempt: "attempt"
        case .stateSet: "state.set"
        case .transition: "transition"
        case .restart: "restart"
        case .session: "session"
        case .clockAdvance: "clock.advance"
        case .network: "network"
        case .http: "http"
        case .failure: "failure"
        }
    }
}

extension TranscriptEvent.Fields {
    /// Fields from a dictionary, sorted by name.
    public static func sorted(_ values: [String: Value]) -> Self {
        var pairs = values.map { TranscriptEvent.Pair($0.key, $0.value) }
        if pairs.count > 1 { pairs.sort { $0.name < $1.name } }
        return pairs
    }
}

/// Where a run writes its transcript, one record at a time (so a long suite never holds
/// transcripts in memory).
public protocol TranscriptSink: AnyObject {
    func record(_ record: TranscriptRecord)
    /// Whether the sink keeps nothing, so that a run need not make records for it at all.
    var discardsRecords: Bool { get }
    /// Whether the sink keeps nothing of an event prepared when the journey was compiled (its
    /// JSON written ahead, ``TranscriptRecord/encodedEvent``), so that a run need not make
    /// records of those.
    var discardsPrepared: Bool { get }
}

extension TranscriptSink {
    public var discardsRecords: Bool { false }
    public var discardsPrepared: Bool { false }
}

/// Keeps one run's records in memory (the docs walk through them); stream longer runs.
public final class TranscriptBuffer: TranscriptSink {
    public private(set) var records: [TranscriptRecord] = []
    public init() {}
    public func record(_ record: TranscriptRecord) { records.append(record) }
}
