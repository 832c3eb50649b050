import JourneyCore
import Testing

@Suite("Templates")
struct TemplateTests {
    private func parse(_ source: String) throws -> Template {
        try Template.parse(source).get()
    }

    private func parseError(_ source: String) -> ExpressionError? {
        if case .failure(let error) = Template.parse(source) { return error }
        return nil
    }

    @Test("text with an expression in it")
    func interpolation() throws {
        let template = try parse("Hi ${state.name}!")
        #expect(template.parts.count == 3)
        #expect(template.parts.first == .text("Hi "))
        #expect(template.parts.last == .text("!"))
        guard case .expression(let expression, let offset) = template.parts[1] else {
            Issue.record("expected an expression part")
            return
        }
        #expect(expression.source == "state.name")
        #expect(offset == 5)
        #expect(!template.isSingleExpression)
        #expect(!template.isLiteral)
        #expect(template.description == "Hi ${state.name}!")

        let (type, errors) = template.typeCheck(in: ExprTestScope.standard)
        #expect(type == TypeInfo(.string))
        #expect(errors.isEmpty)
        #expect(try template.evaluate(in: ExprTestValues.standard) == .string("Hi Ada!"))
        #expect(try template.display(in: ExprTestValues.standard) == "Hi Ada!")
    }

    @Test("values of every type join as text")
    func joinsTypes() throws {
        let template = try parse(
            "${state.tries} tries, ${state.done}, ${state.delay}, ${state.tags}, ${ 'x' + 'y' }")
        #expect(template.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.string))
        #expect(
            try template.evaluate(in: ExprTestValues.standard)
                == .string("2 tries, false, 1.5s, [a, b], xy"))
    }

    @Test("a single expression keeps its type and value")
    func singleExpression() throws {
        let template = try parse("${state.tries + 1}")
        #expect(template.isSingleExpression)
        #expect(!template.isLiteral)
        #expect(template.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.int))
        #expect(try template.evaluate(in: ExprTestValues.standard) == .int(3))
        #expect(try template.display(in: ExprTestValues.standard) == "3")

        let list = try parse("${device.apps}")
        #expect(
            try list.evaluate(in: ExprTestValues.standard)
                == .list([.string("mail"), .string("bank")]))

        let spaced = try parse(" ${state.tries}")
        #expect(!spaced.isSingleExpression)
        #expect(spaced.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.string))
        #expect(try spaced.evaluate(in: ExprTestValues.standard) == .string(" 2"))

        let two = try parse("${state.tries}${state.tries}")
        #expect(!two.isSingleExpression)
        #expect(try two.evaluate(in: ExprTestValues.standard) == .string("22"))
    }

    @Test("plain text is a literal")
    func literal() throws {
        let template = try parse("Check your email")
        #expect(template.isLiteral)
        #expect(!template.isSingleExpression)
        #expect(template.parts == [.text("Check your email")])
        #expect(try template.evaluate(in: ExprTestValues.standard) == .string("Check your email"))

        let empty = try parse("")
        #expect(empty.isLiteral)
        #expect(empty.parts.isEmpty)
        #expect(try empty.evaluate(in: ExprTestValues.standard) == .string(""))

        let dollars = try parse("costs $5 or $$ or {x} or $ {y}")
        #expect(dollars.isLiteral)
        #expect(
            try dollars.evaluate(in: ExprTestValues.standard)
                == .string("costs $5 or $$ or {x} or $ {y}"))
    }

    @Test("$${ writes a literal ${")
    func escape() throws {
        let template = try parse("$${state.name} is ${state.name}")
        #expect(template.parts.first == .text("${state.name} is "))
        #expect(
            try template.evaluate(in: ExprTestValues.standard) == .string("${state.name} is Ada"))

        let only = try parse("$${x}")
        #expect(only.isLiteral)
        #expect(try only.display(in: ExprTestValues.standard) == "${x}")
    }

    @Test("a '}' inside a string literal does not end the expression")
    func braceInString() throws {
        let template = try parse("${'}' + \"}\"}")
        #expect(template.isSingleExpression)
        #expect(try template.evaluate(in: ExprTestValues.standard) == .string("}}"))
        let escaped = try parse(#"${'it\'s }'}"#)
        #expect(try escaped.evaluate(in: ExprTestValues.standard) == .string("it's }"))
    }

    @Test(
        "errors point into the template source",
        arguments: [
            ("Hi ${state.name", "expr.syntax", 3, "unterminated '${'; close it with '}'"),
            ("${'}", "expr.syntax", 0, "unterminated '${'; close it with '}'"),
            ("a ${1} b ${", "expr.syntax", 9, "unterminated '${'; close it with '}'"),
            (
                "Hi ${state.x +}", "expr.syntax", 14,
                "expected an expression, found the end of the expression"
            ),
            ("Hi ${}", "expr.syntax", 5, "expected an expression, found the end of the expression"),
            ("Hi ${stat.x}", "expr.undefined", 5, "unknown name 'stat'; did you mean 'state'?"),
            ("é ${ stat.x}", "expr.undefined", 5, "unknown name 'stat'; did you mean 'state'?"),
        ])
    func parseErrors(source: String, id: String, offset: Int, message: String) throws {
        let error = try #require(parseError(source))
        #expect(error == ExpressionError(id: id, message: message, offset: offset))
    }

    @Test("type errors point into the template source")
    func typeErrors() throws {
        let template = try parse("Hi ${state.emial}, ${1 && true}")
        let (type, errors) = template.typeCheck(in: ExprTestScope.standard)
        #expect(type == TypeInfo(.string))
        #expect(
            errors == [
                ExpressionError(
                    id: "expr.undefined",
                    message: "unknown name 'state.emial'; did you mean 'state.email'?", offset: 5),
                ExpressionError(
                    id: "expr.type", message: "'&&' needs bool operands, found int and bool",
                    offset: 23),
            ])

        let single = try parse("${state.name + 1}")
        let checked = single.typeCheck(in: ExprTestScope.standard)
        #expect(checked.type == nil)
        #expect(checked.errors.map(\.offset) == [13])
    }

    @Test("a secret part makes the text secret and displays as •••")
    func secrets() throws {
        let template = try parse("PIN ${outcome.pin} for ${state.name}")
        #expect(
            template.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.string, secret: true))
        #expect(
            try template.evaluate(in: ExprTestValues.standard)
                == .secret(.string("PIN 123456 for Ada")))
        #expect(try template.display(in: ExprTestValues.standard) == "PIN ••• for Ada")

        let single = try parse("${outcome.pin}")
        #expect(
            single.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.string, secret: true))
        #expect(try single.evaluate(in: ExprTestValues.standard) == .secret(.string("123456")))
        #expect(try single.display(in: ExprTestValues.standard) == "•••")

        let compared = try parse(
            "match: ${outcome.pin == state.firstPin}, length ${len(outcome.pin)}")
        #expect(compared.typeCheck(in: ExprTestScope.standard).type == TypeInfo(.string))
        #expect(
            try compared.evaluate(in: ExprTestValues.standard) == .string("match: true, length 6"))
        #expect(try compared.display(in: ExprTestValues.standard) == "match: true, length 6")

        let list = try parse("apps: ${[outcome.pin, 'mail']}")
        #expect(
            try list.evaluate(in: ExprTestValues.standard)
                == .secret(.string("apps: [123456, mail]")))
        #expect(try list.display(in: ExprTestValues.standard) == "apps: •••")
    }

    @Test("evaluation errors are thrown")
    func evaluationError() throws {
        let template = try parse("Hi ${state.nobody}")
        #expect(throws: EvaluationError(message: "'state.nobody' has no value")) {
            try template.evaluate(in: ExprTestValues.standard)
        }
        #expect(throws: EvaluationError.self) {
            try template.display(in: ExprTestValues.standard)
        }
    }

    @Test("hostile templates give errors, not crashes")
    func hostile() throws {
        let deep =
            "${" + String(repeating: "(", count: 10_000) + "1"
            + String(repeating: ")", count: 10_000) + "}"
        #expect(parseError(deep)?.id == "expr.syntax")
        let nested =
            "x ${" + String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100)
            + "}"
        #expect(
            parseError(nested)
                == ExpressionError(
                    id: "expr.syntax", message: "expression nests too deeply", offset: 68))
        let unclosed = String(repeating: "${", count: 5000)
        #expect(parseError(unclosed)?.id == "expr.syntax")
    }
}
