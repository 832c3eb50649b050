import JourneyCore

/// The PINs `journey explore` types: two that are not weak, so that a PIN can be chosen and then
/// replaced by another, and one that is; each as long as the step's pad.
enum ExplorationPINs {
    static func good(_ length: Int) -> String { pins(length).good }
    static func other(_ length: Int) -> String { pins(length).other }
    static func weak(_ length: Int) -> String { pins(length).weak }

    /// The three PINs of each length a pad may have (``lengthParameter``'s range), made once:
    /// an exploration asks for them at every step that shows a pad.
    private static let byLength = (0...64).map(make)

    private static func pins(_ length: Int) -> (good: String, other: String, weak: String) {
        byLength.indices.contains(length) ? byLength[length] : make(length)
    }

    private static func make(_ length: Int) -> (good: String, other: String, weak: String) {
        (digits("2580369147", length), digits("1397048526", length), String(repeating: "1", count: max(1, length)))
    }

    private static func digits(_ pattern: String, _ length: Int) -> String {
        String(String(repeating: pattern, count: length / pattern.count + 1).prefix(max(1, length)))
    }

    /// Of the good PINs and those the hints know, the ones that open the seal under `key`
    /// (none when nothing is sealed).
    static func opening(_ key: String?, device: DeviceState, length: Int, hints: ExplorationHints) -> [String] {
        guard let key, case .string(let record)? = device.store[key]?.revealed else { return [] }
        let candidates = [good(length), other(length)] + hints.pins.filter { $0.count == length }
        return candidates.filter { (try? PinVault.verify(pin: $0, record: record)) == true }
    }

    static func choice(_ label: String, _ pin: String) -> ExplorationChoice {
        ExplorationChoice(label: label, values: ["pin": .string(pin)])
    }
}

extension PinEntryStepHandler: ExplorableHandler {
    /// `strong`: a PIN that is not weak (and, with `differentFrom`, not the PIN being
    /// replaced); `weak` with `warnWeak`; `same` with `differentFrom` when a PIN is sealed.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let length = (try? invocation.length()) ?? 4
        let current = ExplorationPINs.opening(
            invocation.optionalText("differentFrom"), device: device, length: length, hints: hints)
        let fresh = [ExplorationPINs.good(length), ExplorationPINs.other(length)].first { !current.contains($0) }
        var choices = fresh.map { [ExplorationPINs.choice("strong", $0)] } ?? []
        if invocation[parameter: "warnWeak"] == .bool(true) {
            choices.append(ExplorationPINs.choice("weak", ExplorationPINs.weak(length)))
        }
        if let same = current.first { choices.append(ExplorationPINs.choice("same", same)) }
        return choices
    }
}

extension PinRepeatHandler: ExplorableHandler {
    /// `match`: the first PIN again; `mismatch`: another.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let length = (try? invocation.length()) ?? 4
        guard let first = try? invocation.text("first") else { return [] }
        let other = [ExplorationPINs.good(length), ExplorationPINs.other(length)].first { $0 != first }
        return [ExplorationPINs.choice("match", first)] + (other.map { [ExplorationPINs.choice("mismatch", $0)] } ?? [])
    }
}

extension PinVerifyHandler: ExplorableHandler {
    /// `correct`: the PIN that opens the seal; `wrong`: one that does not.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let length = (try? invocation.length()) ?? 4
        let opening = ExplorationPINs.opening(
            invocation.optionalText("key"), device: device, length: length, hints: hints)
        let wrong = [ExplorationPINs.other(length), ExplorationPINs.good(length), ExplorationPINs.weak(length)].first {
            !opening.contains($0)
        }
        return opening.prefix(1).map { ExplorationPINs.choice("correct", $0) }
            + (wrong.map { [ExplorationPINs.choice("wrong", $0)] } ?? [])
    }
}

extension PinEntryHandler: ExplorableHandler {
    /// With `expected`: `correct` and `wrong`; without: one PIN that is not weak.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let length = (try? invocation.length()) ?? 4
        guard let expected = invocation.optionalText("expected") else {
            return [ExplorationPINs.choice("entered", ExplorationPINs.good(length))]
        }
        let wrong = [ExplorationPINs.other(length), ExplorationPINs.good(length)].first { $0 != expected }
        return [ExplorationPINs.choice("correct", expected)]
            + (wrong.map { [ExplorationPINs.choice("wrong", $0)] } ?? [])
    }
}
