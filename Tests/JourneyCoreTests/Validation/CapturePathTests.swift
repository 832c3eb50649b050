import Foundation
import Testing

@testable import JourneyCore

@Suite("Captures: JSON paths and reading declared types")
struct CapturePathTests {
    func parse(_ text: String) -> JSONPath? {
        if case .success(let path) = JSONPath.parse(text) { return path }
        return nil
    }

    func problem(_ text: String) -> JSONPath.Problem? {
        if case .failure(let problem) = JSONPath.parse(text) { return problem }
        return nil
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test("paths read as keys, indexes and [*], with an optional '?' at the end")
    func pathsRead() throws {
        #expect(parse("session.token")?.segments == [.key("session"), .key("token")])
        #expect(parse("items[0].id")?.segments == [.key("items"), .index(0), .key("id")])
        #expect(parse("banks[*].name")?.segments == [.key("banks"), .all, .key("name")])
        #expect(parse("[1][0]")?.segments == [.index(1), .index(0)])
        #expect(parse("grid[2][3]")?.segments == [.key("grid"), .index(2), .index(3)])
        let optional = try #require(parse("template.action?"))
        #expect(optional.isOptional && optional.text == "template.action" && !optional.isMany)
        #expect(optional.description == "template.action?")
        #expect(parse("banks[*].id")?.isMany == true)
        #expect(parse("x-y_z.$ref")?.segments == [.key("x-y_z"), .key("$ref")])
    }

    @Test(
        "a path that does not read says why, at the character where it goes wrong",
        arguments: [
            ("", 0, "the path is empty"), ("?", 0, "the path is empty"), (".a", 0, "a '.' must come between"),
            ("a..b", 2, "a '.' must come between"), ("a.", 1, "the path ends with '.'"),
            ("a[", 1, "'[' has no closing ']'"), ("a[x]", 1, "'[x]' is not an array index"),
            ("a[-1]", 1, "'[-1]' is not an array index"), ("a[]", 1, "'[]' is not an array index"),
            ("a[0]b", 4, "after ']' comes"), ("a]", 1, "']' without '['"), ("a?b", 1, "'?' may only end"),
            ("a b", 1, "no spaces"), ("${x}", 0, "cannot be a template"), ("a$b.${x}", 4, "cannot be a template"),
        ])
    func badPaths(text: String, offset: Int, message: String) throws {
        let problem = try #require(self.problem(text), "'\(text)' should not read")
        #expect(problem.offset == offset, "\(problem)")
        #expect(problem.message.contains(message), "\(problem)")
    }

    @Test("each declared type reads its own JSON type, and says what it found otherwise")
    func declaredTypes() throws {
        let document = try json(
            #"{"s": "x", "i": 7, "whole": 2.0, "f": 1.5, "big": 1e30, "b": false, "l": [1, "a", true, {}], "o": {}, "n": null}"#
        )
        func read(_ path: String, _ type: Capture.CapturedType?) throws -> Capture.Reading {
            Capture(name: "c", path: try #require(parse(path)), type: type).read(from: document)
        }
        #expect(try read("s", .string) == .value(.string("x")))
        #expect(try read("i", .int) == .value(.int(7)))
        #expect(try read("whole", .int) == .value(.int(2)), "a number with no fraction is an int")
        #expect(try read("b", .bool) == .value(.bool(false)))
        #expect(try read("l", .list) == .value(.list([.int(1), .string("a"), .bool(true)])))
        #expect(try read("l", nil) == .value(.list([.int(1), .string("a"), .bool(true)])))
        #expect(try read("i", nil) == .value(.int(7)), "the short form reads any JSON value")
        for (path, type, found) in [
            ("f", Capture.CapturedType.int, "a JSON number with a fraction or too large for an int"),
            ("big", .int, "a JSON number with a fraction or too large for an int"),
            ("i", .string, "a JSON number"), ("s", .bool, "a JSON string"), ("b", .int, "JSON true or false"),
            ("o", .list, "a JSON object"), ("l", .string, "a JSON array"),
        ] {
            #expect(
                try read(path, type)
                    == .failure(
                        "has \(found) at '\(path)' for capture 'c', which is declared \(type.rawValue) (\(type.json))"))
        }
        #expect(try read("n", .string) == .failure("has null at 'n' for capture 'c'"))
        #expect(try read("missing", .string) == .failure("has nothing at 'missing' for capture 'c'"))
        #expect(try read("missing?", .string) == .value(.string("")))
        #expect(try read("n?", .list) == .value(.list([])), "null is absent for an optional capture")
        #expect(try read("missing?", nil) == .value(.string("")), "the short form's optional gives \"\"")
        #expect(try read("o?", nil) == .value(.string("")), "as it always has, for an object too")
    }

    @Test("a [*] path gives a list, and declared types an optional path cannot give are named")
    func listsAndOptionals() throws {
        let document = try json(#"{"banks": [{"id": "a"}, {"name": "b"}, {"id": "c"}]}"#)
        let ids = Capture(name: "ids", path: try #require(parse("banks[*].id")), type: .list)
        #expect(ids.read(from: document) == .value(.list([.string("a"), .string("c")])))
        #expect(ids.problem == nil)
        #expect(Capture(name: "ids", path: try #require(parse("banks[*].id")), type: .string).problem != nil)
        #expect(Capture(name: "ids", path: try #require(parse("banks[*].id"))).problem == nil)
        #expect(Capture(name: "n", path: try #require(parse("n?")), type: .int).problem != nil)
        #expect(Capture(name: "n", path: try #require(parse("n?")), type: .bool).problem != nil)
        #expect(Capture(name: "n", path: try #require(parse("n?")), type: .string).problem == nil)
        #expect(Capture(name: "t", path: try #require(parse("t")), type: .string, secret: true).typeInfo.secret)
    }
}
