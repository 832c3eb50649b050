import JourneyCore

/// The handlers JourneyKit ships.
public enum BuiltinHandlers {
    /// Every built-in handler.
    public static var all: [any StepHandler] {
        [
            ScreenHandler(), AlertHandler(), ChoiceHandler(), FormHandler(), PinEntryHandler(), LinkWaitHandler(),
            DecideHandler(), PinEntryStepHandler(), PinRepeatHandler(), PinSaveHandler(), PinVerifyHandler(),
            BiometryOptInHandler(), BiometryAuthenticateHandler(), ClearStoreHandler(), HTTPRequestHandler(),
            BankSelectHandler(), BankPageHandler(), BackgroundHandler(), SessionStateHandler(),
            OIDCDiscoverHandler(), OIDCAuthorizeHandler(), OIDCBrowserHandler(), OIDCCallbackHandler(),
            OIDCTokenHandler(), OIDCUserinfoHandler(), OIDCRefreshHandler(), OIDCRevokeHandler(),
            OIDCEndSessionHandler(),
            TinkoffLaunchHandler(), TinkoffCallbackHandler(), TinkoffTokenHandler(), TinkoffRevokeHandler(),
            LockerEnrolHandler(), LockerEasyAccessHandler(), LockerDeviceKeysHandler(), LockerEncryptHandler(),
            LockerDecryptHandler(), HOTPHandler(), TOTPHandler(),
        ]
    }

    /// A registry of every built-in handler.
    public static let registry: HandlerRegistry = {
        do throws(HandlerRegistry.DuplicateID) {
            return try HandlerRegistry(all)
        } catch {
            fatalError("two built-in handlers share the id '\(error.id)'")
        }
    }()

    /// What scenarios need from the built-in handlers: PINs sealed as `pin.save` seals them
    /// (``PinVault``), the real network over URLSession (and ``TLSClient`` for pins and
    /// device-trusted CAs), and a probe that asks a needed service the way the device would.
    public static let services = RunServices(
        sealPIN: { pin, rounds, random in
            try PinVault.seal(pin: pin, rounds: rounds ?? PinVault.defaultRounds, using: &random)
        },
        transport: { URLSessionTransport() },
        probe: { url, trustedCAs in
            var request = HTTPRequest(method: "GET", url: url)
            request.trustedCAs = trustedCAs
            do {
                _ = try await URLSessionTransport(timeout: 2).send(request)
                return true
            } catch {
                return false
            }
        })
}

extension HandlerContext {
    /// Asks for the step's inputs and returns the chosen action, if the driver chose one.
    nonisolated(nonsending) func ask(
        _ invocation: HandlerInvocation
    ) async throws -> (action: String?, values: [String: Value]) {
        let request = invocation.request()
        let values = try await input(request)
        guard case .string(let action)? = values.value(named: "action")?.revealed else { return (nil, values) }
        // Checked against the screen as it shows now: time may have enabled an action.
        if let reason = current(request).refusal(of: values) { throw HandlerError(reason) }
        return (action, values)
    }

    /// Asks for a step that takes one text input or an action: the action pressed, or else the
    /// text `name`, which must be given (and, unless `allowEmpty`, not be empty). `text` is
    /// empty when an action was pressed.
    nonisolated(nonsending) func askText(
        _ name: String, _ invocation: HandlerInvocation, allowEmpty: Bool = true
    ) async throws -> (action: String?, text: String) {
        let (action, values) = try await ask(invocation)
        if let action { return (action, "") }
        guard case .string(let text)? = values[name]?.revealed, allowEmpty || !text.isEmpty else {
            throw HandlerError("step '\(invocation.step)' needs a '\(name)' or an 'action'")
        }
        return (nil, text)
    }
}
