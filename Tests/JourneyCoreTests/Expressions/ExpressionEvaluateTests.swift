import JourneyCore
import Testing

@Suite("Expression evaluation")
struct ExpressionEvaluateTests {
    @Test(
        "operators",
        arguments: [
            ("state.tries + 1", Value.int(3)),
            ("state.name + '!'", .string("Ada!")),
            ("state.tries - 5", .int(-3)),
            ("state.tries * 21", .int(42)),
            ("7 / 2", .int(3)),
            ("-7 / 2", .int(-3)),
            ("7 % 3", .int(1)),
            ("-7 % 3", .int(-1)),
            ("-state.tries", .int(-2)),
            ("!state.done", .bool(true)),
            ("not device.online", .bool(false)),
            ("state.tries < 2", .bool(false)),
            ("state.tries <= 2", .bool(true)),
            ("state.tries > 1", .bool(true)),
            ("state.tries >= 3", .bool(false)),
            ("state.delay < params.timeout", .bool(true)),
            ("params.timeout <= state.delay", .bool(false)),
            ("'abc' < 'abd'", .bool(true)),
            ("'b' > 'abc'", .bool(true)),
            ("state.name == 'Ada'", .bool(true)),
            ("state.name != 'Ada'", .bool(false)),
            ("state.tries == 2", .bool(true)),
            ("state.done == false", .bool(true)),
            ("state.delay == params.timeout", .bool(false)),
            ("state.tags == ['a', 'b']", .bool(true)),
            ("state.tags == ['b', 'a']", .bool(false)),
            ("state.tags != ['a']", .bool(true)),
            ("'mail' in device.apps", .bool(true)),
            ("'web' in device.apps", .bool(false)),
            ("device.online && state.tries == 2", .bool(true)),
            ("device.online and state.done", .bool(false)),
            ("state.done || device.online", .bool(true)),
            ("state.done or state.done", .bool(false)),
            ("state.tries > 1 ? 'many' : 'few'", .string("many")),
            ("state.done ? 1 : 2", .int(2)),
            ("limits.pin.count + params.pinLength", .int(7)),
        ])
    func operators(source: String, expected: Value) throws {
        #expect(try Expr.eval(source) == expected)
    }

    @Test(
        "functions",
        arguments: [
            ("len('abc')", Value.int(3)),
            ("len('')", .int(0)),
            ("len('héllo')", .int(5)),
            ("len(state.tags)", .int(2)),
            ("len([])", .int(0)),
            ("lower('AbC')", .string("abc")),
            ("upper(state.name)", .string("ADA")),
            ("contains(state.email, '@example')", .bool(true)),
            ("contains(state.email, 'z')", .bool(false)),
            ("contains(state.tags, 'a')", .bool(true)),
            ("contains(state.tags, 'z')", .bool(false)),
            ("startsWith(state.email, 'ada@')", .bool(true)),
            ("startsWith(state.email, 'bob')", .bool(false)),
            ("endsWith(state.email, '.org')", .bool(true)),
            ("endsWith(state.email, '.com')", .bool(false)),
            ("matches(state.email, '^[^@]+@[^@]+\\\\.[a-z]+$')", .bool(true)),
            ("matches('abc', '^b')", .bool(false)),
            ("matches('abc', 'b')", .bool(true)),
            ("matches('', '^$')", .bool(true)),
            ("str(42)", .string("42")),
            ("str(-1)", .string("-1")),
            ("str(true)", .string("true")),
            ("str(state.delay)", .string("1.5s")),
            ("str(params.timeout)", .string("5s")),
            ("str(state.tags)", .string("[a, b]")),
            ("str('x')", .string("x")),
            ("str(state.tries) + ' tries'", .string("2 tries")),
        ])
    func functions(source: String, expected: Value) throws {
        #expect(try Expr.eval(source) == expected)
    }

    @Test("&&, || and ?: evaluate only what they need")
    func shortCircuit() throws {
        #expect(try Expr.eval("state.done && 1 / 0 == 1") == .bool(false))
        #expect(try Expr.eval("device.online || state.missing") == .bool(true))
        #expect(try Expr.eval("device.online ? 1 : 1 / 0") == .int(1))
        #expect(try Expr.evalError("device.online && 1 / 0 == 1") != nil)
    }

    @Test(
        "run-time errors",
        arguments: [
            ("1 / 0", "division by zero in '/'"),
            ("state.tries % 0", "division by zero in '%'"),
            ("9223372036854775807 + 1", "integer overflow in '+'"),
            ("-9223372036854775808 - 1", "integer overflow in '-'"),
            ("9223372036854775807 * 2", "integer overflow in '*'"),
            ("-9223372036854775808 / -1", "integer overflow in '/'"),
            ("-(-9223372036854775808)", "integer overflow in '-'"),
            ("state.missing == 1", "'state.missing' has no value"),
            ("outcome.data + 1", "'+' needs two ints, two durations or two strings, found string and int"),
            ("outcome.data && true", "'&&' needs a bool, found string"),
            ("outcome.data ? 1 : 2", "the condition of '?:' needs a bool, found string"),
            ("outcome.data == 1", "'==' needs operands of the same type, found string and int"),
            (
                "outcome.data < 1",
                "'<' needs two ints, two durations or two strings, found string and int"
            ),
            ("outcome.data * 1", "'*' needs int operands, found string and int"),
            (
                "'a' in outcome.data",
                "'in' needs a string on its left and a list on its right, found string and string"
            ),
            ("len(state.count)", "'state.count' has no value"),
        ])
    func runtimeErrors(source: String, message: String) throws {
        let values = ExprTestValues(["outcome.data": .string("text"), "state.tries": .int(2)])
        let error = try #require(try Expr.evalError(source, values))
        #expect(error.message == message)
    }

    @Test(
        "'any' values of the wrong type are caught at run time",
        arguments: [
            ("-outcome.data", Value.bool(true), "'-' needs an int operand, found bool"),
            ("!outcome.data", .int(1), "'!' needs a bool, found int"),
            ("len(outcome.data)", .int(1), "'len' needs a string or a list, found int"),
            ("lower(outcome.data)", .int(1), "'lower' needs a string, found int"),
            (
                "contains(outcome.data, 'a')", .int(1),
                "'contains' needs a string or a list as its first argument, found int"
            ),
            (
                "startsWith('a', outcome.data)", .int(1),
                "'startsWith' needs a string as its second argument, found int"
            ),
            (
                "matches(outcome.data, 'a')", .int(1),
                "'matches' needs a string as its first argument, found int"
            ),
            ("[outcome.data]", .int(1), "list items must be strings, found int"),
            ("'a' in outcome.data", .list([.int(1)]), "a list must hold strings, found int"),
        ])
    func anyMismatch(source: String, value: Value, message: String) throws {
        let error = try #require(
            try Expr.evalError(source, ExprTestValues(["outcome.data": value])))
        #expect(error.message == message)
    }

    @Test("a text computed past 64 KiB is refused, by '+' and by a template, saying its size only")
    func textsAreBounded() throws {
        let half = String(repeating: "ab", count: Value.maxTextBytes / 4)
        let values = ExprTestValues(["state.t": .string(half), "state.s": .secret(.string(half))])
        // Up to the bound a text is made as written.
        #expect(try Expr.eval("state.t + state.t", values) == .string(half + half))
        for source in ["state.t + state.t + 'x'", "state.s + state.s + state.s"] {
            let error = try #require(try Expr.evalError(source, values), "\(source)")
            #expect(
                error.message.hasPrefix("the text would be ")
                    && error.message.hasSuffix("bytes, more than the 65536 a text may hold"), "\(error.message)")
            #expect(!error.message.contains("abab"), "\(error.message)")
        }
        let template = try #require(try? Template.parse("${state.t}${state.t}-${state.t}").get())
        #expect(throws: EvaluationError.self) { try template.evaluate(in: values) }
        let fits = try #require(try? Template.parse("${state.t}${state.t}").get())
        #expect(try fits.evaluate(in: values) == .string(half + half))
    }

    @Test("error messages never contain a secret")
    func secretNotInErrors() throws {
        var failures = 0
        for source in [
            "outcome.data + 1", "outcome.data * 2", "outcome.data == 1", "outcome.data < 1",
            "-outcome.data",
            "!outcome.data", "len(outcome.data)", "outcome.data && true", "'x' in outcome.data",
            "outcome.data ? 1 : 2", "contains(outcome.data, 1)", "matches(outcome.data, 'x')",
            "outcome.data / 0",
        ] {
            for value in [
                Value.secret(.string("hunter2-4711")), .secret(.int(4711)),
                .secret(.list([.int(4711)])),
            ] {
                let values = ExprTestValues(["outcome.data": value])
                guard let error = try Expr.evalError(source, values) else { continue }
                failures += 1
                #expect(!error.message.contains("hunter2"), "\(source)")
                #expect(!error.message.contains("4711"), "\(source)")
            }
        }
        #expect(failures >= 30)
    }

    @Test(
        "secret operands give secret results, except ==, !=, len and matches; a secret condition's branch tells it",
        arguments: [
            ("outcome.pin == state.firstPin", Value.bool(true)),
            ("outcome.pin != '0000'", .bool(true)),
            ("len(outcome.pin)", .int(6)),
            ("matches(outcome.pin, '^[0-9]{6}$')", .bool(true)),
            ("outcome.pin == '123456' ? 'yes' : 'no'", .string("yes")),
            ("outcome.flag ? 'yes' : 'no'", .secret(.string("yes"))),
            ("startsWith(outcome.pin, '12') ? 'a' : 'b'", .secret(.string("a"))),
            ("(outcome.pin < '5' ? true : false) || false", .secret(.bool(true))),
            ("outcome.pin + 'x'", .secret(.string("123456x"))),
            ("true ? outcome.pin : 'x'", .secret(.string("123456"))),
            ("state.pinCount + 1", .secret(.int(7))),
            ("-state.pinCount", .secret(.int(-6))),
            ("state.pinCount > 3", .secret(.bool(true))),
            ("str(state.pinCount)", .secret(.string("6"))),
            ("lower(outcome.pin)", .secret(.string("123456"))),
            ("[outcome.pin, 'a']", .secret(.list([.string("123456"), .string("a")]))),
            ("outcome.pin in ['a']", .secret(.bool(false))),
            ("contains(outcome.pin, '34')", .secret(.bool(true))),
            ("endsWith(state.email, outcome.pin)", .secret(.bool(false))),
            ("!outcome.flag", .secret(.bool(false))),
            ("outcome.flag && device.online", .secret(.bool(true))),
            ("outcome.pin", .secret(.string("123456"))),
        ])
    func secrecy(source: String, expected: Value) throws {
        #expect(try Expr.eval(source) == expected)
    }

    @Test("a parsed expression evaluates again with new values")
    func reuse() throws {
        let expression = try Expr.parse("state.tries + 1 > limits.pin.count")
        for tries in 0..<100 {
            let values = ExprTestValues(["state.tries": .int(tries), "limits.pin.count": .int(50)])
            #expect(try expression.evaluate(in: values) == .bool(tries + 1 > 50))
        }
    }

    @Test("one parsed expression evaluates on many tasks at once")
    func concurrent() async throws {
        let expression = try Expr.parse(
            "matches(state.email, '^[a-z]+@') && state.tries + 1 > 2 ? upper(state.name) : 'x'")
        let results = await withTaskGroup(of: Value?.self) { group in
            for tries in 0..<64 {
                group.addTask {
                    var values = ExprTestValues.standard
                    values.values[["state", "tries"]] = .int(tries)
                    return try? expression.evaluate(in: values)
                }
            }
            var all: [Value?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.filter { $0 == .string("ADA") }.count == 62)
        #expect(results.filter { $0 == .string("x") }.count == 2)
    }

    @Test("the deepest allowed tree type-checks and evaluates")
    func deepTree() throws {
        let chain = "state.tries" + String(repeating: " + 1", count: 63)
        let (type, errors) = try Expr.check(chain)
        #expect(errors.isEmpty)
        #expect(type == TypeInfo(.int))
        #expect(try Expr.eval(chain) == .int(65))
        let nested =
            String(repeating: "!(", count: 32) + "device.online" + String(repeating: ")", count: 32)
        #expect(try Expr.eval(nested) == .bool(true))
    }
}
