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
    /// (``PinVault``), the real network (``HTTPTransport``: every https server's chain judged
    /// before anything is sent), and a probe that asks a needed service the way the device would.
    public static let services = RunServices(
        sealPIN: { pin, rounds, random in
            try PinVault.seal(pin: pin, rounds: rounds ?? PinVault.defaultRounds, using: &random)
        },
        transport: { HTTPTransport() },
        probe: { url, trustedCAs in
            var request = HTTPRequest(method: "GET", url: url)
            request.trustedCAs = trustedCAs
            do {
                // A refused connection answers at once; 5 s leaves room for a TLS handshake on
                // a machine busy with a whole suite (2 s once skipped a scenario whose
                // provider was up).
                _ = try await HTTPTransport(timeout: 5).send(request)
                return true
            } catch {
                return false
            }
        })
}
