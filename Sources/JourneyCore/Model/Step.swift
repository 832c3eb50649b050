/// A screen or an action in a journey: a handler (or a sub-journey call), what the user sees,
/// and a transition for every outcome.
public struct Step: Sendable {
    public enum Kind: Sendable {
        case handler(Located<String>)
        case call(Located<String>)
    }

    public var id: Located<String>
    public var kind: Kind
    /// Parameters for the handler or params for the called journey, as written.
    public var with: [(name: Located<String>, value: RawValue)]
    public var screen: Screen?
    public var attempts: AttemptCharge?
    public var note: String?
    public var transitions: [(outcome: Located<String>, transition: Transition)]
    public var location: SourceLocation
    /// `verifies: credential`: the step checks a credential the user gives.
    public var verifies: CredentialMark? = nil
}

/// A step's use of an attempt limit.
public struct AttemptCharge: Sendable {
    public var limit: Located<String>
    public var counts: [Located<String>]
    public var resets: [Located<String>]
    public var location: SourceLocation
}

/// What the user sees on a step; used by handlers, transcripts and docs.
public struct Screen: Sendable {
    public var title: LocalizedText?
    public var text: LocalizedText?
    public var actions: [ScreenAction]
    public var fields: [FormField]
}

public struct ScreenAction: Sendable, Hashable {
    public enum Style: String, Sendable, Hashable, CaseIterable { case primary, secondary, destructive }
    public var id: Located<String>
    public var label: LocalizedText
    /// False when the action is written `enabled: false`.
    public var enabled: Bool
    /// `enabled: "${expression}"`: the action is enabled while the expression is true.
    public var enabledWhen: Located<String>?
    public var style: Style?
}

public struct FormField: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable { case text, email, phone, digits, password, `switch` }
    public var name: Located<String>
    public var label: LocalizedText?
    public var kind: Kind
    public var required: Bool
    public var pattern: Located<String>?
    public var minLength: Int?
    public var maxLength: Int?
    public var secret: Bool
}

/// Where an outcome leads: one unguarded branch, or guarded branches ending with an `else`.
public struct Transition: Sendable {
    public var branches: [Branch]
    public var location: SourceLocation
}

public struct Branch: Sendable {
    /// The guard, or nil for an unguarded transition or the `else` branch.
    public var condition: Located<String>?
    public var isElse: Bool
    public var assignments: [Assignment]
    public var target: Located<String>
    public var location: SourceLocation
}

/// One `set` entry: `state.x: value` or `stored.x: value`.
public struct Assignment: Sendable {
    public var target: Located<VariableReference>
    public var value: RawValue
}
