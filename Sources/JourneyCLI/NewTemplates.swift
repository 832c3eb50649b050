import Foundation
import JourneyCore
import JourneySuite

/// The files `journey new` writes: commented so that someone new to JourneyKit learns the
/// language from them, each linked to its JSON Schema for editors, each passing `journey check`.
enum NewTemplates {
    /// Where editors find the schemas when the project has no copy of its own.
    static let publishedSchemas = "https://journeykit.dev/schemas/"

    /// The journey `journey new project` starts with.
    static let firstJourney = "app.unlock"
    /// Its scenario, whose golden transcript `journey new project` records.
    static let firstScenario = "wrong-then-right"

    /// `journeykit.yaml`.
    static func project(schema: String) -> String {
        """
        # yaml-language-server: $schema=\(schema)
        # A JourneyKit project: `journey check`, `journey test` and `journey docs` with no path work
        # on the folders below, from anywhere inside the project. `uses:` adds folders of journeys
        # to call from elsewhere and `defaults:` what commands and scenarios fall back to; see
        # docs/journey-format.md#the-project-file.
        journeys: [journeys]

        """
    }

    /// A PIN unlock with an attempt limit: a small journey that is real (it seals and opens a
    /// PIN with the built-in handlers) and shows steps, screens, outcomes, stored values, a
    /// limit and ends.
    static func journey(id: String, title: String, schema: String) -> String {
        """
        # yaml-language-server: $schema=\(schema)
        # A journey: one sign-in flow as a state machine. Each step runs a handler (a built-in one
        # such as pin.verify, or one of your own) and the outcome it returns picks where to go
        # next, until the journey reaches an end. `journey check` checks this file,
        # `journey handlers` lists every handler with its parameters and outcomes, and
        # docs/journey-format.md describes every key.
        journey: \(id)
        version: 1
        title: \(Counterexample.quoted(title))
        summary: >-
          Asks for the PIN this device keeps. Three wrong PINs in a row lock the app until the user
          signs in again, and restarting the app does not reset the count.

        # Values kept on the device across app restarts. A secret one never shows in a transcript,
        # a report or the docs (they show ••• instead).
        stored:
          pin: { type: string, secret: true, description: "the sealed PIN record; never the PIN itself" }
          pinFailures: { type: int, default: 0, description: "wrong PINs in a row, across app restarts" }

        # An attempt limit: each wrong PIN adds one to stored.pinFailures, and the third leads to
        # the end `locked` instead of back to the step. `keep: true` keeps the count at three, so
        # the next launch is locked too: opening the app again buys no more tries.
        limits:
          pinEntry:
            max: 3
            counter: stored.pinFailures
            exceeded: locked
            keep: true

        start: enterPin

        steps:
          enterPin:
            handler: pin.verify             # opens the sealed PIN with the one typed
            with: { key: pin, length: 4 }
            screen:
              title: Enter your PIN
              text: "Attempts left: ${limits.pinEntry.remaining}"
              actions:
                forgot: Forgot PIN?         # a screen's action is one more outcome of its step
            attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
            on:                             # where each outcome leads: a step or an end
              correct: unlocked
              wrong: enterPin
              missing: locked               # no PIN on this device
              forgot: locked

        ends:
          unlocked: { kind: success, title: Welcome back }
          locked: { kind: failure, title: Please sign in again }

        """
    }

    /// The scenario of ``journey(id:title:schema:)`` that `journey new project` writes: a wrong
    /// PIN, then the right one.
    static func firstScenario(schema: String) -> String {
        """
        # yaml-language-server: $schema=\(schema)
        # A scenario plays one run of a journey: the device it starts on, what the user does at each
        # step, and the end it must reach. `journey run --scenario FILE` plays it and prints its
        # transcript; `journey test` also compares that transcript with the golden one in
        # ../transcripts/ (`journey test --update` records it again after a change you mean).
        scenario: \(firstScenario)
        journey: \(firstJourney)
        title: A wrong PIN costs an attempt; the right one unlocks and resets the count
        tags: [pin]
        device:
          pins: { pin: "2580" }   # sealed on the device before the run, as pin.save seals a PIN
          kdfRounds: 1000         # fast key derivation for tests; the transcript header says so
        script:                   # what the user does, step by step
          - at: enterPin
            pin: "1111"
          - at: enterPin
            pin: "2580"
        expect:
          end: unlocked
          stored: { pinFailures: 0 }

        """
    }

    /// A scenario of `journey` that plays `script` (the lines of its `script:` entry) on
    /// `device` to what `expect` says.
    static func scenario(
        name: String, journey: String, title: String, schema: String, about: [String], device: [String],
        params: [String], script: [String], expect: [String]
    ) -> String {
        var lines = [
            "# yaml-language-server: $schema=\(schema)",
            "# A scenario plays one run of a journey: the device it starts on, what the user does at each",
            "# step, and the end it must reach. `journey run --scenario FILE` plays it and prints its",
            "# transcript; `journey test --update FILE` records that as its golden transcript, which",
            "# `journey test` then compares every run with.",
        ]
        lines += about.map { "# " + $0 }
        lines += ["scenario: \(name)", "journey: \(journey)", "title: \(Counterexample.quoted(title))"]
        lines += device + params + script + expect
        return lines.joined(separator: "\n") + "\n"
    }

    /// A title from a journey id's last part: `acme.sign-in` → `Sign in`.
    static func title(forJourney id: String) -> String {
        let last = id.split(separator: ".").last.map(String.init) ?? id
        let words = last.replacingOccurrences(of: "-", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
