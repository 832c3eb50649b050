/// The headless input driver that plays the user.
public protocol InputDriver: AnyObject {
    /// The driver's answer to a request: input, or something that happens to the app instead.
    nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply
}

public enum DriverReply: Sendable, Equatable {
    case input([String: Value])
    /// Input the app must refuse (an action that is disabled or not shown): refused, it is
    /// recorded and the step asks again; taken, the run fails. `reason` is text the refusal's
    /// reason must contain ("" for any); `line` is where the script says so.
    case refusedInput([String: Value], reason: String, line: Int)
    /// The app is killed and launched again: state is lost, the device store is kept.
    case restart
    /// Time passes on the virtual clock while the step waits.
    case advance(milliseconds: Int)
    /// The device's network comes back (true) or goes away (false) while the step waits.
    case network(online: Bool)
}

extension InputRequest {
    /// Why the app would refuse this input, or nil when it takes it: an action the step does
    /// not show, or shows disabled, cannot be pressed. The run checks every input with it (and
    /// a scenario may expect a refusal); handlers hold other contexts to the same rule.
    public func refusal(of values: [String: Value]) -> String? {
        guard case .string(let action)? = values.value(named: "action")?.revealed, let screen else { return nil }
        guard let shown = screen.actions.first(where: { $0.id == action }) else {
            return "step '\(step)' has no action '\(action)'"
        }
        return shown.enabled ? nil : "action '\(action)' is disabled on step '\(step)'; it cannot be pressed"
    }
}
