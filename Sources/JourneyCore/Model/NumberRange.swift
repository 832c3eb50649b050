/// The ranges numbers in journeys and scenarios keep to, so that no number a user writes can
/// make a run crash, hang or overflow. `journey check` reports a number outside its range at
/// its `file:line:column`; docs/journey-format.md lists them all.
public enum NumberRange {
    /// `max` of an attempt limit.
    public static let attempts = 1...1000
    /// `minLength` and `maxLength` of a form field, in characters.
    public static let fieldLength = 0...10_000
    /// A scenario's `device.kdfRounds`: it may lower the PBKDF2 cost for fast test runs, never
    /// raise it above the real default (OWASP's 600 000 for PBKDF2-HMAC-SHA256).
    public static let kdfRounds = 1...600_000
    /// A project file's `defaults.jobs`, as `journey test --jobs`.
    public static let jobs = 1...1024
    /// `journey explore --depth`, and a project file's `defaults.explore.depth`.
    public static let exploreDepth = 1...1_000_000
    /// `journey explore --restarts`, and a project file's `defaults.explore.restarts`.
    public static let exploreRestarts = 0...1_000_000
    /// `journey explore --states`, and a project file's `defaults.explore.states`.
    public static let exploreStates = 1...100_000_000
    /// A network stub's `status`.
    public static let httpStatus = 100...599
    /// A network stub's `times`.
    public static let stubTimes = 1...10_000
    /// A scenario's `device.clock`, in milliseconds since the Unix epoch: 1970-01-01T00:00:00Z
    /// to 9999-12-31T23:59:59.999Z.
    public static let clock = 0...253_402_300_799_999

    /// The number an `int` or `duration` value holds (milliseconds for a duration).
    public static func number(_ value: Value) -> Int? {
        switch value.revealed {
        case .int(let n), .duration(let n): n
        default: nil
        }
    }

    /// `1…32`, or for durations `0ms…1h`.
    public static func describe(_ range: ClosedRange<Int>, _ type: ValueType) -> String {
        describe(range.lowerBound, type) + "…" + describe(range.upperBound, type)
    }

    public static func describe(_ number: Int, _ type: ValueType) -> String {
        type == .duration ? Duration.format(milliseconds: number) : String(number)
    }
}
