/// A named, pluggable implementation of a step (`ui.screen`, `pin.create`, `oauth.authorize`, …).
///
/// A handler publishes its ``HandlerContract`` and runs one step at a time: it may ask the
/// driver for input and use the device through its ``HandlerContext``, and it returns one of
/// its declared outcomes. A handler that throws fails the journey with the error recorded in
/// the transcript; it never takes the process down.
///
/// `run` executes on its caller's executor (`nonisolated(nonsending)`), like the context's
/// `input` and `send` and the driver's `next`: a run is one sequence of steps, so there is
/// nothing to gain from hopping executors between them, and a step pays no hop.
///
/// A handler of your own is a value type with a contract and a `run`:
///
/// ```swift
/// import JourneyCore
///
/// struct GreetHandler: StepHandler {
///     let contract = HandlerContract(
///         id: "acme.greet", summary: "Greets the user by name.",
///         parameters: [ParameterSpec(name: "name", kind: .value(TypeInfo(.string)), required: true, summary: "who")],
///         outcomes: [OutcomeSpec(name: "greeted", summary: "the greeting was shown")])
///
///     nonisolated(nonsending) func run(
///         _ invocation: HandlerInvocation, context: HandlerContext
///     ) async throws -> HandlerResult {
///         let name = try invocation.text("name")
///         context.store("greeted", .string(name))
///         return HandlerResult("greeted")
///     }
/// }
/// ```
///
/// and joins the built-in handlers in the `journey` command line through
/// `JourneyCLI.main(handlers:)`, or in any other front end through a ``HandlerRegistry``.
public protocol StepHandler: Sendable {
    /// What the handler promises; `journey check` holds every step that names the handler to
    /// it. Read once per journey compiled, so it may be computed but should not change.
    var contract: HandlerContract { get }
    /// Runs one step: reads `invocation`'s parameters, asks the driver and uses the device
    /// through `context`, and returns one of the contract's outcomes. An outcome the contract
    /// does not declare, or a thrown error, fails the run with the message recorded.
    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult
}

/// Everything a handler gets for one step: evaluated parameters and the rendered screen.
///
/// Shared, not copied: the interpreter prepares the invocations of steps that never change
/// once, and handing one to a handler costs a reference.
public struct HandlerInvocation: Sendable {
    private final class Storage: Sendable {
        let journey: String
        let step: String
        let parameters: [String: Value]
        let maps: [String: [(key: String, value: String)]]
        let tables: [String: LiteralTables]
        let captures: [String: [Capture]]
        let screen: RenderedScreen?
        let contract: StepContract
        let displays: [String: String]
        let clockActions: Set<String>
        let request: InputRequest

        init(
            journey: String, step: String, parameters: [String: Value],
            maps: [String: [(key: String, value: String)]], tables: [String: LiteralTables],
            captures: [String: [Capture]], screen: RenderedScreen?, contract: StepContract, displays: [String: String],
            clockActions: Set<String>
        ) {
            self.journey = journey
            self.step = step
            self.parameters = parameters
            self.maps = maps
            self.tables = tables
            self.captures = captures
            self.screen = screen
            self.contract = contract
            self.displays = displays
            self.clockActions = clockActions
            self.request = InputRequest(journey: journey, step: step, inputs: contract.inputs, screen: screen)
        }
    }

    private let storage: Storage

    /// The id of the journey the step is in.
    public var journey: String { storage.journey }
    /// The step's id, for messages (`step 'risk' needs …`).
    public var step: String { storage.step }
    /// The step's `.value` parameters, evaluated, with the contract's defaults filled in.
    /// Secrets stay wrapped in ``Value/secret(_:)``; read them with ``subscript(parameter:)``,
    /// ``text(_:)``, ``int(_:)`` and the like.
    public var parameters: [String: Value] { storage.parameters }
    /// `.map` parameters as written, in order.
    public var maps: [String: [(key: String, value: String)]] { storage.maps }
    /// `.tables` parameters as written (a wait's routes per URL scheme).
    public var tables: [String: LiteralTables] { storage.tables }
    /// `.captures` parameters as compiled (a response's captures, with their declared types).
    public var captures: [String: [Capture]] { storage.captures }
    /// The step's screen rendered in the run's locale, if it has one.
    public var screen: RenderedScreen? { storage.screen }
    /// The handler's inputs and outcomes at this step (``HandlerContract/resolve(for:)``).
    public var contract: StepContract { storage.contract }
    /// For parameters written as templates that mix text with secrets: the text with each
    /// secret shown as `•••`, for handlers to record (a URL with a code in its path).
    public var displays: [String: String] { storage.displays }

    /// An invocation as the run makes it; a handler's own tests make one to call `run`
    /// directly.
    ///
    /// - Parameter clockActions: the screen's actions whose `enabled:` condition reads the
    ///   virtual clock, so that they may enable while the screen shows.
    public init(
        journey: String, step: String, parameters: [String: Value], maps: [String: [(key: String, value: String)]],
        tables: [String: LiteralTables] = [:], captures: [String: [Capture]] = [:], screen: RenderedScreen?,
        contract: StepContract, displays: [String: String] = [:], clockActions: Set<String> = []
    ) {
        storage = Storage(
            journey: journey, step: step, parameters: parameters, maps: maps, tables: tables, captures: captures,
            screen: screen, contract: contract, displays: displays, clockActions: clockActions)
    }

    /// The same visit showing `screen`: the step's screen rendered again as time passed.
    public func showing(_ screen: RenderedScreen) -> HandlerInvocation {
        HandlerInvocation(
            journey: journey, step: step, parameters: parameters, maps: maps, tables: tables, captures: captures,
            screen: screen, contract: contract, displays: displays, clockActions: storage.clockActions)
    }

    /// The parameter's value, or nil when it was not given and has no default.
    public subscript(parameter name: String) -> Value? { storage.parameters.value(named: name) }

    /// The screen's action with this id, if the step shows one.
    public func action(_ id: String) -> RenderedScreen.Action? {
        storage.screen?.actions.first { $0.id == id }
    }

    /// Whether the screen shows an action the user can press.
    public var hasEnabledAction: Bool { storage.screen?.actions.contains(where: \.enabled) ?? false }

    /// Whether the screen shows a disabled action that the virtual clock may enable while it
    /// shows (its `enabled:` condition reads the clock: a resend button after 60 s).
    public var hasActionEnabledLater: Bool {
        storage.screen?.actions.contains { !$0.enabled && storage.clockActions.contains($0.id) } ?? false
    }

    /// Whether the user can leave the screen by an action: one is enabled, or time may enable one.
    public var canBeLeft: Bool { hasEnabledAction || hasActionEnabledLater }

    /// An input request for this step asking for `inputs` (by default all the step's inputs).
    public func request(_ inputs: [InputSpec]? = nil) -> InputRequest {
        guard let inputs else { return storage.request }
        return InputRequest(journey: journey, step: step, inputs: inputs, screen: screen)
    }
}

/// The outcome a handler produced, with the data transitions can read as `outcome.NAME`.
///
/// The outcome must be one the step's contract declares (another fails the run), and the data
/// what its ``OutcomeSpec/data`` declares, of those types; data it does not declare is
/// dropped. Data declared secret is kept secret whether or not the handler wraps it in
/// ``Value/secret(_:)``: transcripts show `•••`.
public struct HandlerResult: Sendable, Hashable {
    /// The outcome's name, as journeys write it under `on:`.
    public var outcome: String
    /// The outcome's data by name, readable as `outcome.NAME`.
    public var data: [String: Value]

    /// The outcome `outcome`, carrying `data`.
    public init(_ outcome: String, data: [String: Value] = [:]) {
        self.outcome = outcome
        self.data = data
    }
}

/// A screen with its texts rendered in the run's locale. Secrets interpolated into texts are
/// already redacted.
public struct RenderedScreen: Sendable, Hashable {
    /// A button: its id (the outcome and the `action` input), its label, and whether the user
    /// can press it now.
    public struct Action: Sendable, Hashable {
        public var id: String
        public var label: String
        public var enabled: Bool

        public init(id: String, label: String, enabled: Bool) {
            self.id = id
            self.label = label
            self.enabled = enabled
        }
    }

    /// An input field of a form, with the rules the form checks.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var label: String?
        public var kind: FormField.Kind
        public var required: Bool
        public var pattern: String?
        public var minLength: Int?
        public var maxLength: Int?
        public var secret: Bool

        public init(
            name: String, label: String?, kind: FormField.Kind, required: Bool, pattern: String?, minLength: Int?,
            maxLength: Int?, secret: Bool
        ) {
            self.name = name
            self.label = label
            self.kind = kind
            self.required = required
            self.pattern = pattern
            self.minLength = minLength
            self.maxLength = maxLength
            self.secret = secret
        }
    }

    /// The screen's parts, ``Shared``: one reference for every event, request and invocation
    /// that shows the screen.
    private var parts: Shared<Parts>

    private struct Parts: Sendable, Hashable {
        var title: String?
        var text: String?
        var actions: [Action]
        var fields: [Field]
    }

    public var title: String? {
        get { parts.value.title }
        set { change { $0.title = newValue } }
    }
    public var text: String? {
        get { parts.value.text }
        set { change { $0.text = newValue } }
    }
    /// The buttons, in the order the journey writes them.
    public var actions: [Action] {
        get { parts.value.actions }
        set { change { $0.actions = newValue } }
    }
    /// A form's fields, in the order the journey writes them.
    public var fields: [Field] {
        get { parts.value.fields }
        set { change { $0.fields = newValue } }
    }

    /// A screen as the run renders it; a handler's own tests make one to give an invocation.
    public init(title: String?, text: String?, actions: [Action], fields: [Field]) {
        parts = Shared(Parts(title: title, text: text, actions: actions, fields: fields))
    }

    private mutating func change(_ body: (inout Parts) -> Void) {
        var changed = parts.value
        body(&changed)
        parts = Shared(changed)
    }
}

/// What a handler can do while it runs: ask the driver, use the device, wait on the clock,
/// draw random bytes. Handlers take time and randomness from here and from nowhere else.
///
/// A run is sequential: a handler uses its context only from its own `run` call.
public protocol HandlerContext: AnyObject {
    /// Asks the driver for input. Throws when the run is interrupted (for example by an app
    /// restart in the scenario); handlers must let that error propagate.
    nonisolated(nonsending) func input(_ request: InputRequest) async throws -> [String: Value]
    /// Asks the driver for input as ``input(_:)`` does, but gives up when the virtual clock
    /// reaches `deadline` (milliseconds since the Unix epoch) while the step waits: nil then.
    /// A screen that times out (a session locked after five idle minutes) asks this way.
    nonisolated(nonsending) func input(_ request: InputRequest, until deadline: Int) async throws -> [String: Value]?
    /// The simulated phone.
    var device: DeviceProfile { get }
    /// The virtual clock, in milliseconds since the Unix epoch: the only time a journey sees.
    var now: Int { get }
    /// When the step the handler runs was entered, on the virtual clock: how long the step has
    /// waited is `now - stepEnteredAt`. A handler that measures its step's time reads it here
    /// rather than noting `now` when it starts, because a run taken up again at a waiting step
    /// (an explorer's or a player's next move) starts the handler again.
    var stepEnteredAt: Int { get }
    /// Real time, in milliseconds since the Unix epoch: only for checking what a live server
    /// issued in its own time (an id_token's `exp` and `iat`), never for the journey's time,
    /// which is ``now``. The system's clock, or pinned by the run's configuration
    /// (``JourneyMachine/Configuration/wallClock``).
    var wallClock: Int { get }
    /// Where the handler takes random bytes from (salts, keys, PKCE verifiers, `state` and
    /// `nonce`), drawing with `using: &context.random`: the system's secure generator, or, in a
    /// run configured with a seed (``JourneyMachine/Configuration/random``), a deterministic one
    /// that makes exploration reproducible and is never for security. Handlers take randomness
    /// from nowhere else.
    var random: RandomSource { get set }
    /// Lets `milliseconds` pass on the virtual clock; recorded in the transcript.
    func wait(milliseconds: Int, reason: String)
    /// A value in the device's persistent store.
    func stored(_ key: String) -> Value?
    /// The keys in the device's persistent store, sorted.
    var storedKeys: [String] { get }
    /// Writes (or with nil removes) a value in the device's persistent store; recorded.
    func store(_ key: String, _ value: Value?)
    /// The request as the step shows it now: with its screen rendered again when the virtual
    /// clock moved on while the step waited (an action that enables after 60 s). What the
    /// driver was asked with and what input is checked against (``InputRequest/refusal(of:)``).
    func current(_ request: InputRequest) -> InputRequest
    /// Whether ``input(_:)`` gives only input the step takes: it refuses, as the app would, an
    /// action the screen does not show enabled (``InputRequest/refusal(of:)``), so a handler
    /// need not check it again. False unless the context says so.
    var refusesInput: Bool { get }
    /// Charges the step's attempt limit (if it has one) and writes the counter to the device
    /// now. Handlers that check a secret call this after reading the input and before
    /// comparing, so that no restart can undo a failed attempt. Steps whose handler does not
    /// call it are charged when a counted outcome arrives.
    func chargeAttempt()
    /// Sends an HTTP request through the run's transport. Recorded in the transcript as
    /// method, URL (query values redacted) and status; headers and bodies never are, because
    /// they carry tokens. Throws ``NetworkError/offline`` when the device is offline.
    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HandlerContext {
    /// A context that runs one handler at a time from the start of its step: the step began
    /// when the handler did, as far as it can tell.
    public var stepEnteredAt: Int { now }

    /// A context whose screens never change while they show gives the request as it is.
    public func current(_ request: InputRequest) -> InputRequest { request }

    /// A context checks nothing its driver gives unless it says so: handlers check it.
    public var refusesInput: Bool { false }

    /// A context whose clock the driver never moves never reaches a deadline.
    public nonisolated(nonsending) func input(
        _ request: InputRequest, until deadline: Int
    ) async throws -> [String: Value]? {
        try await input(request)
    }
}

/// A request for input: which step is asking, and what it needs. Shared, not copied, like
/// the invocation it usually comes from.
public struct InputRequest: Sendable, Hashable {
    /// The request's parts, ``Shared``.
    private let parts: Shared<Parts>

    private struct Parts: Sendable, Hashable {
        let journey: String
        let step: String
        let inputs: [InputSpec]
        let screen: RenderedScreen?
    }

    /// The id of the journey whose step asks.
    public var journey: String { parts.value.journey }
    /// The step that asks; a scenario's `at:` names it.
    public var step: String { parts.value.step }
    /// What the step asks for; a scenario gives values under these names.
    public var inputs: [InputSpec] { parts.value.inputs }
    /// The screen the user sees while asked, if the step has one.
    public var screen: RenderedScreen? { parts.value.screen }

    /// A request; handlers usually take theirs from ``HandlerInvocation/request(_:)``.
    public init(journey: String, step: String, inputs: [InputSpec], screen: RenderedScreen?) {
        parts = Shared(Parts(journey: journey, step: step, inputs: inputs, screen: screen))
    }
}

/// Errors a handler throws for problems it finds in its input: the run fails and records
/// `message` in the transcript. The message is shown as it is, so it must never hold a
/// secret's value: name the parameter or input, not what it holds.
public struct HandlerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the transcript and the report.
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
