/// A rule a journey states about itself under `invariants:`, which `journey explore` checks on
/// every path and `journey run` and `journey test` check as they run:
///
/// ```yaml
/// invariants:
///   pin-before-home:
///     summary: Home is never shown before a PIN is set
///     never: step == 'home' && stored.pin == ''
///   no-code-after-lock:
///     never: step == 'otp'
///     after: step == 'locked'
/// ```
///
/// The condition is checked each time the journey enters a step and when it reaches an end.
/// With `after`, the rule holds from the first point on the path where `after` holds (that
/// point included), restarts and all.
public struct JourneyInvariant: Sendable {
    /// What the condition must do.
    public enum Form: String, Sendable, Hashable, CaseIterable {
        /// The condition never holds (after `after`, when given).
        case never
        /// The condition always holds (after `after`, when given).
        case always
        /// The condition holds only once `after` has held: `after` is required.
        case only
    }

    /// The invariant's id, kebab-case: reported as `invariant.ID`.
    public var id: Located<String>
    /// One sentence saying what the rule protects, for messages and docs.
    public var summary: String?
    public var form: Form
    /// The condition, a bool expression.
    public var condition: Located<String>
    /// The condition that starts the rule, for the temporal forms.
    public var after: Located<String>?
    public var location: SourceLocation

    public init(
        id: Located<String>, summary: String?, form: Form, condition: Located<String>, after: Located<String>?,
        location: SourceLocation
    ) {
        self.id = id
        self.summary = summary
        self.form = form
        self.condition = condition
        self.after = after
        self.location = location
    }

    /// The id the invariant is reported under: `invariant.ID`.
    public var reportedId: String { Self.prefix + id.value }

    /// What reported ids of a journey's own invariants start with.
    public static let prefix = "invariant."

    /// The rule as written, in one line: `never: X after: Y`.
    public var written: String {
        "\(form.rawValue): \(condition.value)" + (after.map { ", after: \($0.value)" } ?? "")
    }
}

/// A step's mark that it verifies a credential the user gives (`verifies: credential`): the
/// outcomes with which it has. `explore.credential-before-success` asks that no path reach a
/// success end without passing such a step with one of them.
public struct CredentialMark: Sendable {
    /// The outcomes that mean the credential was right, as written; empty when the step takes
    /// those its handler declares (``HandlerContract/verifiedOutcomes``).
    public var outcomes: [Located<String>]
    public var location: SourceLocation

    public init(outcomes: [Located<String>], location: SourceLocation) {
        self.outcomes = outcomes
        self.location = location
    }
}
