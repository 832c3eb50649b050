/// What a handler promises: the parameters it takes, the inputs it asks the driver for, the
/// outcomes it can produce and which values are secret. Journeys may only use declared
/// outcomes, and must handle every one of them.
///
/// `journey check` holds every step that names the handler to its contract, each problem at
/// its line and column: a parameter it does not declare, a required one missing, a value of
/// another type or outside its range, a secret passed where it may not be, an outcome it does
/// not produce, one it does that no transition handles; and in scenarios, an input the step
/// does not ask for.
public struct HandlerContract: Sendable {
    /// The name journeys write after `handler:`, such as `acme.riskScore`: one id per handler
    /// (``HandlerRegistry`` refuses a second with the same id). Prefix yours with your
    /// company's or app's name so that they never clash with JourneyKit's (`ui.`, `pin.`, …).
    public var id: String
    /// One sentence for the docs and for `journey docs`' pages.
    public var summary: String
    /// The parameters a step gives under `with:`.
    public var parameters: [ParameterSpec]
    /// What the handler asks the driver for; a scenario's script gives them at the step.
    public var inputs: [InputSpec]
    /// What the handler can end the step with; a journey handles each under `on:`.
    public var outcomes: [OutcomeSpec]
    /// Whether each enabled screen action is both an input choice and an outcome.
    public var actionsAreOutcomes: Bool
    /// Refines inputs and outcomes from the step's screen and static parameters (for example
    /// a form's fields, or a wait's routes). Called once, when a journey is compiled.
    public var refine: (@Sendable (StepShape, inout StepContract) -> Void)?
    /// What ``refine`` does to the inputs, said as data: each input it adds, with when a step
    /// has it. An input of ``inputs`` listed again is one `refine` takes away, and its
    /// ``Presence`` says when a step keeps it. The handler reference (`journey handlers`) reads
    /// this, since it describes every step of the handler at once and never calls `refine`.
    public var refinedInputs: [Conditional<InputSpec>]
    /// What ``refine`` does to the outcomes, said as data, as ``refinedInputs`` says it of the
    /// inputs; the per-handler schema also reads it to tell which outcomes a step's `on:` may
    /// and must name. Nil when a contract with a `refine` does not say: a step may then have
    /// outcomes no reference lists, and its `on:` is not limited.
    public var refinedOutcomes: [Conditional<OutcomeSpec>]?
    /// The handler opens a key or a seal the device keeps and the user's answer unlocks (a sealed
    /// PIN, the Locker's vault under its password; not keys the device opens on its own):
    /// a biometric success that reaches a success end passes a step of such a handler, or
    /// `journey check` warns (``AuthRule/biometryWithoutKey``).
    public var releasesKey: Bool
    /// The outcomes with which a step of a ``releasesKey`` handler has opened its key
    /// (`pin.verify`'s `correct`, `locker.easyAccess`' `unlocked`); a path on from any other
    /// (`missing`, `wrong`) has opened nothing. Empty: every outcome counts.
    public var keyOutcomes: [String] = []
    /// The outcomes with which a step of this handler has verified a credential the user gave
    /// (`pin.verify`'s `correct`: the PIN opened its seal); empty for a handler that verifies
    /// none. A journey with such a step is held to ``ExplorationInvariant/credentialBeforeSuccess``.
    public var verifiedOutcomes: [String] = []
    /// How a step of this handler checks a credential the user gave and may give again (a PIN,
    /// a password, a one-time code, a biometric match), when it does one: the outcomes with which
    /// it took the credential and those with which it refused it. `journey check` holds an
    /// attempt limit on such a step to count every refusal and to be set back only by a success
    /// (``AuthRule/uncountedFailure``).
    public var credentialCheck: CredentialCheck?
    /// Whether a step of the handler answers the same way every time it runs with the same
    /// invocation, inputs and device (its randomness and time taken from its context). Built-in
    /// handlers are; a handler program is when its project file says so. `journey explore`
    /// judges where a step leads only for a deterministic handler.
    public var deterministic = true
    /// Whether the handler reads how long its step has waited (``HandlerContext/stepEnteredAt``:
    /// `app.background`'s time away). `journey explore` then tells apart situations at such a
    /// step by that time too, as far as the journey's durations can tell it.
    public var readsTimeAtStep = false
    /// Whether a step of the handler may read or write any key of the device store, not only
    /// those its parameters name (``ParameterSpec/storeKey``): `session.clear`, which removes
    /// every key it does not keep, and handler programs. `journey check` then takes every key a
    /// scenario's device starts with to be read.
    public var touchesEveryStoredKey = false

    /// Whether a step of the handler may wait for input: it declares an input, its screen's
    /// actions are its outcomes, or a refinement may add inputs. A handler that takes none
    /// never waits (`flow.decide`, `pin.save`).
    public var takesInput: Bool {
        !inputs.isEmpty || !refinedInputs.isEmpty || actionsAreOutcomes || refine != nil
    }

    /// A contract; only `id` and `summary` are needed for a handler that takes nothing, asks
    /// nothing and has no outcome of its own (a screen whose actions are its outcomes).
    public init(
        id: String, summary: String, parameters: [ParameterSpec] = [], inputs: [InputSpec] = [],
        outcomes: [OutcomeSpec] = [], actionsAreOutcomes: Bool = false,
        refinedInputs: [Conditional<InputSpec>] = [], refinedOutcomes: [Conditional<OutcomeSpec>]? = nil,
        releasesKey: Bool = false, keyOutcomes: [String] = [], verifiedOutcomes: [String] = [],
        credentialCheck: CredentialCheck? = nil,
        readsTimeAtStep: Bool = false,
        refine: (@Sendable (StepShape, inout StepContract) -> Void)? = nil
    ) {
        self.id = id
        self.summary = summary
        self.parameters = parameters
        self.inputs = inputs
        self.outcomes = outcomes
        self.actionsAreOutcomes = actionsAreOutcomes
        self.refinedInputs = refinedInputs
        self.refinedOutcomes = refinedOutcomes
        self.releasesKey = releasesKey
        self.keyOutcomes = keyOutcomes
        self.verifiedOutcomes = verifiedOutcomes
        self.credentialCheck = credentialCheck
        self.readsTimeAtStep = readsTimeAtStep
        self.refine = refine
    }

    /// The outcomes with which a step checked a credential the user may give again
    /// (``HandlerContract/credentialCheck``).
    public struct CredentialCheck: Sendable, Hashable {
        /// The credential was right: `pin.verify`'s `correct`.
        public var accepted: [String]
        /// The credential was wrong: `pin.verify`'s `wrong`.
        public var refused: [String]

        public init(accepted: [String], refused: [String]) {
            self.accepted = accepted
            self.refused = refused
        }
    }

    /// Whether every outcome a step of this handler can have is described: there is no
    /// ``refine``, or it says what it does (``refinedOutcomes``). Screen actions aside, which
    /// ``actionsAreOutcomes`` says.
    public var describesOutcomes: Bool { refine == nil || refinedOutcomes != nil }

    /// Every input a step of this handler can ask for, each with when: ``inputs`` in order
    /// (with the presence ``refinedInputs`` gives one it lists again), then the inputs
    /// ``refine`` adds. The screen's `action` aside, which ``actionsAreOutcomes`` says.
    public var describedInputs: [Conditional<InputSpec>] {
        Self.described(inputs, refinedInputs, name: \.name)
    }

    /// Every outcome a step of this handler can have, each with when, as ``describedInputs``
    /// gives the inputs; one per screen action aside, which ``actionsAreOutcomes`` says.
    public var describedOutcomes: [Conditional<OutcomeSpec>] {
        Self.described(outcomes, refinedOutcomes ?? [], name: \.name)
    }

    private static func described<Item>(
        _ fixed: [Item], _ refined: [Conditional<Item>], name: KeyPath<Item, String>
    ) -> [Conditional<Item>] {
        var result = fixed.map { item in
            refined.first { $0.item[keyPath: name] == item[keyPath: name] } ?? Conditional(item, .always)
        }
        for variant in refined where !fixed.contains(where: { $0[keyPath: name] == variant.item[keyPath: name] }) {
            result.append(variant)
        }
        return result
    }

    /// The inputs and outcomes of this handler at one step.
    public func resolve(for shape: StepShape) -> StepContract {
        var result = StepContract(inputs: inputs, outcomes: outcomes)
        if actionsAreOutcomes {
            let enabled = shape.actions.filter(\.enabled).map(\.id)
            if !enabled.isEmpty {
                result.inputs.append(
                    InputSpec(
                        name: "action", type: TypeInfo(.string), summary: "the action the user takes", classes: enabled)
                )
            }
            for action in shape.actions {
                result.outcomes.append(
                    OutcomeSpec(name: action.id, summary: "the user chose '\(action.id)'", optional: !action.enabled))
            }
        }
        refine?(shape, &result)
        return result
    }
}

/// When a step has an input or an outcome that depends on how the step is written: what a
/// contract's ``HandlerContract/refine`` does, said as data for readers and schemas that
/// describe every step of a handler at once. Parameters are those the step writes under
/// `with:`, literally or as a template; a default does not count as written.
public enum Presence: Sendable, Hashable {
    /// Every step has it.
    case always
    /// A step that writes the parameter.
    case given(String)
    /// A step that does not write the parameter.
    case absent(String)
    /// A step that writes the parameter as the literal `true`.
    case isTrue(String)
    /// A step that writes the parameter as anything but the literal `false` (`true`, or a
    /// template decided when the step runs).
    case notFalse(String)
    /// A step whose map parameter has no entry with this key (not written at all counts).
    case lacksKey(String, key: String)
    /// One for each field of the step's screen (`screen.fields`), named after it.
    case eachField
    /// One for each key of the map or tables parameter, named after it (a wait's routes).
    case eachKey(String)
    /// One for each text of the map parameter, named after it.
    case eachText(String)

    /// Whether the item's name is the journey's own, one per field, key or text, rather than
    /// the contract's.
    public var namedByJourney: Bool {
        switch self {
        case .eachField, .eachKey, .eachText: true
        default: false
        }
    }
}

/// An input or outcome with when a step has it.
public struct Conditional<Item: Sendable & Hashable>: Sendable, Hashable {
    public var item: Item
    public var presence: Presence

    public init(_ item: Item, _ presence: Presence) {
        self.item = item
        self.presence = presence
    }
}

/// The inputs and outcomes a handler has at one particular step.
public struct StepContract: Sendable {
    public var inputs: [InputSpec]
    public var outcomes: [OutcomeSpec]
    /// Whether this step's handler reads how long the step has waited, where not every step of
    /// the handler does (a screen given a `timeout`): as ``HandlerContract/readsTimeAtStep``,
    /// for this step.
    public var readsTimeAtStep = false

    public init(inputs: [InputSpec], outcomes: [OutcomeSpec]) {
        self.inputs = inputs
        self.outcomes = outcomes
    }

    /// The outcome with this name, if the step has it.
    public func outcome(named name: String) -> OutcomeSpec? { outcomes.first { $0.name == name } }
    /// The input with this name, if the step asks for it.
    public func input(named name: String) -> InputSpec? { inputs.first { $0.name == name } }
}

/// The static shape of a step, as a contract sees it when a journey is compiled.
public struct StepShape: Sendable {
    /// A screen action: its id, and whether it can ever be pressed (`enabled: false` cannot).
    public struct Action: Sendable, Hashable {
        public var id: String
        public var enabled: Bool

        public init(id: String, enabled: Bool) {
            self.id = id
            self.enabled = enabled
        }
    }

    /// A form field: its name, its kind and whether what is typed into it is secret.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var kind: FormField.Kind
        public var secret: Bool

        public init(name: String, kind: FormField.Kind, secret: Bool) {
            self.name = name
            self.kind = kind
            self.secret = secret
        }
    }

    public var actions: [Action]
    public var fields: [Field]
    /// Parameters written as literal maps, in the order written (e.g. a response's captures).
    public var maps: [String: [(key: String, value: String)]]
    /// `.tables` parameters, table by table in the order written (e.g. a wait's routes per
    /// URL scheme); a plain map is one table named `*`.
    public var tables: [String: LiteralTables]
    /// `.captures` parameters, in the order written.
    public var captures: [String: [Capture]]
    /// Parameters written as literals (not templates), with their values.
    public var constants: [String: Value]
    /// The names of all parameters the step gives.
    public var given: Set<String>

    public init(
        actions: [Action] = [], fields: [Field] = [], maps: [String: [(key: String, value: String)]] = [:],
        tables: [String: LiteralTables] = [:], captures: [String: [Capture]] = [:], constants: [String: Value] = [:],
        given: Set<String> = []
    ) {
        self.actions = actions
        self.fields = fields
        self.maps = maps
        self.tables = tables
        self.captures = captures
        self.constants = constants
        self.given = given.union(constants.keys).union(maps.keys).union(tables.keys).union(captures.keys)
    }
}

/// A parameter a handler takes under a step's `with:`: its name, what it may be, and how
/// transcripts show it.
public struct ParameterSpec: Sendable {
    public enum Kind: Sendable, Hashable {
        /// A value of a type; written as a literal or a `${…}` template.
        case value(TypeInfo)
        /// A literal map of names to texts, read when the journey is compiled.
        case map
        /// A literal map of names to texts, or of names to such maps: one table per name (a
        /// wait's routes, one table per URL scheme). A plain map of texts is one table that
        /// serves every name, kept under `*`.
        case tables
        /// A literal map of names to ``Capture``s, each a JSON path (of type `any`) or
        /// `{ path, type, secret }`, read when the journey is compiled (a response's captures).
        case captures
    }

    /// What a key or a text of a literal map must be. `journey check` reports anything else at
    /// the line and column it is written.
    public enum TextRule: Sendable, Hashable {
        /// Any text.
        case any
        /// A name journeys can write as an outcome: a letter, then letters, digits, `_` or `-`.
        case id
        /// A URL scheme (a letter, then letters, digits, `+`, `-` or `.`), or `*` for every
        /// scheme not named.
        case scheme
        /// One of these words.
        case oneOf([String])
    }

    /// The name a step writes under `with:`.
    public var name: String
    /// What the parameter is: a value of a type (a secret type for a PIN or a token), or a
    /// literal map read when the journey is compiled.
    public var kind: Kind
    /// A step that names the handler must give it; `journey check` says so otherwise.
    public var required: Bool
    /// The value the handler sees when the step does not give one.
    public var defaultValue: Value?
    /// A few words for the docs: what the parameter is for.
    public var summary: String
    /// The parameter may be computed from a secret (a URL with a code in it); it then stays
    /// secret and is shown redacted. A type marked secret is secret however it is written:
    /// literally or as a template of values that are not secret themselves.
    public var mayBeSecret: Bool
    /// For `int` and `duration` (in milliseconds) parameters: the values the handler accepts.
    /// `journey check` reports a literal outside it; a template's value outside it fails the
    /// step with a message.
    public var range: ClosedRange<Int>?
    /// The parameter names a device store key that the handler keeps a secret under (a sealed
    /// PIN): values stored under that key are secret in every journey and every output.
    public var namesSecretStoreKey: Bool
    /// Whether the parameter names a device store key the handler reads or writes (a sealed
    /// PIN's key, where a choice is kept): `journey docs` lists `stored.KEY` among what a
    /// journey reads and writes, for a key written as text.
    public var storeKey: StoreKeyUse = []
    /// What transcripts show for the parameter instead of its value, for values that must never
    /// be recorded whatever they are built from (an HTTP body: its size; headers: their names).
    public var shown: (@Sendable (Value) -> Value)?
    /// For `.map`, `.tables` and `.captures` parameters: what each key (and for the first two,
    /// each text) must be.
    public var keys: TextRule
    public var texts: TextRule
    /// For `.tables` parameters written as a map of maps: what each table's name must be.
    public var tableNames: TextRule
    /// For values with a form of their own (key pins): what is wrong with a value, or nil when
    /// it is right. `journey check` reports a literal that breaks it; a template's value that
    /// breaks it fails the step with the message, like ``range``.
    public var check: (@Sendable (Value) -> String?)?
    /// The parameter names one of the step's screen actions (a form's submit). `journey check`
    /// reports a literal that names none of them, and a step that gives none when its default
    /// names none.
    public var namesAction: Bool

    /// What a handler does with the device store key a parameter names.
    public struct StoreKeyUse: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let reads = StoreKeyUse(rawValue: 1)
        public static let writes = StoreKeyUse(rawValue: 2)
    }

    public init(
        name: String, kind: Kind, required: Bool = false, defaultValue: Value? = nil, summary: String,
        mayBeSecret: Bool = false, range: ClosedRange<Int>? = nil, namesSecretStoreKey: Bool = false,
        storeKey: StoreKeyUse = [],
        shown: (@Sendable (Value) -> Value)? = nil, keys: TextRule = .any, texts: TextRule = .any,
        tableNames: TextRule = .any, check: (@Sendable (Value) -> String?)? = nil, namesAction: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.required = required
        self.defaultValue = defaultValue
        self.summary = summary
        self.mayBeSecret = mayBeSecret
        self.range = range
        self.namesSecretStoreKey = namesSecretStoreKey
        self.storeKey = storeKey
        self.shown = shown
        self.keys = keys
        self.texts = texts
        self.tableNames = tableNames
        self.check = check
        self.namesAction = namesAction
    }
}

/// Something a handler asks the driver for: an action, a PIN, what the OS answers. A scenario
/// gives it under its name at the step (`- at: risk` then `attestation: valid`); `journey
/// check` refuses a name the step does not ask for.
public struct InputSpec: Sendable, Hashable {
    public var name: String
    /// The value's type; a secret type keeps what the user typed out of every transcript.
    public var type: TypeInfo
    /// A few words for the docs: what the driver gives.
    public var summary: String
    /// The finite classes of this input, when it has them (the actions of a screen, "the right
    /// PIN" and "a wrong PIN"), so that journeys can be explored exhaustively.
    public var classes: [String]
    /// For URLs: transcripts show the URL with its query and fragment values redacted, where
    /// codes, tokens and state travel.
    public var redactsQuery: Bool
    /// The keys it is typed with, when they are few (a PIN pad's digits and delete): `journey
    /// check` refuses a scenario that types another, which the run would refuse.
    public var keys: Set<Character>?
    /// For a pad that advances by itself once it has as many keys as a parameter of the step
    /// says (a PIN pad's `length`): `journey check` counts what a scenario types against it,
    /// where the step gives that parameter as a constant, as the run would.
    public var pad: KeyPad?

    public init(
        name: String, type: TypeInfo, summary: String, classes: [String] = [], redactsQuery: Bool = false,
        keys: Set<Character>? = nil, pad: KeyPad? = nil
    ) {
        self.name = name
        self.type = type
        self.summary = summary
        self.classes = classes
        self.redactsQuery = redactsQuery
        self.keys = keys
        self.pad = pad
    }
}

/// A pad that takes as many keys as a step parameter says and then advances by itself, with
/// keys that delete the last one typed (a PIN pad: its `length` digits, and `⌫`).
public struct KeyPad: Sendable, Hashable {
    /// The step parameter whose value is how many keys the pad takes.
    public var lengthParameter: String
    /// The keys that delete the last key typed.
    public var delete: Set<Character>

    public init(lengthParameter: String, delete: Set<Character>) {
        self.lengthParameter = lengthParameter
        self.delete = delete
    }

    /// What typing `keys` on a pad of `length` comes to: the keys left once deletes are
    /// applied, or that the pad advanced with keys still to type. The run (a PIN pad) and
    /// `journey check` (counting what a scenario types) both type through this.
    public enum Entered: Equatable, Sendable {
        case keys([Character])
        case advancedEarly(leftOver: Int)
    }

    public func entered(_ keys: String, length: Int) -> Entered {
        var kept: [Character] = []
        for (index, key) in keys.enumerated() {
            if kept.count == length { return .advancedEarly(leftOver: keys.count - index) }
            if delete.contains(key) {
                if !kept.isEmpty { kept.removeLast() }
            } else {
                kept.append(key)
            }
        }
        return .keys(kept)
    }
}

/// An outcome a handler can end a step with, and the data it carries.
public struct OutcomeSpec: Sendable, Hashable {
    /// The name journeys handle under `on:`, and ``HandlerResult/outcome``.
    public var name: String
    /// A few words for the docs: when the handler gives it.
    public var summary: String
    /// Data the outcome carries, readable in transitions as `outcome.NAME`.
    public var data: [DataSpec]
    /// An optional outcome need not be handled (for example a disabled action).
    public var optional: Bool

    public init(name: String, summary: String, data: [DataSpec] = [], optional: Bool = false) {
        self.name = name
        self.summary = summary
        self.data = data
        self.optional = optional
    }
}

/// A value an outcome carries, readable as `outcome.NAME`. A secret type keeps it secret in
/// the journey and out of every transcript, however the handler returns it.
public struct DataSpec: Sendable, Hashable {
    public var name: String
    public var type: TypeInfo

    public init(name: String, type: TypeInfo) {
        self.name = name
        self.type = type
    }
}

/// A `.tables` parameter as written: named tables of texts, in order.
public struct LiteralTables: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var text: String

        public init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }

    public struct Table: Sendable, Hashable {
        public var name: String
        public var entries: [Entry]

        public init(name: String, entries: [Entry]) {
            self.name = name
            self.entries = entries
        }
    }

    /// The name of the table that serves every name not given a table of its own.
    public static let anyName = "*"

    public var tables: [Table]

    public init(_ tables: [Table]) { self.tables = tables }

    /// The table for `name`: its own, else the `*` table, else none.
    public func table(for name: String) -> Table? {
        tables.first { $0.name == name } ?? tables.first { $0.name == Self.anyName }
    }

    /// Every key of every table, each once, in the order first written.
    public var keys: [String] {
        var seen = Set<String>()
        return tables.flatMap(\.entries).map(\.key).filter { seen.insert($0).inserted }
    }
}
