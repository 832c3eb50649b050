import Foundation
import JourneyCore

/// The Locker handlers: enrolment, easy access, the keys available without the user, and
/// protected data. They hold no state of their own: the vault, the device wrap and the
/// session's keyring are values the journey keeps (`stored.*` for what survives a restart,
/// `state.*` for the session) and passes back in, all of them secret.
enum LockerSpecs {
    static let secretText = TypeInfo(.string, secret: true)
    static let keyring = DataSpec(name: "keyring", type: secretText)
    static let levels = ParameterSpec(
        name: "levels", kind: .value(TypeInfo(.list)),
        defaultValue: .list(LockerVault.Level.allCases.map { .string($0.rawValue) }),
        summary: "the protection levels the session gets: active, offline, background, base")
    static let level = ParameterSpec(
        name: "level", kind: .value(TypeInfo(.string)), required: true,
        summary: "the protection level: active, offline, background or base")
    static let name = ParameterSpec(
        name: "name", kind: .value(TypeInfo(.string)), required: true,
        summary: "what the data is stored as; the ciphertext is bound to it")
    static let keyringParameter = ParameterSpec(
        name: "keyring", kind: .value(secretText), required: true, summary: "the session's keyring")
}

extension HandlerInvocation {
    fileprivate func lockerLevels() throws -> [LockerVault.Level] {
        guard case .list(let items)? = self[parameter: "levels"]?.revealed else { return LockerVault.Level.allCases }
        return try items.map {
            guard case .string(let name) = $0, let level = LockerVault.Level(rawValue: name) else {
                throw HandlerError("step '\(step)': levels are active, offline, background and base")
            }
            return level
        }
    }

    fileprivate func lockerLevel() throws -> LockerVault.Level {
        let name = try text("level")
        guard let level = LockerVault.Level(rawValue: name) else {
            throw HandlerError("step '\(step)': no protection level '\(name)'; use active, offline, background or base")
        }
        return level
    }

    fileprivate func keyring() throws -> LockerVault.Keyring {
        do { return try LockerVault.Keyring(encoded: optionalText("keyring") ?? "") } catch {
            throw HandlerError("step '\(step)': the keyring is not one Locker made")
        }
    }
}

/// `locker.enrol`: after strong customer authentication, fresh level keys are sealed under
/// the new easy-access secret (the vault) and, for background and base, under a device key.
public struct LockerEnrolHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "locker.enrol",
        summary:
            "Enrols easy access with the password the user sets: `enrolled` (vault, device wrap, keyring; all secret), or an action.",
        parameters: [
            ParameterSpec(
                name: "keyring", kind: .value(LockerSpecs.secretText),
                summary: "when easy access is changed, the session's keyring: its keys are kept, so no data is lost")
        ],
        inputs: [
            InputSpec(name: "password", type: LockerSpecs.secretText, summary: "the new easy-access password")
        ],
        outcomes: [
            OutcomeSpec(
                name: "enrolled",
                summary:
                    "fresh level keys (or those of `keyring`) sealed with AES-256-GCM under a PBKDF2 key from the password (`outcome.vault`), background and base also under a device key (`outcome.deviceWrap`); `outcome.keyring` holds all four",
                data: [
                    DataSpec(name: "vault", type: LockerSpecs.secretText),
                    DataSpec(name: "deviceWrap", type: LockerSpecs.secretText), LockerSpecs.keyring,
                ])
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (action, password) = try await context.askText("password", invocation, allowEmpty: false)
        if let action { return HandlerResult(action) }
        let enrolment = try LockerVault.enrol(
            secret: password, rounds: context.device.kdfRounds ?? PinVault.defaultRounds,
            keeping: try invocation.keyring(), using: &context.random)
        return HandlerResult(
            "enrolled",
            data: [
                "vault": .secret(.string(enrolment.vault)), "deviceWrap": .secret(.string(enrolment.deviceWrap)),
                "keyring": .secret(.string(enrolment.keyring.encoded)),
            ])
    }
}

/// `locker.easyAccess`: the user's password opens the vault and the session gets the keys of
/// `levels`. The step's attempt limit is charged before the verdict.
public struct LockerEasyAccessHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "locker.easyAccess",
        summary: "Easy access: the password opens the vault; `unlocked` (keyring), `wrong`, `missing`, or an action.",
        parameters: [
            ParameterSpec(
                name: "vault", kind: .value(LockerSpecs.secretText), required: true, summary: "the enrolled vault"),
            LockerSpecs.levels,
        ],
        inputs: [
            InputSpec(
                name: "password", type: LockerSpecs.secretText, summary: "the easy-access password",
                classes: ["unlocked", "wrong"])
        ],
        outcomes: [
            OutcomeSpec(name: "unlocked", summary: "the password opened the vault", data: [LockerSpecs.keyring]),
            OutcomeSpec(name: "wrong", summary: "it did not (the step's attempt limit is charged first)"),
            OutcomeSpec(name: "missing", summary: "no vault: not enrolled, or easy access disabled; nothing is asked"),
        ],
        actionsAreOutcomes: true, releasesKey: true, keyOutcomes: ["unlocked"],
        credentialCheck: .init(accepted: ["unlocked"], refused: ["wrong"]))

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        // An unreadable vault is `missing` before anything is asked: no attempt is charged for it.
        guard let vault = invocation.optionalText("vault"), (try? LockerVault.parse(vault: vault)) != nil else {
            return HandlerResult("missing")
        }
        let levels = try invocation.lockerLevels()
        let (action, password) = try await context.askText("password", invocation)
        if let action { return HandlerResult(action) }
        context.chargeAttempt()
        do {
            let keyring = try LockerVault.open(vault: vault, secret: password).only(levels)
            return HandlerResult("unlocked", data: ["keyring": .secret(.string(keyring.encoded))])
        } catch LockerVault.Failure.wrongSecret {
            return HandlerResult("wrong")
        } catch {
            return HandlerResult("missing")
        }
    }
}

/// `locker.deviceKeys`: the keys the device may use without the user (background access, and
/// `base` in any registered state), from the device wrap.
public struct LockerDeviceKeysHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "locker.deviceKeys",
        summary: "The keys usable without the user: `granted` (keyring of background and/or base), `missing`.",
        parameters: [
            ParameterSpec(
                name: "deviceWrap", kind: .value(LockerSpecs.secretText), required: true,
                summary: "the device wrap from enrolment"),
            ParameterSpec(
                name: "levels", kind: .value(TypeInfo(.list)),
                defaultValue: .list([.string("background"), .string("base")]),
                summary: "background and/or base"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "granted", summary: "the keys of `levels`, opened without the user", data: [LockerSpecs.keyring]),
            OutcomeSpec(name: "missing", summary: "no readable device wrap (never enrolled, or destroyed)"),
        ])
    // Not a key the user's presence opens: a biometric success that only reaches these keys
    // signs in on the sensor's answer alone (auth.biometry-without-key).

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let levels = try invocation.lockerLevels()
        guard let wrap = invocation.optionalText("deviceWrap"),
            let keyring = try? LockerVault.open(deviceWrap: wrap).only(levels)
        else { return HandlerResult("missing") }
        return HandlerResult("granted", data: ["keyring": .secret(.string(keyring.encoded))])
    }
}

/// `locker.encrypt`: seals data at a protection level with the session's key for it.
public struct LockerEncryptHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "locker.encrypt",
        summary: "Seals data at a level: `sealed` (the record, secret), or `unavailable` without that level's key.",
        parameters: [
            LockerSpecs.keyringParameter, LockerSpecs.level, LockerSpecs.name,
            ParameterSpec(
                name: "data", kind: .value(LockerSpecs.secretText), required: true, summary: "what to protect"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "sealed", summary: "AES-GCM with the level's key, bound to the level and name",
                data: [DataSpec(name: "record", type: LockerSpecs.secretText)]),
            OutcomeSpec(name: "unavailable", summary: "the keyring holds no key for the level"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        do {
            let record = try LockerVault.encrypt(
                try invocation.text("data"), level: try invocation.lockerLevel(), name: try invocation.text("name"),
                keyring: try invocation.keyring(), using: &context.random)
            return HandlerResult("sealed", data: ["record": .secret(.string(record))])
        } catch LockerVault.Failure.unavailable {
            return HandlerResult("unavailable")
        }
    }
}

/// `locker.decrypt`: opens protected data with the session's key for its level. A record that
/// does not open is `tampered`: there is no fallback to plain text.
public struct LockerDecryptHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "locker.decrypt",
        summary: "Opens protected data: `opened` (data, secret), `unavailable`, `tampered` or `missing`.",
        parameters: [
            LockerSpecs.keyringParameter, LockerSpecs.level, LockerSpecs.name,
            ParameterSpec(
                name: "record", kind: .value(LockerSpecs.secretText), required: true,
                summary: "what `locker.encrypt` gave"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "opened", summary: "the data", data: [DataSpec(name: "data", type: LockerSpecs.secretText)]),
            OutcomeSpec(name: "unavailable", summary: "the session holds no key for the level"),
            OutcomeSpec(
                name: "tampered",
                summary: "the record does not open: altered, moved or not Locker's; never a plain-text fallback"),
            OutcomeSpec(name: "missing", summary: "nothing is stored"),
        ], releasesKey: true, keyOutcomes: ["opened"])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let level = try invocation.lockerLevel()
        let keyring = try invocation.keyring()
        guard let record = invocation.optionalText("record") else { return HandlerResult("missing") }
        do {
            let data = try LockerVault.decrypt(
                record, level: level, name: try invocation.text("name"), keyring: keyring)
            return HandlerResult("opened", data: ["data": .secret(.string(data))])
        } catch LockerVault.Failure.unavailable {
            return HandlerResult("unavailable")
        } catch {
            return HandlerResult("tampered")
        }
    }
}
