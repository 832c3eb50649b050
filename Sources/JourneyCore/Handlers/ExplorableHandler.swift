import Foundation

/// A handler that can say which concrete inputs stand for each class of input its step takes,
/// so that `journey explore` can play every class: only the handler knows what "the right
/// PIN" is for the seal on the device, or "a PIN that repeats the first".
///
/// Handlers whose inputs are screen actions, or texts whose classes are their values (a
/// biometric `result: success`), need not conform: the explorer plays those classes as they
/// are written. A step that asks for anything else of a handler that does not conform is
/// left out of the exploration, and the explorer says so.
public protocol ExplorableHandler: StepHandler {
    /// The inputs to play at a step that asks `request`, one per class, in the order the
    /// contract lists the classes; screen actions aside, which the explorer adds. `device` is
    /// the device as the step sees it (its store holds the seal a PIN must open); `hints` are
    /// values the exploration's starting point knows (a scenario's PINs).
    func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice]
}

/// What an exploration knows from where it starts: the PINs a scenario sealed or typed, so that
/// "the right PIN" can be played for a seal the explorer did not make.
public struct ExplorationHints: Sendable, Hashable {
    public var pins: [String]
    /// The texts the starting point types, by input name (a form field's value, a password),
    /// each once, in order: a value a field's pattern accepts, or the password that opens a
    /// vault the scenario made, is one of them.
    public var typed: [String: [String]]
    /// Waits the starting point's servers set, in milliseconds, each once, in order: the
    /// lifetime of each token its stubs issue (OAuth's `expires_in`, RFC 6749 5.1). A journey
    /// that keeps a token's expiry as `device.now + outcome.expiresIn` writes no duration to
    /// jump the clock by; these are the jumps that let it expire.
    public var waits: [Int]

    public init(pins: [String] = [], typed: [String: [String]] = [:], waits: [Int] = []) {
        self.pins = pins
        self.typed = typed
        self.waits = waits
    }

    /// The lifetimes the JSON bodies of `stubs` give their tokens, in milliseconds, each once and
    /// in order: every `expires_in` (and `refresh_expires_in`, as Keycloak sends it) that is a
    /// whole number of seconds from 1 to the longest duration a journey may write.
    public static func waits(in stubs: [NetworkStub]) -> [Int] {
        var found = Set<Int>()
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, inner) in object {
                    if key == "expires_in" || key == "refresh_expires_in", let seconds = inner as? Int,
                        (1...Duration.maximum / 1000).contains(seconds)
                    {
                        found.insert(seconds * 1000)
                    }
                    walk(inner)
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        for stub in stubs {
            guard let body = try? JSONSerialization.jsonObject(with: Data(stub.body.utf8)) else { continue }
            walk(body)
        }
        return found.sorted()
    }
}

/// One class of input, as concrete values: `correct` is `{pin: "2580"}` when 2580 opens the seal.
public struct ExplorationChoice: Sendable, Hashable {
    /// The class's name, as moves and counterexamples show it (`correct`, `weak`).
    public var label: String
    /// The input to give, by input name.
    public var values: [String: Value]

    public init(label: String, values: [String: Value]) {
        self.label = label
        self.values = values
    }
}
