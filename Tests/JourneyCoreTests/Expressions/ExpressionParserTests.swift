import JourneyCore
import Testing

@Suite("Expression parsing")
struct ExpressionParserTests {
    @Test(
        "operators bind by precedence",
        arguments: [
            ("1 + 2 * 3 == 7", Value.bool(true)),
            ("(1 + 2) * 3", .int(9)),
            ("10 - 4 - 3", .int(3)),
            ("100 / 10 / 5", .int(2)),
            ("7 % 4 * 2", .int(6)),
            ("2 + 3 * 4 - 6 / 2", .int(11)),
            ("-2 * 3", .int(-6)),
            ("- -3", .int(3)),
            ("-(1 + 2)", .int(-3)),
            ("!true || true", .bool(true)),
            ("!(true || true)", .bool(false)),
            ("true || false && false", .bool(true)),
            ("false && true || true", .bool(true)),
            ("1 < 2 == true", .bool(true)),
            ("2 + 3 > 4", .bool(true)),
            ("'a' in ['a'] == true", .bool(true)),
            ("1 == 1 && 2 != 3", .bool(true)),
            ("true ? 1 : 2 + 10", .int(1)),
            ("false ? 1 : true ? 2 : 3", .int(2)),
            ("true ? false ? 1 : 2 : 3", .int(2)),
            ("false || true ? 'y' : 'n'", .string("y")),
            ("1 < 2 and not false", .bool(true)),
            ("false or 1 == 1", .bool(true)),
            ("not true or true and false", .bool(false)),
            ("-9223372036854775808", .int(Int.min)),
            ("  1\n+\t2  ", .int(3)),
        ])
    func precedence(source: String, expected: Value) throws {
        #expect(try Expr.eval(source) == expected)
    }

    @Test(
        "string literals and escapes",
        arguments: [
            (#"'it\'s'"#, "it's"),
            (#""say \"hi\"""#, #"say "hi""#),
            (#"'a\\b'"#, #"a\b"#),
            (#"'line\nnext'"#, "line\nnext"),
            (#"'tab\tx'"#, "tab\tx"),
            (#""it's""#, "it's"),
            (#"'say "x"'"#, #"say "x""#),
            ("''", ""),
            ("'héllo ✓'", "héllo ✓"),
        ])
    func strings(source: String, expected: String) throws {
        #expect(try Expr.eval(source) == .string(expected))
    }

    @Test("literals: true, false, lists")
    func literals() throws {
        #expect(try Expr.eval("true") == .bool(true))
        #expect(try Expr.eval("false") == .bool(false))
        #expect(try Expr.eval("0") == .int(0))
        #expect(try Expr.eval("['a', 'b']") == .list([.string("a"), .string("b")]))
        #expect(try Expr.eval("[]") == .list([]))
        #expect(try Expr.eval("['a',]") == .list([.string("a")]))
        #expect(try Expr.eval("[state.name, 'b']") == .list([.string("Ada"), .string("b")]))
    }

    @Test(
        "syntax errors point at the problem",
        arguments: [
            ("state.x +", 9, "expected an expression, found the end of the expression"),
            ("", 0, "expected an expression, found the end of the expression"),
            ("(1 + 2", 6, "expected ')', found the end of the expression"),
            ("1 +* 2", 3, "expected an expression, found '*'"),
            ("'abc", 0, "unterminated string"),
            (#"'a\qb'"#, 2, #"unknown escape '\q' in a string; use \\ \' \" \n or \t"#),
            ("state.x = 1", 8, "unexpected '='; use '==' to compare"),
            ("true & false", 5, "unexpected '&'; use '&&' or 'and'"),
            ("true | false", 5, "unexpected '|'; use '||' or 'or'"),
            ("012", 0, "a number may not start with 0: '012'"),
            ("99999999999999999999", 0, "the number 99999999999999999999 is too large"),
            ("-99999999999999999999", 0, "the number -99999999999999999999 is too large"),
            ("12abc", 2, "unexpected 'abc' after the number 12"),
            ("1.5", 1, "unexpected '.5' after the number 1"),
            ("state.", 6, "expected a name after '.', found the end of the expression"),
            ("1 2", 2, "unexpected '2'"),
            (
                "true ? 1", 8,
                "expected ':' after the true branch of '?', found the end of the expression"
            ),
            ("len('a', 'b')", 0, "'len' takes 1 argument, found 2"),
            ("contains('a')", 0, "'contains' takes 2 arguments, found 1"),
            (
                "matches(state.email, state.name)", 21,
                "the pattern of 'matches' must be a string literal"
            ),
            ("matches(state.email, '(')", 21, "invalid regular expression '('"),
            ("1 # 2", 2, "unexpected character '#'"),
            ("['a', 'b'", 9, "expected ',' or ']' in the list, found the end of the expression"),
            ("len('a' 'b')", 8, "expected ',' or ')' in the call of 'len', found a string"),
            ("state.x(1)", 7, "unexpected '('"),
            ("1 + and", 4, "expected an expression, found 'and'"),
            ("${state.x}", 0, "unexpected '${' inside an expression"),
        ])
    func syntaxErrors(source: String, offset: Int, message: String) throws {
        let error = try #require(Expr.parseError(source))
        #expect(error.id == "expr.syntax")
        #expect(error.message == message)
        #expect(error.offset == offset)
    }

    @Test(
        "unknown names and functions are expr.undefined",
        arguments: [
            ("stat.x", 0, "unknown name 'stat'; did you mean 'state'?"),
            ("1 + sttate.x", 4, "unknown name 'sttate'; did you mean 'state'?"),
            (
                "1 + foo.bar", 4,
                "unknown name 'foo'; names start with 'params.', 'state.', 'stored.', 'input.', 'outcome.', 'limits.' or 'device.'"
            ),
            ("lenn('x')", 0, "unknown function 'lenn'; did you mean 'len'?"),
            (
                "exec('rm -rf /')", 0,
                "unknown function 'exec'; functions are 'len', 'lower', 'upper', 'contains', 'startsWith', 'endsWith', 'matches', 'str', 'seconds', 'since', 'until'"
            ),
            ("state == 1", 0, "'state' needs a name after it, e.g. 'state.NAME'"),
            ("len", 0, "'len' is a function; call it as 'len(…)'"),
        ])
    func undefinedErrors(source: String, offset: Int, message: String) throws {
        let error = try #require(Expr.parseError(source))
        #expect(error.id == "expr.undefined")
        #expect(error.message == message)
        #expect(error.offset == offset)
    }

    @Test("offsets count Unicode scalars")
    func scalarOffsets() throws {
        let error = try #require(Expr.parseError("'é✓' + stat.x"))
        #expect(error.offset == 7)
    }

    @Test("10 000 nested parentheses are a syntax error, not a crash")
    func deepParentheses() throws {
        let source =
            String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000)
        let error = try #require(Expr.parseError(source))
        #expect(error.id == "expr.syntax")
        #expect(error.message == "expression is too long: 20001 characters, at most 4096")

        // Within the length cap, the nesting cap stops the parser at the 65th '('.
        let short = String(repeating: "(", count: 2000) + "1" + String(repeating: ")", count: 2000)
        let nested = try #require(Expr.parseError(short))
        #expect(nested.id == "expr.syntax")
        #expect(nested.message == "expression nests too deeply")
        #expect(nested.offset == 64)
    }

    @Test(
        "every kind of nesting is capped",
        arguments: [
            String(repeating: "!", count: 3000) + "true",
            String(repeating: "-", count: 3000) + "1",
            String(repeating: "- ", count: 1000) + "state.x",
            String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000),
            String(repeating: "len(", count: 500) + "'a'" + String(repeating: ")", count: 500),
            String(repeating: "true ? 1 : ", count: 300) + "2",
            "1" + String(repeating: " + 1", count: 64),
        ])
    func nestingCapped(source: String) throws {
        let error = try #require(Expr.parseError(source))
        #expect(error.id == "expr.syntax")
        #expect(error.message == "expression nests too deeply")
    }

    @Test("nesting up to the limit parses")
    func nestingAtLimit() throws {
        let parens = String(repeating: "(", count: 64) + "1" + String(repeating: ")", count: 64)
        #expect(try Expr.eval(parens) == .int(1))
        let chain = "0" + String(repeating: " + 1", count: 63)
        #expect(try Expr.eval(chain) == .int(63))
        let list = "[" + Array(repeating: "'a'", count: 600).joined(separator: ", ") + "]"
        #expect(try Expr.eval("len(\(list))") == .int(600))
    }

    @Test("a 5000-character expression is rejected, 4096 is accepted")
    func lengthCap() throws {
        let long = "'" + String(repeating: "a", count: 4998) + "'"
        let error = try #require(Expr.parseError(long))
        #expect(error.id == "expr.syntax")
        #expect(error.message == "expression is too long: 5000 characters, at most 4096")
        #expect(error.offset == 4096)

        let longest = "'" + String(repeating: "a", count: 4094) + "'"
        #expect(try Expr.eval(longest) == .string(String(repeating: "a", count: 4094)))
    }

    @Test("references lists each name once, in source order")
    func references() throws {
        let expression = try Expr.parse(
            "state.email == 'x' && device.online || state.email == 'y' || limits.pin.count > len(outcome.code)"
        )
        #expect(
            expression.references == [
                ["state", "email"], ["device", "online"], ["limits", "pin", "count"],
                ["outcome", "code"],
            ])
        #expect(try Expr.parse("1 + 2").references.isEmpty)
        #expect(
            try Expr.parse("true ? state.a : [state.b]").references == [
                ["state", "a"], ["state", "b"],
            ])
    }

    @Test("an expression prints and compares as its source")
    func identity() throws {
        let a = try Expr.parse("state.tries + 1")
        let b = try Expr.parse("state.tries + 1")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != (try Expr.parse("state.tries+1")))
        #expect(a.description == "state.tries + 1")
        #expect(a.source == "state.tries + 1")
    }

    @Test("keywords may name path segments")
    func keywordSegments() throws {
        let values = ExprTestValues(["state.in": .int(1), "state.not": .int(2)])
        #expect(try Expr.eval("state.in + state.not", values) == .int(3))
    }
}
