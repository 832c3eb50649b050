/// A journey as written in its file: one sign-in flow with its params, state, steps and ends.
///
/// This is the loaded form, with every location kept for diagnostics. ``JourneyCompiler``
/// checks it against the handlers and turns it into a ``CompiledJourney`` that can run.
public struct Journey: Sendable {
    public var id: Located<String>
    public var file: String
    public var title: LocalizedText
    public var summary: LocalizedText?
    public var locales: [String]
    public var params: [VariableDeclaration]
    public var state: [VariableDeclaration]
    public var stored: [VariableDeclaration]
    public var outputs: [Output]
    public var limits: [AttemptLimit]
    public var start: Located<String>
    public var steps: [Step]
    public var ends: [End]
    public var location: SourceLocation
    /// The auth rules the journey breaks on purpose, each with why (``AuthRule``).
    public var exceptions: [RuleException] = []
    /// The rules the journey states about itself (``JourneyInvariant``).
    public var invariants: [JourneyInvariant] = []
    /// Steps and ends whose definitions had errors and were left out; targets naming them are
    /// not reported again.
    public var unloadedSteps: Set<String> = []
    /// Limits, params, state and stored values whose declarations had errors and were left
    /// out (`limits.NAME`, `state.NAME`, …): what reads them is not reported again.
    public var unloadedNames: Set<String> = []
    /// Whether loading found errors. An incomplete journey is still checked (so that all of a
    /// file's problems are reported at once) but never runs.
    public var isIncomplete = false

    /// The default locale: the first of ``locales``.
    public var defaultLocale: String { locales.first ?? "en" }

    /// The locale its texts are rendered in when `requested` is asked for: that one when the
    /// journey has texts in it, else its default (`journey check` warns of the others).
    public func locale(for requested: String?) -> String {
        requested.flatMap { locales.contains($0) ? $0 : nil } ?? defaultLocale
    }

}

/// A value together with where it was written.
public struct Located<Value: Sendable & Hashable>: Sendable, Hashable {
    public var value: Value
    public var location: SourceLocation

    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

/// A declared param, state value or stored value.
public struct VariableDeclaration: Sendable {
    public var name: Located<String>
    public var type: TypeInfo
    /// The default as written; typed by ``type`` when compiled.
    public var defaultValue: RawValue?
    public var description: String?
}

/// A value a journey returns to its caller when it runs as a sub-journey.
public struct Output: Sendable {
    public var name: Located<String>
    public var value: Template
    public var location: SourceLocation
}

/// The language's attempt-limit construct: the three-strike rule, with an optional lockout
/// ("try again in 15 minutes").
public struct AttemptLimit: Sendable {
    /// How many attempts a limit allows.
    public enum Maximum: Sendable, Hashable {
        /// A number written in the journey (1 to 1000).
        case fixed(Int)
        /// `"${expr}"`: an int expression over the journey's params, evaluated when the journey
        /// starts (kept as written, typed when compiled).
        case computed(RawValue)
    }

    public var name: Located<String>
    public var max: Maximum
    /// Where `max` was written.
    public var maxLocation: SourceLocation
    /// Where the count lives: `stored.NAME` (survives restarts) or `state.NAME`.
    public var counter: Located<VariableReference>
    /// Where the journey goes when the limit is reached.
    public var exceeded: Transition
    /// Whether the counter keeps its value when the limit is exceeded (default: reset to 0).
    public var keep: Bool
    /// How long the limit stays locked once exceeded, in milliseconds (whole seconds).
    public var lockout: Located<Int>?
    /// Where the time the lockout ends is kept: an int, seconds since 1970 (0: no lockout).
    public var lockedUntil: Located<VariableReference>?

    /// Whether the limit is written to lock out (even if its lockout has errors): expressions
    /// may read its `locked` and `unlocksIn`.
    public var locksOut: Bool { lockout != nil || lockedUntil != nil }

    public init(
        name: Located<String>, max: Maximum, maxLocation: SourceLocation, counter: Located<VariableReference>,
        exceeded: Transition, keep: Bool, lockout: Located<Int>? = nil, lockedUntil: Located<VariableReference>? = nil
    ) {
        self.name = name
        self.max = max
        self.maxLocation = maxLocation
        self.counter = counter
        self.exceeded = exceeded
        self.keep = keep
        self.lockout = lockout
        self.lockedUntil = lockedUntil
    }
}

/// `state.NAME` or `stored.NAME`: a value a `set` or a limit can write.
public struct VariableReference: Sendable, Hashable, CustomStringConvertible {
    public enum Scope: String, Sendable, Hashable { case state, stored }
    public var scope: Scope
    public var name: String

    public init(scope: Scope, name: String) {
        self.scope = scope
        self.name = name
    }

    public var description: String { "\(scope.rawValue).\(name)" }

    /// Parses `state.x` or `stored.x`.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let scope = Scope(rawValue: String(parts[0])), !parts[1].isEmpty else { return nil }
        self.init(scope: scope, name: String(parts[1]))
    }
}

/// How an end finishes the journey.
public enum EndKind: String, Sendable, Hashable, CaseIterable {
    case success, failure, cancel
}

/// A named end of a journey.
public struct End: Sendable {
    public var id: Located<String>
    public var kind: EndKind
    public var title: LocalizedText?
    public var text: LocalizedText?
}

/// A YAML value as written, before the journey says which type it has.
public indirect enum RawValue: Sendable, Hashable {
    case scalar(String, plain: Bool, SourceLocation)
    case list([RawValue], SourceLocation)
    /// A mapping; each entry keeps where its key was written, for diagnostics about keys.
    case map([(key: String, value: RawValue, keyLocation: SourceLocation)], SourceLocation)

    public var location: SourceLocation {
        switch self {
        case .scalar(_, _, let l), .list(_, let l), .map(_, let l): l
        }
    }

    public static func == (a: RawValue, b: RawValue) -> Bool {
        switch (a, b) {
        case (.scalar(let x, let p, let l), .scalar(let y, let q, let m)): x == y && p == q && l == m
        case (.list(let x, let l), .list(let y, let m)): x == y && l == m
        case (.map(let x, let l), .map(let y, let m)):
            l == m && x.count == y.count
                && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value && $0.keyLocation == $1.keyLocation }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .scalar(let s, let p, let l): hasher.combine(s); hasher.combine(p); hasher.combine(l)
        case .list(let items, let l): hasher.combine(items); hasher.combine(l)
        case .map(let pairs, let l):
            for pair in pairs {
                hasher.combine(pair.key)
                hasher.combine(pair.value)
                hasher.combine(pair.keyLocation)
            }
            hasher.combine(l)
        }
    }
}

/// A text in one or more locales, each a template that may interpolate `${…}`.
public struct LocalizedText: Sendable, Hashable {
    public var entries: [Entry]
    public var location: SourceLocation

    public struct Entry: Sendable, Hashable {
        /// The locale, or nil when one text serves every locale.
        public var locale: String?
        public var template: Template
        public var location: SourceLocation
    }

    /// The template for `locale`, falling back to `fallback`, then to the first entry.
    public func template(for locale: String, fallback: String) -> Template? {
        entries.first { $0.locale == locale }?.template
            ?? entries.first { $0.locale == nil }?.template
            ?? entries.first { $0.locale == fallback }?.template
            ?? entries.first?.template
    }
}

extension Journey {
    /// The stored keys this journey declares secret.
    public var secretStoredKeys: [String] {
        stored.filter(\.type.secret).map(\.name.value)
    }
}
