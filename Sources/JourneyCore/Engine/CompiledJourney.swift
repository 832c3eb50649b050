/// The journeys of one run or check, compiled together so sub-journey calls resolve.
public final class CompiledLibrary: Sendable {
    public let journeys: [String: CompiledJourney]

    init(journeys: [String: CompiledJourney]) {
        self.journeys = journeys
    }

    public subscript(id: String) -> CompiledJourney? { journeys[id] }

    /// Journey ids in a stable order.
    public var ids: [String] { journeys.keys.sorted() }
}

/// A journey checked against its handlers and ready to run.
public final class CompiledJourney: Sendable {
    /// The journey as written, for docs and messages.
    public let source: Journey
    public let id: String
    let steps: [CompiledStep]
    let stepIndex: [String: Int]
    let ends: [CompiledEnd]
    let start: Target
    let params: [CompiledVariable]
    let state: [CompiledVariable]
    let stored: [CompiledVariable]
    let limits: [String: CompiledLimit]
    let outputs: [(name: String, value: Template)]

    init(
        source: Journey, steps: [CompiledStep], ends: [CompiledEnd], start: Target, params: [CompiledVariable],
        state: [CompiledVariable], stored: [CompiledVariable], limits: [String: CompiledLimit],
        outputs: [(name: String, value: Template)]
    ) {
        self.source = source
        self.id = source.id.value
        self.steps = steps
        self.stepIndex = Dictionary(uniqueKeysWithValues: steps.enumerated().map { ($1.id, $0) })
        self.ends = ends
        self.start = start
        self.params = params
        self.state = state
        self.stored = stored
        self.limits = limits
        self.outputs = outputs
    }

    /// The stored values this journey declares, with their defaults.
    public var storedDeclarations: [(name: String, type: TypeInfo, defaultValue: Value?)] {
        stored.map { ($0.name, $0.type, $0.defaultValue) }
    }

    /// The inputs and outcomes of a step, as compiled (for docs and exploration).
    public func contract(ofStep id: String) -> StepContract? {
        stepIndex[id].map { steps[$0].contract }
    }

    func name(of target: Target) -> String {
        switch target {
        case .step(let i): steps[i].id
        case .end(let i): ends[i].id
        }
    }
}

enum Target: Sendable, Hashable {
    case step(Int)
    case end(Int)
}

struct CompiledEnd: Sendable {
    let id: String
    let kind: EndKind
}

struct CompiledVariable: Sendable {
    let name: String
    let type: TypeInfo
    let defaultValue: Value?
}

/// A compiled step. A class, so the interpreter's hot path shares it instead of copying it.
final class CompiledStep: Sendable {
    enum Runner: Sendable {
        case handler(any StepHandler)
        case call(String)
    }

    let id: String
    /// The handler id, or `call JOURNEY` for a sub-journey step.
    let label: String
    let runner: Runner
    let parameters: [(name: String, value: CompiledValue)]
    let maps: [String: [(key: String, value: String)]]
    let screen: Screen?
    /// Conditions of actions written `enabled: "${…}"`, by action id.
    let actionConditions: [String: Expression]
    let contract: StepContract
    let attempts: CompiledAttempts?
    let transitions: [String: CompiledTransition]

    init(
        id: String, label: String, runner: Runner, parameters: [(name: String, value: CompiledValue)],
        maps: [String: [(key: String, value: String)]], screen: Screen?, actionConditions: [String: Expression],
        contract: StepContract, attempts: CompiledAttempts?, transitions: [String: CompiledTransition]
    ) {
        self.id = id
        self.label = label
        self.runner = runner
        self.parameters = parameters
        self.maps = maps
        self.screen = screen
        self.actionConditions = actionConditions
        self.contract = contract
        self.attempts = attempts
        self.transitions = transitions
    }
}

struct CompiledAttempts: Sendable {
    let limit: String
    let counts: Set<String>
    let resets: Set<String>
}

struct CompiledLimit: Sendable {
    let name: String
    let max: Int
    let counter: VariableReference
    let exceeded: CompiledTransition
    let keep: Bool
}

struct CompiledTransition: Sendable {
    let branches: [CompiledBranch]
}

struct CompiledBranch: Sendable {
    let condition: Expression?
    /// `always`, `if 1`, `if 2`, …, or `else`: how transcripts name the branch taken.
    let label: String
    let assignments: [(target: VariableReference, value: CompiledValue)]
    let target: Target
}

/// A value written in a journey, typed: a constant, or a template evaluated at run time.
indirect enum CompiledValue: Sendable {
    case constant(Value)
    case template(Template)
    case list([CompiledValue])
}
