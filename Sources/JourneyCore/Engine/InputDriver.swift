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
