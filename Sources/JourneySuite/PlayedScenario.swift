import JourneyCore

/// What a person played with `journey play` (``PlayedJourney``), as ordinary scenario text: where
/// it started, the moves kept (those undone left out) as a script, and the end reached or the
/// step it waits at as `expect:`. And the `--device key=value` settings play starts from, as a
/// scenario's `device:`, for the scenario loader to check and set up.
public enum PlayedScenario {
    /// A `--device` setting that is not `key=value` on one line.
    public struct BadSetting: Error, Sendable {
        public let message: String
    }

    /// The scenario `id` of `journey`: `moves` from where `start` (a scenario's text) starts, or
    /// from the default device, in `locale` when the play chose one; expecting `end`, or else to
    /// wait at `step`.
    public static func text(
        id: String, journey: CompiledJourney, moves: [JourneyExplorer.Move], startingFrom start: String?,
        locale: String? = nil, end: String?, waitingAt step: String?
    ) -> String {
        var lines = [
            "# yaml-language-server: $schema=https://journeykit.dev/schemas/scenario.schema.json",
            "# Played with journey play.",
            "scenario: \(id)",
            "journey: \(journey.id)",
            "title: \(Counterexample.quoted("\(id), played with journey play"))",
        ]
        if let locale {
            // The locale played in, over the one the start says.
            lines += Counterexample.starting(start).filter { !$0.hasPrefix("locale:") }
            lines.append("locale: \(locale)")
        } else {
            lines += Counterexample.starting(start)
        }
        lines += Counterexample.script(moves)
        lines.append("expect:")
        lines.append(end.map { "  end: \($0)" } ?? "  at: \(step ?? journey.source.start.value)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A scenario of `journey` whose `device:` is `settings` (`biometry=touchID`,
    /// `pins.pin=2580`, `store.onboarded=true`, …), with no script.
    public static func device(_ settings: [String], journey: CompiledJourney) throws(BadSetting) -> String {
        var device: [String] = []
        var pins: [String] = []
        var store: [String] = []
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw BadSetting(message: "--device takes key=value, found '\(setting)'")
            }
            let key = String(setting[..<equals])
            let value = String(setting[setting.index(after: equals)...])
            guard !value.contains("\n"), key.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                throw BadSetting(message: "--device takes key=value on one line, found '\(setting)'")
            }
            if key.hasPrefix("pins.") {
                pins.append("\(key.dropFirst(5)): \(Counterexample.quoted(value))")
            } else if key.hasPrefix("store.") {
                store.append("\(key.dropFirst(6)): \(value)")
            } else {
                device.append("  \(key): \(value)")
            }
        }
        if !pins.isEmpty { device.append("  pins: { \(pins.joined(separator: ", ")) }") }
        if !store.isEmpty { device.append("  store: { \(store.joined(separator: ", ")) }") }
        return """
            scenario: played
            journey: \(journey.id)
            device:
            \(device.joined(separator: "\n"))
            script: []
            expect: { at: \(journey.source.start.value) }

            """
    }
}
