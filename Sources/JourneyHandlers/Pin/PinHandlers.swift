import JourneyCore

extension HandlerContext {
    /// Shows a PIN pad and returns the pressed action, or the digits entered (secret).
    nonisolated(nonsending) func pinPad(
        _ invocation: HandlerInvocation, length: Int
    ) async throws -> (action: String?, pin: String?) {
        let (action, values) = try await ask(invocation)
        if let action { return (action, nil) }
        guard case .string(let keys)? = values["pin"]?.revealed else {
            throw HandlerError("step '\(invocation.step)' needs a 'pin' (the keys typed) or an 'action'")
        }
        switch PinPad.enter(keys, length: length) {
        case .success(let digits): return (nil, digits)
        case .failure(let error): throw HandlerError("at step '\(invocation.step)': \(error.message)")
        }
    }
}

/// A PIN pad: `length` digits, `⌫` (or `<`) deleting the last.
let pinKeyPad = KeyPad(lengthParameter: "length", delete: ["⌫", "<"])
let pinInput = InputSpec(
    name: "pin", type: TypeInfo(.string, secret: true),
    summary: "the keys typed on the pad: digits, and `⌫` to delete one; the pad advances after `length` digits",
    keys: Set("0123456789⌫<"), pad: pinKeyPad)
let lengthParameter = ParameterSpec(
    name: "length", kind: .value(TypeInfo(.int)), defaultValue: .int(4), summary: "digits on the pad", range: 1...64)
let pinData = [DataSpec(name: "pin", type: TypeInfo(.string, secret: true))]

/// `pin.entry`: a PIN pad for choosing a PIN. Auto-advances on the last digit; no confirm button.
public struct PinEntryStepHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "pin.entry",
        summary:
            "A PIN pad that advances by itself after `length` digits; gives the PIN (secret), or `weak` with `warnWeak`.",
        parameters: [
            lengthParameter,
            ParameterSpec(
                name: "warnWeak", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary: "give `weak` for a PIN that is easy to guess (repeated, sequential or common)"),
            ParameterSpec(
                name: "differentFrom", kind: .value(TypeInfo(.string)),
                summary:
                    "the device store key of the PIN being replaced (sealed by `pin.save`): give `same` for a PIN that opens it",
                namesSecretStoreKey: true, storeKey: .reads),
        ],
        inputs: [pinInput],
        outcomes: [OutcomeSpec(name: "entered", summary: "all digits were entered", data: pinData)],
        actionsAreOutcomes: true,
        refinedOutcomes: [
            Conditional(PinEntryStepHandler.weak, .notFalse("warnWeak")),
            Conditional(PinEntryStepHandler.same, .given("differentFrom")),
        ],
        refine: { shape, contract in
            var classes = ["strong"]
            // Declared when switched on, or when a template decides at run time.
            let written = shape.constants["warnWeak"]
            if written == .bool(true) || (written == nil && shape.given.contains("warnWeak")) {
                contract.outcomes.append(PinEntryStepHandler.weak)
                classes.append("weak")
            }
            if shape.given.contains("differentFrom") {
                contract.outcomes.append(PinEntryStepHandler.same)
                classes.append("same")
            }
            if classes.count > 1, let i = contract.inputs.firstIndex(where: { $0.name == "pin" }) {
                contract.inputs[i].classes = classes
            }
        })

    static let same = OutcomeSpec(
        name: "same",
        summary:
            "the PIN opens the seal stored under `differentFrom`: it is the PIN being replaced (checked before `weak`)",
        data: pinData)

    static let weak = OutcomeSpec(
        name: "weak",
        summary:
            "the PIN is easy to guess; `outcome.reason` says why: one digit repeated, a run of consecutive digits, a repeated pair of digits, or one of the most common PINs",
        data: pinData + [DataSpec(name: "reason", type: TypeInfo(.string))])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (action, pin) = try await context.pinPad(invocation, length: invocation.length())
        if let action { return HandlerResult(action) }
        let digits = Value.secret(.string(pin ?? ""))
        if let key = invocation.optionalText("differentFrom"),
            case .string(let record)? = context.stored(key)?.revealed,
            (try? PinVault.verify(pin: pin ?? "", record: record)) == true
        {
            return HandlerResult("same", data: ["pin": digits])
        }
        if invocation[parameter: "warnWeak"] == .bool(true), let reason = WeakPins.reason(pin ?? "") {
            return HandlerResult("weak", data: ["pin": digits, "reason": .string(reason)])
        }
        return HandlerResult("entered", data: ["pin": digits])
    }
}

/// `pin.repeat`: the PIN pad that asks for the new PIN again and compares it with `first`.
public struct PinRepeatHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "pin.repeat", summary: "Asks for the PIN again; `match` or `mismatch` against `first` (constant-time).",
        parameters: [
            lengthParameter,
            ParameterSpec(
                name: "first", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the PIN entered the first time"),
        ],
        inputs: [
            InputSpec(
                name: pinInput.name, type: pinInput.type, summary: pinInput.summary, classes: ["match", "mismatch"],
                keys: pinInput.keys, pad: pinInput.pad)
        ],
        outcomes: [
            OutcomeSpec(name: "match", summary: "the same PIN again", data: pinData),
            OutcomeSpec(name: "mismatch", summary: "a different PIN"),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let first = try invocation.text("first")
        let (action, pin) = try await context.pinPad(invocation, length: invocation.length())
        if let action { return HandlerResult(action) }
        guard let pin, ConstantTime.equal(pin, first) else { return HandlerResult("mismatch") }
        return HandlerResult("match", data: ["pin": .secret(.string(pin))])
    }
}

/// `pin.save`: seals the PIN into the device store (PBKDF2-HMAC-SHA256 + AES-GCM, see
/// ``PinVault``). Shows nothing.
public struct PinSaveHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "pin.save",
        summary: "Stores the PIN as a PBKDF2-derived key wrapping a device secret (AES-GCM), never in clear or hashed.",
        parameters: [
            ParameterSpec(
                name: "key", kind: .value(TypeInfo(.string)), required: true,
                summary: "the device store key; what is stored there is secret everywhere", namesSecretStoreKey: true,
                storeKey: .writes),
            ParameterSpec(
                name: "pin", kind: .value(TypeInfo(.string, secret: true)), required: true, summary: "the PIN to store"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "saved",
                summary:
                    "the PIN is stored as a PBKDF2-HMAC-SHA256 key (random salt) wrapping a random device secret with AES-GCM"
            )
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let key = try invocation.text("key")
        let pin = try invocation.text("pin")
        let record = try PinVault.seal(
            pin: pin, rounds: context.device.kdfRounds ?? PinVault.defaultRounds, using: &context.random)
        context.store(key, .secret(.string(record)))
        return HandlerResult("saved")
    }
}

/// `pin.verify`: the PIN pad that unlocks. The step's attempt limit is charged after the
/// digits arrive and before the vault is opened, so no restart can undo a wrong attempt.
public struct PinVerifyHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "pin.verify",
        summary:
            "Checks the PIN against the stored one by unwrapping it; `correct`, `wrong`, or `missing` (none stored).",
        parameters: [
            lengthParameter,
            ParameterSpec(
                name: "key", kind: .value(TypeInfo(.string)), required: true,
                summary: "the device store key; what is stored there is secret everywhere", namesSecretStoreKey: true,
                storeKey: .reads),
        ],
        inputs: [
            InputSpec(
                name: pinInput.name, type: pinInput.type, summary: pinInput.summary, classes: ["correct", "wrong"],
                keys: pinInput.keys, pad: pinInput.pad)
        ],
        outcomes: [
            OutcomeSpec(
                name: "correct",
                summary: "the PIN opened the stored seal (the step's attempt limit is charged before it is opened)"),
            OutcomeSpec(name: "wrong", summary: "the PIN did not open it (the attempt stays charged)"),
            OutcomeSpec(
                name: "missing",
                summary:
                    "nothing readable is stored, so nothing is asked and no attempt is charged: never set, wiped, or a record this vault did not write, such as one asking for more than 600 000 rounds"
            ),
        ],
        actionsAreOutcomes: true, releasesKey: true, keyOutcomes: ["correct"], verifiedOutcomes: ["correct"],
        credentialCheck: .init(accepted: ["correct"], refused: ["wrong"]))

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let key = try invocation.text("key")
        // Nothing readable stored is `missing` before the pad is shown: no attempt is charged for it.
        guard case .string(let record)? = context.stored(key)?.revealed, (try? PinVault.parse(record)) != nil else {
            return HandlerResult("missing")
        }
        let (action, pin) = try await context.pinPad(invocation, length: invocation.length())
        if let action { return HandlerResult(action) }
        context.chargeAttempt()
        do {
            return HandlerResult(try PinVault.verify(pin: pin ?? "", record: record) ? "correct" : "wrong")
        } catch {
            return HandlerResult("missing")
        }
    }
}
