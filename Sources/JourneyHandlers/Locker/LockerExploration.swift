import JourneyCore

extension LockerEasyAccessHandler: ExplorableHandler {
    /// `unlocked`: a password typed on the way (by the starting point or the explorer) that opens the vault; `wrong`: one
    /// that does not. Without a readable vault nothing is asked.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        guard let vault = invocation.optionalText("vault") else { return [] }
        // What the starting point typed, then what the explorer types into a form's text field.
        let typed = (hints.typed["password"] ?? []) + ["explored", "exploredexplored"]
        let opens = typed.first { (try? LockerVault.open(vault: vault, secret: $0)) != nil }
        let wrong = (["explored-wrong-password"] + typed).first {
            (try? LockerVault.open(vault: vault, secret: $0)) == nil
        }
        return (opens.map { [ExplorationChoice(label: "unlocked", values: ["password": .string($0)])] } ?? [])
            + (wrong.map { [ExplorationChoice(label: "wrong", values: ["password": .string($0)])] } ?? [])
    }
}
