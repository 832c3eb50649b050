import JourneyCore

/// Reading a step's parameters, for every built-in handler.
extension HandlerInvocation {
    /// A text parameter the step must have.
    func text(_ name: String) throws -> String {
        guard case .string(let text)? = self[parameter: name]?.revealed else {
            throw HandlerError("parameter '\(name)' of step '\(step)' is missing or not a text")
        }
        return text
    }

    /// A text parameter, or nil when it is absent or empty.
    func optionalText(_ name: String) -> String? {
        if case .string(let text)? = self[parameter: name]?.revealed, !text.isEmpty { return text }
        return nil
    }

    /// A list-of-texts parameter (non-text items are skipped); empty when absent.
    func strings(_ name: String) -> [String] {
        guard case .list(let items)? = self[parameter: name]?.revealed else { return [] }
        return items.compactMap { if case .string(let text) = $0.revealed { text } else { nil } }
    }

    /// The PIN pad's `length`, 1 to 64 digits.
    func length(default value: Int = 4) throws -> Int {
        guard case .int(let length) = self[parameter: "length"]?.revealed ?? .int(value), (1...64).contains(length)
        else { throw HandlerError("'length' of step '\(step)' must be between 1 and 64") }
        return length
    }
}
