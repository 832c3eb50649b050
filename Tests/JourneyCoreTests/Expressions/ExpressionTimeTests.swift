import JourneyCore
import Testing

/// Time in expressions: duration literals (`60s`, `1h30m`), arithmetic on durations, and the
/// functions that turn the clock's seconds into durations and back.
@Suite("Durations and time in expressions")
struct ExpressionTimeTests {
    /// The clock at 2026-01-01T09:00:00Z, a code sent 42 s before, a lockout ending in 90 s.
    static let values = ExprTestValues([
        "device.now": .int(1_767_258_000),
        "state.sentAt": .int(1_767_257_958),
        "stored.lockedUntil": .int(1_767_258_090),
        "state.delay": .duration(1500),
        "params.resendAfter": .duration(60_000),
        "state.secretAt": .secret(.int(1_767_257_000)),
        "state.tries": .int(2),
    ])

    static let scope = ExprTestScope([
        "device.now": TypeInfo(.int),
        "state.sentAt": TypeInfo(.int),
        "stored.lockedUntil": TypeInfo(.int),
        "state.delay": TypeInfo(.duration),
        "params.resendAfter": TypeInfo(.duration),
        "state.secretAt": TypeInfo(.int, secret: true),
        "state.tries": TypeInfo(.int),
        "state.name": TypeInfo(.string),
    ])

    @Test(
        "duration literals read as durations, compound ones too",
        arguments: [
            ("60s", Value.duration(60_000)),
            ("250ms", .duration(250)),
            ("1.5s", .duration(1500)),
            ("1h30m", .duration(5_400_000)),
            ("5m1s", .duration(301_000)),
            ("2d", .duration(172_800_000)),
            ("1h30m == 90m", .bool(true)),
            ("state.delay < 2s", .bool(true)),
            ("params.resendAfter >= 1m", .bool(true)),
        ])
    func literals(source: String, expected: Value) throws {
        #expect(try Expr.eval(source, Self.values) == expected)
    }

    @Test(
        "durations add, subtract, and scale by ints",
        arguments: [
            ("1m + 30s", Value.duration(90_000)),
            ("1m - 90s", .duration(-30_000)),
            ("state.delay * 2", .duration(3000)),
            ("3 * state.delay", .duration(4500)),
            ("1h / 4", .duration(900_000)),
            ("params.resendAfter - since(state.sentAt)", .duration(18_000)),
        ])
    func arithmetic(source: String, expected: Value) throws {
        #expect(try Expr.eval(source, Self.values) == expected)
        #expect(try Expr.check(source, Self.scope).type == TypeInfo(.duration))
    }

    @Test(
        "since, until and seconds read the clock as device.now does",
        arguments: [
            ("since(state.sentAt)", Value.duration(42_000)),
            ("since(state.sentAt) >= 60s", .bool(false)),
            ("since(state.sentAt) >= 42s", .bool(true)),
            ("until(stored.lockedUntil)", .duration(90_000)),
            ("until(state.sentAt)", .duration(0)),
            ("since(stored.lockedUntil)", .duration(0)),
            ("seconds(until(stored.lockedUntil))", .int(90)),
            ("seconds(1500ms)", .int(1)),
            ("'in ' + str(seconds(params.resendAfter - since(state.sentAt))) + ' s'", .string("in 18 s")),
            ("str(until(stored.lockedUntil))", .string("90s")),
        ])
    func clock(source: String, expected: Value) throws {
        #expect(try Expr.eval(source, Self.values) == expected)
    }

    @Test("an expression that reads the clock says so; one that does not, does not")
    func readsClock() throws {
        #expect(try Expr.parse("since(state.sentAt) >= 60s").readsClock)
        #expect(try Expr.parse("until(stored.lockedUntil) == 0s").readsClock)
        #expect(try Expr.parse("device.now - state.sentAt >= 60").readsClock)
        #expect(try !Expr.parse("state.delay >= 60s").readsClock)
        #expect(try !Expr.parse("seconds(state.delay) > 1").readsClock)
    }

    @Test("a value computed from a secret time stays secret")
    func secrecy() throws {
        #expect(try Expr.eval("since(state.secretAt)", Self.values).isSecret)
        #expect(try Expr.check("since(state.secretAt)", Self.scope).type == TypeInfo(.duration, secret: true))
    }

    @Test(
        "ints and durations do not mix; the message says how to convert",
        arguments: [
            (
                "device.now - state.sentAt >= 60s", 26,
                "'>=' needs two ints, two durations or two strings, found int and duration; seconds(d) gives a duration's seconds, since(t) and until(t) the time from or to t"
            ),
            (
                "since(state.sentAt) - 60", 20,
                "'-' needs two ints or two durations, found duration and int; seconds(d) gives a duration's seconds, since(t) and until(t) the time from or to t"
            ),
            ("1h / state.delay", 3, "'/' needs int operands, or a duration by an int, found duration and duration"),
            (
                "since(state.delay)", 6,
                "'since' needs an int, a time in seconds since 1970 as device.now gives, found duration"
            ),
            (
                "until(state.name)", 6,
                "'until' needs an int, a time in seconds since 1970 as device.now gives, found string"
            ),
            ("seconds(state.tries)", 8, "'seconds' needs a duration, found int"),
            ("state.tries / 1s", 12, "'/' needs int operands, or a duration by an int, found int and duration"),
        ])
    func typeErrors(source: String, offset: Int, message: String) throws {
        let (_, errors) = try Expr.check(source, Self.scope)
        #expect(errors.map(\.message) == [message], "\(source)")
        #expect(errors.map(\.offset) == [offset], "\(source)")
    }

    @Test(
        "durations that are not ones are located syntax errors",
        arguments: [
            ("1m2h", 0, "'1m2h' is not a duration; write its parts from the largest unit down, like 1h30m"),
            ("3651d", 0, "'3651d' is longer than 3650d (about ten years), the longest duration allowed"),
            ("state.delay > 5x", 15, "unexpected 'x' after the number 5"),
            ("1.5", 1, "unexpected '.5' after the number 1"),
        ])
    func badDurations(source: String, offset: Int, message: String) {
        let error = Expr.parseError(source)
        #expect(error?.message == message, "\(source)")
        #expect(error?.offset == offset, "\(source)")
    }

    @Test("overflow and division by zero on durations fail with a message, never a crash")
    func runtimeErrors() throws {
        #expect(try Expr.evalError("1h / (state.tries - 2)", Self.values)?.message == "division by zero in '/'")
        #expect(
            try Expr.evalError("3650d * 9223372036854775807", Self.values)?.message == "integer overflow in '*'")
        let far = ExprTestValues(["device.now": .int(Int.max), "state.sentAt": .int(-5)])
        #expect(try Expr.evalError("since(state.sentAt)", far)?.message == "integer overflow in 'since'")
    }
}
