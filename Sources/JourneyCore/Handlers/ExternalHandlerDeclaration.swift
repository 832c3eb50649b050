/// A handler a project adds as a program in any language: declared in `journeykit.yaml` under
/// `handlers:` with the command that starts it and its contract, held to that contract by
/// `journey check` like any built-in handler (without starting the program), and run by
/// ``ExternalHandler`` over JSON-RPC 2.0 on the program's standard input and output
/// (docs/handler-protocol.md).
public struct ExternalHandlerDeclaration: Sendable, Hashable {
    /// A parameter the program takes under a step's `with:`: a value of a type.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var type: TypeInfo
        public var required: Bool
        public var defaultValue: Value?
        public var summary: String

        public init(name: String, type: TypeInfo, required: Bool = false, defaultValue: Value? = nil, summary: String) {
            self.name = name
            self.type = type
            self.required = required
            self.defaultValue = defaultValue
            self.summary = summary
        }
    }

    /// The handler's id, where the project file writes it.
    public var id: Located<String>
    /// One sentence for `journey handlers` and the docs.
    public var summary: String
    /// The program and its arguments. The program is found on `PATH` unless it names a path;
    /// it runs in the project file's folder, so relative paths are the project's.
    public var command: [String]
    /// How long the program may take to send each message while it runs a step, in
    /// milliseconds: its answer, or its next question. Time the driver takes to answer the
    /// program's questions does not count.
    public var timeout: Int
    public var parameters: [Parameter]
    public var inputs: [InputSpec]
    public var outcomes: [OutcomeSpec]
    /// Whether each enabled screen action is an input choice and an outcome of its own, as for
    /// `ui.screen`.
    public var actionsAreOutcomes: Bool
    /// Whether the program gives the same answers to the same step, inputs and device: only
    /// then can `journey explore` judge where its steps lead (else they are left out).
    public var deterministic: Bool

    /// The time limit when the project file gives none: ten seconds.
    public static let defaultTimeout = 10_000
    /// The longest time limit a project file may give: ten minutes.
    public static let maximumTimeout = 600_000

    public init(
        id: Located<String>, summary: String = "", command: [String], timeout: Int = Self.defaultTimeout,
        parameters: [Parameter] = [], inputs: [InputSpec] = [], outcomes: [OutcomeSpec] = [],
        actionsAreOutcomes: Bool = false, deterministic: Bool = false
    ) {
        self.id = id
        self.summary = summary
        self.command = command
        self.timeout = timeout
        self.parameters = parameters
        self.inputs = inputs
        self.outcomes = outcomes
        self.actionsAreOutcomes = actionsAreOutcomes
        self.deterministic = deterministic
    }

    /// The contract journeys are checked against.
    public var contract: HandlerContract {
        var contract = HandlerContract(
            id: id.value, summary: summary,
            parameters: parameters.map {
                ParameterSpec(
                    name: $0.name, kind: .value($0.type), required: $0.required, defaultValue: $0.defaultValue,
                    summary: $0.summary)
            },
            inputs: inputs, outcomes: outcomes, actionsAreOutcomes: actionsAreOutcomes)
        contract.deterministic = deterministic
        // A program may read and write any key of the device store.
        contract.touchesEveryStoredKey = true
        return contract
    }

    /// Whether `text` is a handler id: two or more names joined by `.` (the first your app's
    /// or company's, as in `acme.riskScore`), each a letter and then letters, digits, `_` or
    /// `-`; at most 128 characters.
    public static func isHandlerID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && text.utf8.count <= 128
            && parts.allSatisfy { part in
                guard let first = part.unicodeScalars.first, first.isASCIILetter else { return false }
                return part.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == "-" }
            }
    }
}
