import Foundation
import JourneyCore

/// `ui.form`: a form with fields checked on submit (required, kind, pattern, length).
///
/// The submit action's outcome carries every field as `outcome.NAME`; a submission that
/// fails validation gives `invalid` with the names of the failing fields, and never their
/// values.
public struct FormHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.form",
        summary:
            "A form: the submit action checks each field (required, kind, pattern, length) and carries their values as `outcome.NAME`, or gives `invalid` naming the fields that fail, never their values; any other action is its own outcome.",
        parameters: [
            ParameterSpec(
                name: "submit", kind: .value(TypeInfo(.string)), defaultValue: .string(FormHandler.defaultSubmit),
                summary: "the action that submits the form: one of the step's screen actions", namesAction: true)
        ],
        actionsAreOutcomes: true,
        refinedInputs: [
            Conditional(
                InputSpec(
                    name: "FIELD", type: TypeInfo(.string),
                    summary:
                        "the value typed into the field (a bool for a `switch`; secret for a field marked `secret`)"),
                .eachField)
        ],
        refinedOutcomes: [Conditional(FormHandler.invalid, .always)],
        refine: { shape, contract in
            let fieldInputs = shape.fields.map { field in
                InputSpec(
                    name: field.name, type: TypeInfo(field.kind == .switch ? .bool : .string, secret: field.secret),
                    summary: "the value typed into '\(field.name)'", classes: ["valid", "invalid"])
            }
            contract.inputs.insert(contentsOf: fieldInputs, at: 0)
            let submit =
                shape.constants["submit"].flatMap { if case .string(let s) = $0 { s } else { nil } }
                ?? FormHandler.defaultSubmit
            if let index = contract.outcomes.firstIndex(where: { $0.name == submit }) {
                contract.outcomes[index].data = fieldInputs.map { DataSpec(name: $0.name, type: $0.type) }
                contract.outcomes[index].summary = "the form was submitted with valid fields"
            }
            contract.outcomes.append(FormHandler.invalid)
        })

    /// The action that submits a form unless its step says otherwise.
    static let defaultSubmit = "submit"

    /// The action that submits the step's form: its `submit` parameter, `submit` by default.
    static func submit(of invocation: HandlerInvocation) -> String {
        if case .string(let action)? = invocation[parameter: "submit"]?.revealed { return action }
        return defaultSubmit
    }

    static let invalid = OutcomeSpec(
        name: "invalid", summary: "the form was submitted with fields that fail their checks",
        data: [
            DataSpec(name: "errors", type: TypeInfo(.list)),
            DataSpec(name: "firstError", type: TypeInfo(.string)),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (action, values) = try await context.ask(invocation)
        guard let action else { throw HandlerError("form '\(invocation.step)' needs an 'action' (the button pressed)") }
        guard action == Self.submit(of: invocation) else { return HandlerResult(action) }
        var errors: [String] = []
        var messages: [String] = []
        var data: [String: Value] = [:]
        for field in invocation.screen?.fields ?? [] {
            let value = values[field.name]
            if let problem = Self.problem(with: value, in: field) {
                errors.append(field.name)
                messages.append("\(field.name): \(problem)")
            }
            data[field.name] = value ?? (field.kind == .switch ? .bool(false) : .string(""))
        }
        if !errors.isEmpty {
            return HandlerResult(
                "invalid", data: ["errors": .list(errors.map(Value.string)), "firstError": .string(messages[0])])
        }
        return HandlerResult(action, data: data)
    }

    /// Why a field's value is not acceptable, in words that never repeat the value.
    static func problem(with value: Value?, in field: RenderedScreen.Field) -> String? {
        if field.kind == .switch {
            let on = value?.revealed == .bool(true)
            return field.required && !on ? "must be switched on" : nil
        }
        guard case .string(let text)? = value?.revealed, !text.isEmpty else {
            return field.required ? "is required" : nil
        }
        let count = text.count
        if let min = field.minLength, count < min { return "needs at least \(min) characters" }
        if let max = field.maxLength, count > max { return "takes at most \(max) characters" }
        switch field.kind {
        case .email where !matches(text, #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#): return "is not an email address"
        case .phone where !matches(text, #"^\+?[0-9][0-9 ]{5,19}$"#): return "is not a phone number"
        case .digits where !text.allSatisfy({ $0.isASCII && $0.isNumber }): return "must be digits only"
        default: break
        }
        if let pattern = field.pattern, !matches(text, pattern) { return "does not have the expected format" }
        return nil
    }

    /// Whether the whole text matches the pattern.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        guard let match = regex.firstMatch(in: text, range: range) else { return false }
        return match.range == range
    }
}
