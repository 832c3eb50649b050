import JourneyCore
import Testing

@Suite("Expression type checking")
struct ExpressionTypeCheckTests {
    @Test(
        "well-typed expressions have their type",
        arguments: [
            ("1 + 2", TypeInfo(.int)),
            ("'a' + state.name", TypeInfo(.string)),
            ("state.tries * 2 - 1 / 1 % 3", TypeInfo(.int)),
            ("-state.tries", TypeInfo(.int)),
            ("state.tries < 3", TypeInfo(.bool)),
            ("state.delay >= params.timeout", TypeInfo(.bool)),
            ("state.name <= 'b'", TypeInfo(.bool)),
            ("state.done == false", TypeInfo(.bool)),
            ("state.tags != ['a']", TypeInfo(.bool)),
            ("'a' in state.tags", TypeInfo(.bool)),
            ("!state.done && device.online || false", TypeInfo(.bool)),
            ("state.done ? 'a' : state.name", TypeInfo(.string)),
            ("['a', state.name]", TypeInfo(.list)),
            ("len(state.name)", TypeInfo(.int)),
            ("len(device.apps)", TypeInfo(.int)),
            ("lower(state.email)", TypeInfo(.string)),
            ("upper(state.email)", TypeInfo(.string)),
            ("contains(state.email, '@')", TypeInfo(.bool)),
            ("contains(device.apps, 'mail')", TypeInfo(.bool)),
            ("startsWith(state.email, 'ada')", TypeInfo(.bool)),
            ("endsWith(state.email, '.org')", TypeInfo(.bool)),
            ("matches(state.email, '^[^@]+@[^@]+$')", TypeInfo(.bool)),
            ("str(state.tries) + ' tries'", TypeInfo(.string)),
            ("str(state.tags)", TypeInfo(.string)),
            ("limits.pin.count >= params.pinLength", TypeInfo(.bool)),
            ("state.name", TypeInfo(.string)),
        ])
    func wellTyped(source: String, expected: TypeInfo) throws {
        let (type, errors) = try Expr.check(source)
        #expect(errors == [])
        #expect(type == expected)
    }

    @Test(
        "'any' passes the type check",
        arguments: [
            ("outcome.data + 1", TypeInfo(.int)),
            ("outcome.data + 'x'", TypeInfo(.string)),
            ("outcome.data + outcome.data", TypeInfo(.any)),
            ("outcome.data == 'x'", TypeInfo(.bool)),
            ("outcome.data < 3", TypeInfo(.bool)),
            ("outcome.data && true", TypeInfo(.bool)),
            ("outcome.data in outcome.data", TypeInfo(.bool)),
            ("len(outcome.data)", TypeInfo(.int)),
            ("true ? outcome.data : 1", TypeInfo(.any)),
            ("outcome.data", TypeInfo(.any)),
        ])
    func anyType(source: String, expected: TypeInfo) throws {
        let (type, errors) = try Expr.check(source)
        #expect(errors == [])
        #expect(type == expected)
    }

    @Test(
        "arithmetic that can never be computed is an error before anything runs; near it, none is",
        arguments: [
            ("state.tries / 0", "division by zero in '/'"),
            ("state.tries % 0", "division by zero in '%'"),
            ("1h / 0", "division by zero in '/'"),
            ("9223372036854775807 + 1", "integer overflow in '+'"),
            ("-9223372036854775807 - 2", "integer overflow in '-'"),
            ("4611686018427387904 * 2", "integer overflow in '*'"),
            ("9223372036854775807 - 1", nil),
            ("state.tries / 1", nil),
            ("state.tries / (1 - 1)", nil),  // only a literal zero is known without running
            ("'a' + 'b'", nil),
        ] as [(String, String?)])
    func constantArithmetic(source: String, message: String?) throws {
        let (type, errors) = try Expr.check(source)
        if let message {
            #expect(type == nil)
            #expect(errors.map(\.message) == [message], "\(errors)")
        } else {
            #expect(errors == [], "\(errors)")
        }
    }

    @Test("an unknown name suggests a known path")
    func unknownName() throws {
        let (type, errors) = try Expr.check("1 + 1 == 2 && state.emial == 'x'")
        #expect(type == TypeInfo(.bool))
        #expect(
            errors == [
                ExpressionError(
                    id: "expr.undefined",
                    message: "unknown name 'state.emial'; did you mean 'state.email'?",
                    offset: 14)
            ])

        let far = try Expr.check("state.zzzzzzzzzzzzz")
        #expect(far.type == nil)
        #expect(far.errors.map(\.message) == ["unknown name 'state.zzzzzzzzzzzzz'"])

        let limit = try Expr.check("limits.pin.cuont > 1")
        #expect(
            limit.errors.map(\.message) == [
                "unknown name 'limits.pin.cuont'; did you mean 'limits.pin.count'?"
            ])
    }

    @Test(
        "type errors name the operator and the types found",
        arguments: [
            ("1 && true", 2, "'&&' needs bool operands, found int and bool"),
            ("state.done or 'x'", 11, "'||' needs bool operands, found bool and string"),
            (
                "state.name + 1", 11,
                "'+' needs two ints, two durations or two strings, found string and int; use str() to make a string of the other"
            ),
            (
                "state.tags + state.tags", 11,
                "'+' needs two ints, two durations or two strings, found list and list"
            ),
            (
                "state.tries + state.delay", 12,
                "'+' needs two ints, two durations or two strings, found int and duration; seconds(d) gives a duration's seconds, since(t) and until(t) the time from or to t"
            ),
            ("'a' - 1", 4, "'-' needs two ints or two durations, found string and int"),
            ("state.tries * true", 12, "'*' needs int operands, or a duration and an int, found int and bool"),
            ("state.tries / 'x'", 12, "'/' needs int operands, or a duration by an int, found int and string"),
            ("state.tries % state.delay", 12, "'%' needs int operands, found int and duration"),
            (
                "state.tries < state.name", 12,
                "'<' needs two ints, two durations or two strings, found int and string"
            ),
            (
                "state.delay > 5", 12,
                "'>' needs two ints, two durations or two strings, found duration and int; write 5s for 5 seconds (or 5m, 5h)"
            ),
            (
                "state.delay > state.tries", 12,
                "'>' needs two ints, two durations or two strings, found duration and int; seconds(d) gives a duration's seconds, since(t) and until(t) the time from or to t"
            ),
            (
                "true >= false", 5,
                "'>=' needs two ints, two durations or two strings, found bool and bool"
            ),
            (
                "state.tries == 'x'", 12,
                "'==' needs operands of the same type, found int and string"
            ),
            ("state.done != 1", 11, "'!=' needs operands of the same type, found bool and int"),
            (
                "1 in state.tags", 2,
                "'in' needs a string on its left and a list on its right, found int and list"
            ),
            (
                "'a' in 'abc'", 4,
                "'in' needs a string on its left and a list on its right, found string and string"
            ),
            ("!1", 0, "'!' needs a bool operand, found int"),
            ("-'a'", 0, "'-' needs an int operand, found string"),
            ("state.tries ? 1 : 2", 0, "the condition of '?:' must be bool, found int"),
            (
                "true ? 1 : 'a'", 5,
                "the branches of '?:' must have the same type, found int and string"
            ),
            ("len(1)", 4, "'len' needs a string or a list, found int"),
            ("lower(state.tags)", 6, "'lower' needs a string, found list"),
            ("upper(1)", 6, "'upper' needs a string, found int"),
            (
                "contains(1, 'a')", 9,
                "'contains' needs a string or a list as its first argument, found int"
            ),
            (
                "contains(state.tags, 1)", 21,
                "'contains' needs a string as its second argument, found int"
            ),
            (
                "startsWith(state.tags, 'a')", 11,
                "'startsWith' needs a string as its first argument, found list"
            ),
            ("endsWith('a', 1)", 14, "'endsWith' needs a string as its second argument, found int"),
            (
                "matches(state.tries, 'x')", 8,
                "'matches' needs a string as its first argument, found int"
            ),
            ("['a', 1]", 6, "list items must be strings, found int"),
        ])
    func typeErrors(source: String, offset: Int, message: String) throws {
        let (_, errors) = try Expr.check(source)
        #expect(errors == [ExpressionError(id: "expr.type", message: message, offset: offset)])
    }

    @Test("every error is collected, and one mistake gives one error")
    func collectsErrors() throws {
        let (type, errors) = try Expr.check("1 && 2 || 'a' == 1")
        #expect(type == TypeInfo(.bool))
        #expect(errors.map(\.offset) == [2, 14])
        #expect(errors.allSatisfy { $0.id == "expr.type" })

        let cascade = try Expr.check("(state.emial + 1) * 2 > 2 && len(state.nmae) == 3")
        #expect(cascade.errors.map(\.id) == ["expr.undefined", "expr.undefined"])
        #expect(cascade.type == TypeInfo(.bool))

        let bad = try Expr.check("state.name + 1")
        #expect(bad.type == nil)
    }

    @Test(
        "secrecy propagates, except through ==, !=, len and matches; the branch a secret condition chooses tells it",
        arguments: [
            ("outcome.pin == 'x'", TypeInfo(.bool)),
            ("outcome.pin != state.firstPin", TypeInfo(.bool)),
            ("len(outcome.pin)", TypeInfo(.int)),
            ("matches(outcome.pin, '^[0-9]+$')", TypeInfo(.bool)),
            ("outcome.pin == 'x' ? 'a' : 'b'", TypeInfo(.string)),
            ("outcome.flag ? 'a' : 'b'", TypeInfo(.string, secret: true)),
            ("startsWith(outcome.pin, '7') ? 'a' : 'b'", TypeInfo(.string, secret: true)),
            ("outcome.pin < '5' ? 1 : 2", TypeInfo(.int, secret: true)),
            ("!(outcome.flag ? true : false)", TypeInfo(.bool, secret: true)),
            ("outcome.pin + 'x'", TypeInfo(.string, secret: true)),
            ("'x' + outcome.pin", TypeInfo(.string, secret: true)),
            ("true ? outcome.pin : 'b'", TypeInfo(.string, secret: true)),
            ("false ? 'b' : outcome.pin", TypeInfo(.string, secret: true)),
            ("state.pinCount * 2", TypeInfo(.int, secret: true)),
            ("-state.pinCount", TypeInfo(.int, secret: true)),
            ("state.pinCount > 3", TypeInfo(.bool, secret: true)),
            ("str(state.pinCount)", TypeInfo(.string, secret: true)),
            ("outcome.pin in state.tags", TypeInfo(.bool, secret: true)),
            ("contains(state.tags, outcome.pin)", TypeInfo(.bool, secret: true)),
            ("startsWith(outcome.pin, '1')", TypeInfo(.bool, secret: true)),
            ("!outcome.flag", TypeInfo(.bool, secret: true)),
            ("outcome.flag && true", TypeInfo(.bool, secret: true)),
            ("false || outcome.flag", TypeInfo(.bool, secret: true)),
            ("[outcome.pin, 'a']", TypeInfo(.list, secret: true)),
            ("lower(outcome.pin)", TypeInfo(.string, secret: true)),
            ("upper(outcome.pin)", TypeInfo(.string, secret: true)),
            ("len(lower(outcome.pin)) == 6", TypeInfo(.bool)),
        ])
    func secrecy(source: String, expected: TypeInfo) throws {
        let (type, errors) = try Expr.check(source)
        #expect(errors == [])
        #expect(type == expected)
    }
}
