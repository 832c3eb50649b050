import JourneyCore

/// Reading the parameters the PIN handlers share.
extension HandlerInvocation {
    /// The PIN pad's `length`, 1 to 64 digits.
    func length(default value: Int = 4) throws -> Int {
        guard case .int(let length) = self[parameter: "length"]?.revealed ?? .int(value), (1...64).contains(length)
        else { throw HandlerError("'length' of step '\(step)' must be between 1 and 64") }
        return length
    }
}
