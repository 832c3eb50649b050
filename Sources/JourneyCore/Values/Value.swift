/// A runtime value in a journey: params, state, stored values, inputs and outcome data.
///
/// A secret value (a PIN, a code, a token) is wrapped in ``Value/secret(_:)`` at its source, so
/// every renderer can redact it without knowing where it came from.
public enum Value: Hashable, Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case list([Value])
    /// A duration in milliseconds.
    case duration(Int)
    /// A value that must never be shown; transcripts print `•••` in its place.
    indirect case secret(Value)

    /// What transcripts and docs print for any secret.
    public static let redacted = "•••"

    /// The most bytes (UTF-8) a text an expression or a template computes may hold, as many as
    /// a value written in a file: a journey that doubles a text on each step is stopped there,
    /// not when the machine's memory runs out.
    public static let maxTextBytes = 64 << 10

    /// A secret read back from a transcript, where it was written as `•••`: known to be
    /// secret, never what it was (its inner value is the mark itself, not the secret's text).
    public static let unknownSecret: Value = .secret(.string(redacted))

    /// Whether this value is, or was computed from, a secret.
    public var isSecret: Bool {
        if case .secret = self { return true }
        return false
    }

    /// The value with any secret wrapper removed. Use only to compute, never to display.
    public var revealed: Value {
        if case .secret(let inner) = self { return inner.revealed }
        return self
    }

    /// Wraps the value as a secret when `secret` is true.
    public func secret(if secret: Bool) -> Value {
        secret && !isSecret ? .secret(self) : self
    }

    /// The value's type, with its secrecy.
    public var typeInfo: TypeInfo {
        switch self {
        case .string: TypeInfo(.string)
        case .int: TypeInfo(.int)
        case .bool: TypeInfo(.bool)
        case .list: TypeInfo(.list)
        case .duration: TypeInfo(.duration)
        case .secret(let inner): TypeInfo(inner.typeInfo.type, secret: true)
        }
    }

    /// A display form with secrets redacted, as transcripts and docs show it.
    public var displayText: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): b ? "true" : "false"
        case .list(let items): "[" + items.map(\.displayText).joined(separator: ", ") + "]"
        case .duration(let ms): Duration.format(milliseconds: ms)
        case .secret: Value.redacted
        }
    }
}

/// The base types a journey value can have.
public enum ValueType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case string, int, bool, list, duration
    /// Accepts any of the above; used only for handler data whose type depends on the journey.
    case any

    public var description: String { rawValue }
}

/// A type plus whether values of it are secret.
public struct TypeInfo: Hashable, Sendable, CustomStringConvertible {
    public var type: ValueType
    /// Values of the type are secret: a PIN, a code, a token. Transcripts, reports and docs
    /// show `•••`, and `journey check` lets them flow only into other secrets.
    public var secret: Bool

    /// `type`, secret when `secret` is true: `TypeInfo(.string, secret: true)` for a PIN.
    public init(_ type: ValueType, secret: Bool = false) {
        self.type = type
        self.secret = secret
    }

    public var description: String { secret ? "secret \(type)" : type.description }
}

/// Durations in journey files: `250ms`, `1.5s`, `5m`, `2h`, `30d`, and compounds of them from
/// the largest unit down, like `1h30m` or `5m1s`.
public enum Duration {
    /// The longest duration a journey or scenario may write: 3650 days (about ten years).
    public static let maximum = 3650 * 86_400_000
    /// How messages describe what a duration may be.
    public static let rule = "a duration like 250ms, 1.5s, 5m or 1h30m, at most 3650d"

    static let units: [(suffix: String, factor: Double)] = [
        ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1),
    ]

    /// Parses a duration literal into milliseconds, or returns nil (see ``problem(with:)``).
    public static func parse(_ text: String) -> Int? {
        if case .success(let ms) = read(text) { return ms }
        return nil
    }

    /// Why `text` is not a duration, or nil when it is one.
    public static func problem(with text: String) -> String? {
        if case .failure(let problem) = read(text) { return problem.text }
        return nil
    }

    /// Whether `text` is written as a duration but is longer than ``maximum``.
    public static func isTooLong(_ text: String) -> Bool {
        if case .failure(let problem) = read(text) { return problem.tooLong }
        return false
    }

    struct Problem: Error {
        let text: String
        var tooLong = false
    }

    static func read(_ text: String) -> Result<Int, Problem> {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var total = 0.0
        var lastUnit = -1
        guard !scalars.isEmpty else { return .failure(Problem(text: "a duration is empty; write \(rule)")) }
        while index < scalars.count {
            var number = ""
            while index < scalars.count, scalars[index].isASCIIDigit || scalars[index] == "." {
                number.unicodeScalars.append(scalars[index])
                index += 1
            }
            var unit = ""
            while index < scalars.count, scalars[index].isASCIILetter {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            let parts = number.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }), let value = Double(number),
                let u = units.firstIndex(where: { $0.suffix == unit })
            else { return .failure(Problem(text: "'\(text)' is not a duration; write \(rule)")) }
            guard u > lastUnit else {
                return .failure(
                    Problem(text: "'\(text)' is not a duration; write its parts from the largest unit down, like 1h30m")
                )
            }
            lastUnit = u
            total += value * units[u].factor
            guard total <= Double(maximum) else {
                return .failure(
                    Problem(
                        text: "'\(text)' is longer than 3650d (about ten years), the longest duration allowed",
                        tooLong: true))
            }
        }
        // Milliseconds are the smallest unit a clock moves by: `0.5ms` or `1.0005s` is no
        // duration, rather than one rounded to what was not written.
        guard abs(total - total.rounded()) < 1e-6 else {
            return .failure(Problem(text: "'\(text)' is not a whole number of milliseconds; write \(rule)"))
        }
        return .success(Int(total.rounded()))
    }

    /// Formats milliseconds the way journeys write them: `1.5s`, `5m`, `250ms`, `2d`.
    public static func format(milliseconds ms: Int) -> String {
        if ms % 86_400_000 == 0 && ms > 0 { return "\(ms / 86_400_000)d" }
        if ms % 3_600_000 == 0 && ms > 0 { return "\(ms / 3_600_000)h" }
        if ms % 60_000 == 0 && ms > 0 { return "\(ms / 60_000)m" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        if ms >= 1000 {
            // Whole seconds and the milliseconds past them, in digits: a Double would write a
            // long duration with an exponent (9.223372036854776e+15s), and round it.
            var fraction = String(ms % 1000)
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return "\(ms / 1000).\(fraction)s"
        }
        return "\(ms)ms"
    }
}

extension [String: Value] {
    /// The value named `name`. A run's inputs, outcome data, params, state and store mostly
    /// hold a few entries, whose names are compared one by one instead of hashing the name:
    /// up to six entries that is the quicker of the two.
    public func value(named name: String) -> Value? {
        guard count <= 6 else { return self[name] }
        var index = startIndex
        while index != endIndex {
            if keys[index] == name { return values[index] }
            formIndex(after: &index)
        }
        return nil
    }
}
