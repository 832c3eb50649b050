import JourneyCore

/// Why a scenario's golden transcript cannot be read as its events, and where (a scenario file,
/// or the golden's `path:line:column`).
public struct GoldenProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: String
    public var message: String
    /// The problem's stable id: ``missing``, ``halfUpdated``, ``unreadable`` or ``secretShown``.
    public var id: String

    public init(location: String, message: String, id: String) {
        self.location = location
        self.message = message
        self.id = id
    }

    public var description: String { "\(location): \(message)" }

    /// A scenario has no golden transcript.
    public static let missing = "golden.missing"
    /// A golden pair left half-updated by an interrupted `journey test --update`.
    public static let halfUpdated = "golden.half-updated"
    /// A golden that does not read as a transcript.
    public static let unreadable = "golden.unreadable"
    /// A golden that shows a secret in clear.
    public static let secretShown = "golden.secret"
}

extension GoldenStore {
    /// The scenario's golden transcript read back as events: what the docs show of a scenario
    /// without playing it. `journey test` keeps each golden equal to a real run of its scenario.
    public func events(for scenario: CompiledScenario) -> Result<[TranscriptRecord], GoldenProblem> {
        let name = self.name(for: scenario)
        let record = "record it with `journey test --update`"
        guard !isHalfUpdated(for: scenario) else {
            return .failure(
                GoldenProblem(
                    location: scenario.idLocation.description,
                    message:
                        "the golden pair of scenario '\(scenario.id)', \(name) (.txt and .jsonl), was left half-updated by an interrupted `journey test --update`; run `journey test --update` to finish it",
                    id: GoldenProblem.halfUpdated))
        }
        guard let jsonl = goldens(for: scenario).jsonl else {
            return .failure(
                GoldenProblem(
                    location: scenario.idLocation.description,
                    message: "scenario '\(scenario.id)' has no golden transcript at \(name).jsonl; \(record)",
                    id: GoldenProblem.missing))
        }
        let records: [TranscriptRecord]
        do throws(TranscriptDecodingError) {
            records = try JSONLinesDecoder().decode(jsonl)
        } catch {
            return .failure(
                GoldenProblem(
                    location: "\(name).jsonl:\(error.line):\(error.column)",
                    message: "\(error.message); restore the golden, or re-record it with `journey test --update`",
                    id: GoldenProblem.unreadable))
        }
        guard case .header(let header)? = records.first?.event, header.journey == scenario.journey.id,
            header.scenario == scenario.id
        else {
            return .failure(
                GoldenProblem(
                    location: "\(name).jsonl:1:1",
                    message:
                        "this is not the transcript of scenario '\(scenario.id)' of journey '\(scenario.journey.id)' (its header says otherwise); re-record it with `journey test --update`",
                    id: GoldenProblem.unreadable))
        }
        // A golden that shows a secret is never shown in docs.
        if let problem = secretShown(for: scenario) { return .failure(problem) }
        return .success(records)
    }
}
