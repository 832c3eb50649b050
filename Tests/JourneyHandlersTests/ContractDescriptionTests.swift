import JourneyHandlers
import Testing

@testable import JourneyCore

/// What a contract says of its `refine` (``HandlerContract/refinedInputs`` and
/// ``HandlerContract/refinedOutcomes``) is what `refine` does: the handler reference and the
/// per-handler schema read the description, `journey check` runs `refine`. Every built-in handler
/// is resolved for steps written many ways (each parameter left out, written as a template, and
/// written as literals; screens with fields and actions), and the inputs and outcomes the
/// description predicts must be exactly those the step gets.
@Suite("Handler contracts describe what their refine does")
struct ContractDescriptionTests {
    /// A step as written: which parameters, how, and what its screen shows.
    struct Written: CustomStringConvertible {
        var literals: [String: Value] = [:]
        var templates: Set<String> = []
        var maps: [String: [(key: String, value: String)]] = [:]
        var tables: [String: LiteralTables] = [:]
        var fields: [String] = []
        var actions: [(id: String, enabled: Bool)] = []
        var label: String

        func writes(_ name: String) -> Bool {
            literals[name] != nil || templates.contains(name) || maps[name] != nil || tables[name] != nil
        }

        var description: String { label }

        /// The shape `journey check` gives `refine`: defaults count as constants of the
        /// parameters a step does not write.
        func shape(for contract: HandlerContract) -> StepShape {
            var constants = literals
            for spec in contract.parameters where !writes(spec.name) {
                if let value = spec.defaultValue { constants[spec.name] = value }
            }
            return StepShape(
                actions: actions.map { .init(id: $0.id, enabled: $0.enabled) },
                fields: fields.map { .init(name: $0, kind: .text, secret: false) }, maps: maps, tables: tables,
                constants: constants,
                given: templates.union(literals.keys).union(maps.keys).union(tables.keys))
        }

        /// Whether a step written so has an item of this presence (for those of one name).
        func holds(_ presence: Presence) -> Bool {
            switch presence {
            case .always: true
            case .given(let name): writes(name)
            case .absent(let name): !writes(name)
            case .isTrue(let name): literals[name] == .bool(true)
            case .notFalse(let name): writes(name) && literals[name] != .bool(false)
            case .lacksKey(let name, let key): !(maps[name] ?? []).contains { $0.key == key }
            case .eachField, .eachKey, .eachText: false
            }
        }

        /// The names a presence gives a step written so.
        func names(_ name: String, _ presence: Presence) -> [String] {
            switch presence {
            case .eachField: fields
            case .eachKey(let parameter):
                (maps[parameter]?.map(\.key) ?? []) + (tables[parameter]?.keys ?? [])
            case .eachText(let parameter): maps[parameter]?.map(\.value) ?? []
            default: holds(presence) ? [name] : []
            }
        }
    }

    /// The ways a step of this handler is written: nothing; each parameter alone as a template
    /// and as literals; all at once; a screen with fields and an enabled and a disabled action.
    static func probes(_ contract: HandlerContract) -> [Written] {
        var probes = [Written(label: "nothing written")]
        var all = Written(label: "every parameter as a template")
        for spec in contract.parameters {
            switch spec.kind {
            case .value(let type):
                probes.append(Written(templates: [spec.name], label: "\(spec.name) as a template"))
                all.templates.insert(spec.name)
                for value in literals(type.type, range: spec.range) {
                    probes.append(Written(literals: [spec.name: value], label: "\(spec.name): \(value)"))
                }
            case .map:
                let text =
                    if case .oneOf(let words) = spec.texts, let first = words.first { first } else { "fallback" }
                for key in [LiteralTables.anyName, "https"] {
                    probes.append(Written(maps: [spec.name: [(key, text)]], label: "\(spec.name): {\(key): \(text)}"))
                }
            case .tables:
                let plain = LiteralTables([
                    .init(name: LiteralTables.anyName, entries: [.init(key: "linked", text: "/l")])
                ])
                let schemes = LiteralTables([
                    .init(name: "https", entries: [.init(key: "secure", text: "/s")]),
                    .init(name: "eduid", entries: [.init(key: "linked", text: "linked")]),
                ])
                probes.append(Written(tables: [spec.name: plain], label: "\(spec.name): one table"))
                probes.append(Written(tables: [spec.name: schemes], label: "\(spec.name): a table per scheme"))
                all.tables[spec.name] = schemes
            case .captures:
                continue
            }
        }
        probes.append(all)
        probes.append(
            Written(
                fields: ["email", "terms"], actions: [("submit", true), ("later", false)],
                label: "a screen with fields and actions"))
        return probes
    }

    static func literals(_ type: ValueType, range: ClosedRange<Int>?) -> [Value] {
        switch type {
        case .bool: [.bool(true), .bool(false)]
        case .int: [.int(range?.lowerBound ?? 1)]
        case .duration: [.duration(range?.lowerBound ?? 1000)]
        case .string, .any: [.string("x")]
        case .list: [.list([.string("x")])]
        }
    }

    static let contracts = BuiltinHandlers.all.map(\.contract).sorted { $0.id < $1.id }

    @Test("every built-in contract with a refine says what it does")
    func everyRefineIsDescribed() {
        for contract in Self.contracts {
            #expect(contract.describesOutcomes, "\(contract.id) does not describe its refined outcomes")
        }
    }

    @Test("the described inputs and outcomes are those a step gets", arguments: contracts.map(\.id))
    func descriptionsMatchRefine(id: String) throws {
        let contract = try #require(Self.contracts.first { $0.id == id })
        for written in Self.probes(contract) {
            let resolved = contract.resolve(for: written.shape(for: contract))
            let actions = contract.actionsAreOutcomes ? written.actions.map(\.id) : []

            var outcomes = Set(actions)
            var required: Set<String> = []
            for variant in contract.describedOutcomes {
                let names = written.names(variant.item.name, variant.presence)
                outcomes.formUnion(names)
                if !variant.item.optional { required.formUnion(names) }
            }
            #expect(
                Set(resolved.outcomes.map(\.name)) == outcomes,
                "\(id), \(written): the step has \(resolved.outcomes.map(\.name).sorted()), the description says \(outcomes.sorted())"
            )
            let mustHandle = Set(resolved.outcomes.filter { !$0.optional }.map(\.name)).subtracting(actions)
            #expect(
                mustHandle == required.subtracting(actions),
                "\(id), \(written): must handle \(mustHandle.sorted()), the description says \(required.subtracting(actions).sorted())"
            )

            var inputs: Set<String> = []
            for variant in contract.describedInputs {
                inputs.formUnion(written.names(variant.item.name, variant.presence))
            }
            let asked = Set(resolved.inputs.map(\.name)).subtracting(["action"])
            #expect(
                asked == inputs,
                "\(id), \(written): the step asks for \(asked.sorted()), the description says \(inputs.sorted())")
        }
    }

    @Test("the probes catch a description that says less or more than refine does")
    func probesCatchAWrongDescription() throws {
        let pins = try #require(Self.contracts.first { $0.id == "oidc.token" })
        var unsaid = pins
        unsaid.refinedOutcomes = []
        var wrong = pins
        wrong.refinedOutcomes = [Conditional(OutcomeSpec(name: "pinMismatch", summary: ""), .absent("pins"))]
        for contract in [unsaid, wrong] {
            let written = Written(templates: ["pins"], label: "pins as a template")
            let resolved = contract.resolve(for: written.shape(for: contract))
            let described = Set(
                contract.describedOutcomes.flatMap { written.names($0.item.name, $0.presence) })
            #expect(Set(resolved.outcomes.map(\.name)) != described)
        }
    }
}
