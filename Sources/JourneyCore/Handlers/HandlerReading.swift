/// Reading a step's parameters: what every handler does first.
///
/// `journey check` has already held each parameter to the type its ``ParameterSpec`` declares
/// and filled in defaults, so a handler reads them by that type. The values come revealed:
/// a secret parameter (a PIN, a token) is read as its plain value, to compute with, and must
/// be wrapped again (``Value/secret(_:)``) wherever the handler passes it on.
extension HandlerInvocation {
    /// A text parameter the step must have.
    ///
    /// - Throws: ``HandlerError`` naming the parameter and the step when it is missing or not
    ///   a text.
    public func text(_ name: String) throws -> String {
        guard case .string(let text)? = self[parameter: name]?.revealed else {
            throw HandlerError("parameter '\(name)' of step '\(step)' is missing or not a text")
        }
        return text
    }

    /// A text parameter, or nil when it is absent or empty.
    public func optionalText(_ name: String) -> String? {
        if case .string(let text)? = self[parameter: name]?.revealed, !text.isEmpty { return text }
        return nil
    }

    /// A list-of-texts parameter (items that are not texts are skipped); empty when absent.
    public func strings(_ name: String) -> [String] {
        guard case .list(let items)? = self[parameter: name]?.revealed else { return [] }
        return items.compactMap { if case .string(let text) = $0.revealed { text } else { nil } }
    }

    /// An int parameter the step must have (given, or defaulted by its ``ParameterSpec``).
    /// A ``ParameterSpec/range`` has been checked already: a value outside it never gets here.
    ///
    /// - Throws: ``HandlerError`` naming the parameter and the step when it is missing or not
    ///   an int.
    public func int(_ name: String) throws -> Int {
        guard case .int(let number)? = self[parameter: name]?.revealed else {
            throw HandlerError("parameter '\(name)' of step '\(step)' is missing or not an int")
        }
        return number
    }

    /// A duration parameter the step must have (given, or defaulted), in milliseconds.
    ///
    /// - Throws: ``HandlerError`` naming the parameter and the step when it is missing or not
    ///   a duration.
    public func duration(_ name: String) throws -> Int {
        guard case .duration(let milliseconds)? = self[parameter: name]?.revealed else {
            throw HandlerError("parameter '\(name)' of step '\(step)' is missing or not a duration")
        }
        return milliseconds
    }

    /// A bool parameter: its value, or `defaultValue` when the step does not give it.
    ///
    /// - Throws: ``HandlerError`` naming the parameter and the step when it is given but is
    ///   not a bool.
    public func bool(_ name: String, default defaultValue: Bool = false) throws -> Bool {
        switch self[parameter: name]?.revealed {
        case nil: return defaultValue
        case .bool(let flag)?: return flag
        case _?: throw HandlerError("parameter '\(name)' of step '\(step)' is not a bool")
        }
    }
}

/// Asking the driver: what a handler does when its step waits for the user.
extension HandlerContext {
    /// Asks the driver for the step's inputs (the contract's, at this step) and returns the
    /// action the user pressed, if any, with every value given.
    ///
    /// An action is checked against the screen as it shows now (time may have enabled it):
    /// one the step does not show, or shows disabled, is refused with a ``HandlerError``, as
    /// the app would refuse the tap.
    ///
    /// - Throws: what ``input(_:)`` throws (let it propagate: it is how a restart or an
    ///   interrupted run stops the step), or ``HandlerError`` for a refused action.
    public nonisolated(nonsending) func ask(
        _ invocation: HandlerInvocation
    ) async throws -> (action: String?, values: [String: Value]) {
        let request = invocation.request()
        return try checked(try await input(request), request)
    }

    /// Asks as ``ask(_:)`` does, but gives up when the virtual clock reaches `deadline`
    /// (milliseconds since the Unix epoch) while the step waits: nil then.
    public nonisolated(nonsending) func ask(
        _ invocation: HandlerInvocation, until deadline: Int
    ) async throws -> (action: String?, values: [String: Value])? {
        let request = invocation.request()
        guard let values = try await input(request, until: deadline) else { return nil }
        return try checked(values, request)
    }

    private func checked(
        _ values: [String: Value], _ request: InputRequest
    ) throws -> (action: String?, values: [String: Value]) {
        guard case .string(let action)? = values.value(named: "action")?.revealed else { return (nil, values) }
        if !refusesInput, let reason = current(request).refusal(of: values) { throw HandlerError(reason) }
        return (action, values)
    }

    /// Asks for a step that takes one text input or an action: the action pressed, or else the
    /// text `name`, which must be given (and, unless `allowEmpty`, not be empty). `text` is
    /// empty when an action was pressed.
    ///
    /// - Throws: as ``ask(_:)``, and ``HandlerError`` when neither an action nor the text was
    ///   given.
    public nonisolated(nonsending) func askText(
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
