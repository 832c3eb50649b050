import JourneyCore

extension CompiledScenario {
    /// A secret the scenario itself gives the run, and where it gives it (never the text).
    public struct GivenSecret: Sendable, Equatable {
        public var text: String
        public var source: String
    }

    /// The secrets the scenario gives: what it types into inputs its steps declare secret, the
    /// PINs it seals, its secret params and the secret values it puts in the device store. A
    /// transcript of it writes each as `•••`, so a golden that shows one in clear was not
    /// recorded by JourneyKit. Texts shorter than ``SecretText/shortest`` are left out (they would
    /// be found by chance), and so is a text the scenario also types into an input that is not
    /// secret.
    public var givenSecrets: [GivenSecret] {
        var found: [GivenSecret] = []
        var typedInPublic: Set<String> = []
        func add(_ value: Value, _ source: String) {
            guard let text = SecretText.of(value), !found.contains(where: { $0.text == text }) else { return }
            found.append(GivenSecret(text: text, source: source))
        }
        for entry in script {
            guard case .input(let step, let values) = entry.kind else { continue }
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                if value.isSecret {
                    add(value, "what the scenario types into '\(name)' at step '\(step)'")
                } else if let text = SecretText.of(value) {
                    typedInPublic.insert(text)
                }
            }
        }
        for (key, pin) in pins.sorted(by: { $0.key < $1.key }) { add(pin, "the PIN the scenario seals as '\(key)'") }
        for (name, value) in params.sorted(by: { $0.key < $1.key }) where value.isSecret {
            add(value, "params.\(name) as the scenario gives it")
        }
        for (key, value) in device.store.sorted(by: { $0.key < $1.key }) where value.isSecret {
            add(value, "stored.\(key) as the scenario sets it")
        }
        return found.filter { !typedInPublic.contains($0.text) }
    }
}

extension GoldenStore {
    /// Where the scenario's golden transcripts show one of the secrets the scenario gives
    /// (``CompiledScenario/givenSecrets``) in clear, as a problem that names the place and
    /// where the secret comes from, never the secret; nil when they show none. JourneyKit writes
    /// every secret as `•••`, so such a golden was written by hand or by something else; it is
    /// neither shown in docs nor compared (a diff would print it).
    public func secretShown(for scenario: CompiledScenario) -> GoldenProblem? {
        scenario.secretShown(in: goldens(for: scenario), name: name(for: scenario))
    }
}

extension CompiledScenario {
    /// ``GoldenStore/secretShown(for:)`` for goldens already read (`golden`), named `name`.
    public func secretShown(in golden: (text: String?, jsonl: String?), name: String) -> GoldenProblem? {
        secretPlace(in: golden, name: name).map { place in
            GoldenProblem(
                location: place.location,
                message:
                    "the golden shows \(place.secret.source), a secret, in clear (JourneyKit writes ••• for it); record it again with `journey test --update`",
                id: GoldenProblem.secretShown)
        }
    }

    /// Where a transcript (`golden`, as files named `name` would hold it) shows one of the
    /// secrets the scenario gives in clear, as `file:line:1`, and which; nil when it shows none.
    ///
    /// - Parameter given: the scenario's ``givenSecrets``, when the caller has them: working
    ///   them out reads the whole script, which a caller asking of every record must not.
    public func secretPlace(
        in golden: (text: String?, jsonl: String?), name: String, given: [GivenSecret]? = nil
    ) -> (location: String, secret: GivenSecret)? {
        let secrets = given ?? givenSecrets
        guard !secrets.isEmpty else { return nil }
        if let jsonl = golden.jsonl {
            // The decoded events find a secret the line escapes; the line itself, one it holds
            // as a number or where no event reads.
            let decoder = JSONLinesDecoder()
            for (index, line) in jsonl.lines.enumerated() {
                let event = try? decoder.decode(line: String(line)).event
                for secret in secrets
                where SecretText.occurs(secret.text, in: String(line)) || event?.shows(secret: secret.text) == true {
                    return ("\(name).jsonl:\(index + 1):1", secret)
                }
            }
        }
        if let text = golden.text {
            for (index, line) in text.lines.enumerated() {
                for secret in secrets where SecretText.occurs(secret.text, in: String(line)) {
                    return ("\(name).txt:\(index + 1):1", secret)
                }
            }
        }
        return nil
    }
}

/// The secrets a scenario gives (``CompiledScenario/givenSecrets``) where a transcript would
/// show them in clear, found in each record as `journey test` finds them in a whole run
/// (``CompiledScenario/secretPlace(in:name:)``): each record written with them as `•••`, and
/// the first shown kept for the run to fail on. For a run whose transcript is written as it
/// goes (`journey run`), where nothing can be held back to be judged whole.
public final class ClearSecrets: @unchecked Sendable {
    private let scenario: CompiledScenario
    private let secrets: [CompiledScenario.GivenSecret]
    private let texts: [String]
    private let jsonl: Bool
    /// The first secret a record showed.
    public private(set) var shown: CompiledScenario.GivenSecret?

    /// - Parameter jsonl: the records are JSON Lines (else the transcript's text).
    public init(_ scenario: CompiledScenario, jsonl: Bool) {
        self.scenario = scenario
        secrets = scenario.givenSecrets
        texts = secrets.map(\.text)
        self.jsonl = jsonl
    }

    /// `record`, as the transcript writes it, with each given secret it shows written `•••`.
    public func redacting(_ record: String) -> String {
        guard !texts.isEmpty else { return record }
        let written: (text: String?, jsonl: String?) = jsonl ? (nil, record) : (record, nil)
        guard let place = scenario.secretPlace(in: written, name: "", given: secrets) else { return record }
        shown = shown ?? place.secret
        return SecretText.redacting(texts, in: record)
    }

    /// Why the run fails, when a record showed a secret.
    public var problem: String? {
        shown.map {
            "the run shows \($0.source), a secret, in clear: the transcript writes ••• for it, but \(Self.cause)"
        }
    }

    /// How a secret the scenario gives comes to show in clear.
    static let cause =
        "something writes it where nothing is declared secret, a value without `secret: true` or a handler's outcome"
}
