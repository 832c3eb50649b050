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
    /// wait at `step`. Moves that open the app again after an end make `sessions`.
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
        // The app opened again after an end is a new session.
        lines += Counterexample.played(
            Counterexample.sessions(moves),
            expecting: [end.map { "end: \($0)" } ?? "at: \(step ?? journey.source.start.value)"])
        return lines.joined(separator: "\n") + "\n"
    }

    /// A scenario of `journey` whose `device:` is `settings` (`biometry=touchID`,
    /// `pins.pin=2580`, `store.onboarded=true`, …), with no script.
    public static func device(_ settings: [String], journey: CompiledJourney) throws(BadSetting) -> String {
        try deviceScenario(settings, journey: journey).text
    }

    /// Where a setting was written into the scenario's text: its line, and the columns of that
    /// line it takes (1-based, the end excluded).
    public struct Origin: Sendable, Equatable {
        public var line: Int
        public var columns: Range<Int>
        public var setting: String

        /// The setting as a message may show it: the value of a PIN, or of a stored key that
        /// `secretStored` says is secret, as `•••`.
        public func shown(secretStored: (String) -> Bool) -> String {
            PlayedScenario.shown(setting, secretStored: secretStored)
        }

        public init(line: Int, columns: Range<Int>, setting: String) {
            self.line = line
            self.columns = columns
            self.setting = setting
        }
    }

    /// A `--device` setting as a message may show it: the value of a PIN, of a stored key that
    /// `secretStored` says is secret, or of a dotted key that is neither (`pin.pin=2580`, which
    /// may well be a PIN), as `•••`.
    public static func shown(_ setting: String, secretStored: (String) -> Bool) -> String {
        guard let equals = setting.firstIndex(of: "=") else { return setting }
        let key = setting[..<equals]
        let secret = key.hasPrefix("store.") ? secretStored(String(key.dropFirst(6))) : key.contains(".")
        return secret ? key + "=\(Value.redacted)" : setting
    }

    /// ``device(_:journey:)``, and where each setting went in the text, so that a problem the
    /// scenario loader finds there is said of the `--device` setting that made it.
    public static func deviceScenario(
        _ settings: [String], journey: CompiledJourney
    ) throws(BadSetting) -> (text: String, origins: [Origin]) {
        var device: [String] = []
        var origins: [Origin] = []
        var pins: [(text: String, setting: String)] = []
        var store: [(text: String, setting: String)] = []
        /// The keys the settings set.
        var given = Set<String>()
        // The scenario's fourth line is the device's first.
        let firstLine = 4
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw BadSetting(message: "--device takes key=value, found '\(setting)'")
            }
            let key = String(setting[..<equals])
            given.insert(key)
            let value = String(setting[setting.index(after: equals)...])
            guard !value.contains("\n"), key.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                // No stored value is shown: the journey alone does not tell which are secret.
                let shown = Self.shown(setting) { _ in true }
                throw BadSetting(message: "--device takes key=value on one line, found '\(shown)'")
            }
            if let dot = key.firstIndex(of: "."), !key.hasPrefix("pins."), !key.hasPrefix("store.") {
                // Only PINs and stored values are named with a dot; its value is not shown.
                let meant = Suggestion.closest(to: String(key[..<dot]), in: ["pins", "store"])
                throw BadSetting(
                    message:
                        "--device \(Self.shown(setting) { _ in true }): unknown key '\(key)': a key with a dot is pins.NAME (a PIN sealed under NAME) or store.NAME (a value the device keeps)"
                        + (meant.map { "; did you mean '\($0)\(key[dot...])'?" } ?? ""))
            }
            if key.hasPrefix("pins.") {
                pins.append(("\(key.dropFirst(5)): \(Counterexample.quoted(value))", setting))
            } else if key.hasPrefix("store.") {
                store.append(("\(key.dropFirst(6)): \(value)", setting))
            } else {
                let line = "  \(key): \(value)"
                origins.append(Origin(line: firstLine + device.count, columns: 1..<(line.count + 1), setting: setting))
                device.append(line)
            }
        }
        // The rest as on the device play starts on without --device (Face ID enrolled, one round
        // of key derivation): a setting changes that device, and a scenario saved from it replays
        // as fast as the play ran.
        let start = JourneyExplorer.defaultDevice.profile
        if given.isDisjoint(with: ["biometry", "enrolled"]) {
            device += ["  biometry: \(start.biometry.rawValue)", "  enrolled: \(start.biometryEnrolled)"]
        }
        if !given.contains("kdfRounds"), let rounds = start.kdfRounds { device.append("  kdfRounds: \(rounds)") }
        for (name, entries) in [("pins", pins), ("store", store)] where !entries.isEmpty {
            var line = "  \(name): { "
            for (index, entry) in entries.enumerated() {
                if index > 0 { line += ", " }
                let column = line.count + 1
                line += entry.text
                // A problem at the brace or the separator before an entry is that entry's.
                let from = index == 0 ? 1 : column - 2
                origins.append(
                    Origin(line: firstLine + device.count, columns: from..<(line.count + 1), setting: entry.setting))
            }
            line += " }"
            device.append(line)
        }
        let text = """
            scenario: played
            journey: \(journey.id)
            device:
            \(device.joined(separator: "\n"))
            script: []
            expect: { at: \(journey.source.start.value) }

            """
        return (text, origins)
    }

    /// The setting a problem at `line`:`column` of ``deviceScenario(_:journey:)``'s text is in:
    /// the one written there, or, past the last on its line, that line's last.
    public static func origin(at line: Int, column: Int, in origins: [Origin]) -> Origin? {
        let onLine = origins.filter { $0.line == line }
        return onLine.first { $0.columns.contains(column) } ?? onLine.last
    }
}
