import Foundation
import JourneyCore
import JourneyDocs
import JourneyHandlers
import Testing

@testable import JourneyCLI

/// `journey handlers`: every handler the command line runs with, with its contract, as a table,
/// in full, as JSON, as the Markdown table of docs/journey-format.md and as the per-handler
/// schema; the committed table and schema are what the contracts give.
@Suite("journey handlers", .timeLimit(.minutes(30)))
struct HandlersTests {
    static let formatReference = Paths.root.appendingPathComponent("docs/journey-format.md")
    static let handlersSchema = Paths.root.appendingPathComponent("schemas/handlers.schema.json")
    static let builtinIDs = BuiltinHandlers.all.map(\.contract.id).sorted()

    /// The lines of a Markdown file between the generated table's markers.
    static func generatedTable(in document: String) throws -> String {
        let begin = try #require(document.range(of: HandlerReference.beginMarker + "\n"))
        let end = try #require(
            document.range(of: HandlerReference.endMarker, range: begin.upperBound..<document.endIndex))
        return String(document[begin.upperBound..<end.lowerBound])
    }

    @Test("the committed table in docs/journey-format.md is what `journey handlers --markdown` prints")
    func committedTableIsFresh() async throws {
        let printed = try await runJourney(["handlers", "--markdown"])
        #expect(printed.status == Exit.ok, "\(printed)")
        let committed = try Self.generatedTable(in: String(contentsOf: Self.formatReference, encoding: .utf8))
        #expect(
            committed == printed.stdout,
            "docs/journey-format.md is stale: run `journey handlers --markdown --out docs/journey-format.md`")
        let check = try await runJourney(["handlers", "--markdown", "--out", "docs/journey-format.md", "--check"])
        #expect(check.status == Exit.ok, "\(check)")
        #expect(
            check.stderr
                == "docs/journey-format.md is up to date: the handler table of \(Self.builtinIDs.count) handlers\n")
    }

    @Test("the committed schemas/handlers.schema.json is what `journey handlers --schema` prints")
    func committedSchemaIsFresh() async throws {
        let printed = try await runJourney(["handlers", "--schema"])
        #expect(printed.status == Exit.ok, "\(printed)")
        let committed = try String(contentsOf: Self.handlersSchema, encoding: .utf8)
        #expect(
            committed == printed.stdout,
            "schemas/handlers.schema.json is stale: run `journey handlers --schema --out schemas/handlers.schema.json`")
        let check = try await runJourney([
            "handlers", "--schema", "--out", "schemas/handlers.schema.json", "--check",
        ])
        #expect(check.status == Exit.ok, "\(check)")
        // journey.schema.json checks every step against it.
        let journeySchema = try String(
            contentsOf: Paths.root.appendingPathComponent("schemas/journey.schema.json"), encoding: .utf8)
        #expect(journeySchema.contains(#""$ref": "handlers.schema.json""#))
    }

    @Test("the format reference's `journey handlers otp.hotp` example is what the command prints")
    func formatReferenceExampleIsReal() async throws {
        let document = try String(contentsOf: Self.formatReference, encoding: .utf8)
        let example = try #require(
            document.firstMatch(of: /```text\n\$ journey handlers otp\.hotp\n([\s\S]*?)```\n/)?.output.1)
        let printed = try await runJourney(["handlers", "otp.hotp"])
        #expect(printed.status == Exit.ok, "\(printed)")
        #expect(String(example) == printed.stdout)
    }

    @Test("a hand edit of the table, or a stale schema, fails --check naming the file and the command")
    func staleFilesAreNamed() async throws {
        try await withTemporaryDirectory { directory in
            let doc = directory.appendingPathComponent("format.md")
            let original = try String(contentsOf: Self.formatReference, encoding: .utf8)
            try writeText(
                original.replacingOccurrences(of: "| `ui.pin` | A PIN pad", with: "| `ui.pin` | A pad"), to: doc)
            let table = try await runJourney(
                ["handlers", "--markdown", "--out", doc.path, "--check"], cwd: directory)
            #expect(table.status == Exit.failed, "\(table)")
            #expect(
                table.stderr
                    == "\(doc.path): stale: the handlers' contracts changed since it was generated\nregenerate with `journey handlers --markdown --out \(doc.path)` and commit the result\n"
            )
            #expect(try String(contentsOf: doc, encoding: .utf8) != original, "--check writes nothing")

            let schema = directory.appendingPathComponent("handlers.schema.json")
            let committed = try String(contentsOf: Self.handlersSchema, encoding: .utf8)
            try writeText(committed.replacingOccurrences(of: #""maximum": 64"#, with: #""maximum": 99"#), to: schema)
            let stale = try await runJourney(["handlers", "--schema", "--out", schema.path, "--check"], cwd: directory)
            #expect(stale.status == Exit.failed, "\(stale)")
            #expect(stale.stderr.hasPrefix("\(schema.path): stale: "))
            let missing = directory.appendingPathComponent("none.json").path
            let absent = try await runJourney(["handlers", "--schema", "--out", missing, "--check"], cwd: directory)
            #expect(absent.status == Exit.failed)
            #expect(absent.stderr.hasPrefix("\(missing): stale: it does not exist\n"))
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    @Test("--out writes the table between the marker lines and leaves the rest of the file byte for byte")
    func markdownGoesBetweenTheMarkers() async throws {
        try await withTemporaryDirectory { directory in
            let doc = directory.appendingPathComponent("handlers.md")
            let before = "# My handlers\r\n\nIntro.\n\(HandlerReference.beginMarker)\nold table\n"
            let after = "\(HandlerReference.endMarker)\n\nMore text, with no newline at the end"
            try writeText(before + after, to: doc)
            let result = try await runJourney(["handlers", "--markdown", "--out", doc.path], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stderr == "wrote the handler table of \(Self.builtinIDs.count) handlers to \(doc.path)\n")
            let printed = try await runJourney(["handlers", "--markdown"], cwd: directory)
            let written = try String(contentsOf: doc, encoding: .utf8)
            #expect(
                written
                    == "# My handlers\r\n\nIntro.\n\(HandlerReference.beginMarker)\n" + printed.stdout + after)
            let again = try await runJourney(["handlers", "--markdown", "--out", doc.path], cwd: directory)
            #expect(
                again.stderr == "\(doc.path) is up to date: the handler table of \(Self.builtinIDs.count) handlers\n")

            // A file with CRLF endings, its markers indented: the table goes between them, its
            // lines ended as theirs are.
            let crlf = directory.appendingPathComponent("crlf.md")
            let crlfBefore = "# Mine\r\n  \(HandlerReference.beginMarker)\r\nold\r\n"
            let crlfAfter = "\(HandlerReference.endMarker) \r\nend\r\n"
            try writeText(crlfBefore + crlfAfter, to: crlf)
            let crlfResult = try await runJourney(["handlers", "--markdown", "--out", crlf.path], cwd: directory)
            #expect(crlfResult.status == Exit.ok, "\(crlfResult)")
            let table = printed.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map { $0 + "\r\n" }.joined()
            #expect(
                try String(contentsOf: crlf, encoding: .utf8) == "# Mine\r\n  \(HandlerReference.beginMarker)\r\n"
                    + table + crlfAfter)

            let new = directory.appendingPathComponent("docs/reference/new.md")
            let created = try await runJourney(["handlers", "--markdown", "--out", new.path], cwd: directory)
            #expect(created.status == Exit.ok, "\(created)")
            #expect(
                try String(contentsOf: new, encoding: .utf8)
                    == "\(HandlerReference.beginMarker)\n\(printed.stdout)\(HandlerReference.endMarker)\n")
        }
    }

    @Test("--out refuses a Markdown file without its markers and a schema it did not write: exit 2, nothing written")
    func foreignFilesAreRefused() async throws {
        try await withTemporaryDirectory { directory in
            let doc = directory.appendingPathComponent("notes.md")
            try writeText("# Notes\n", to: doc)
            let unmarked = try await runJourney(["handlers", "--markdown", "--out", doc.path], cwd: directory)
            #expect(unmarked.status == Exit.invalid)
            #expect(
                unmarked.stderr
                    == "\(doc.path):1:1: error: the file has no line '\(HandlerReference.beginMarker)'; add it, and a line '\(HandlerReference.endMarker)' below it, where the table goes [handlers.markers]\n"
            )
            #expect(try String(contentsOf: doc, encoding: .utf8) == "# Notes\n")

            let twice =
                "a\n\(HandlerReference.beginMarker)\n\(HandlerReference.endMarker)\n\(HandlerReference.beginMarker)\n"
            try writeText(twice, to: doc)
            let repeated = try await runJourney(["handlers", "--markdown", "--out", doc.path], cwd: directory)
            #expect(repeated.status == Exit.invalid)
            #expect(
                repeated.stderr.hasPrefix("\(doc.path):4:1: error: a second line '\(HandlerReference.beginMarker)'"))

            try writeText("\(HandlerReference.endMarker)\n\(HandlerReference.beginMarker)\n", to: doc)
            let reversed = try await runJourney(
                ["handlers", "--markdown", "--out", doc.path, "--check"], cwd: directory)
            #expect(reversed.status == Exit.invalid)
            #expect(
                reversed.stderr.hasPrefix(
                    "\(doc.path):1:1: error: the line '\(HandlerReference.endMarker)' comes before"))
            #expect(reversed.stderr.hasSuffix("' [handlers.markers]\n"), "\(reversed)")

            let schema = directory.appendingPathComponent("journey.schema.json")
            try writeText("{\"title\": \"mine\"}\n", to: schema)
            let foreign = try await runJourney(["handlers", "--schema", "--out", schema.path], cwd: directory)
            #expect(foreign.status == Exit.invalid)
            #expect(
                foreign.stderr
                    == "\(schema.path):1:1: error: this file was not written by `journey handlers --schema`, which never replaces such files; move it or choose another --out [handlers.foreign]\n",
                "\(foreign)")
            #expect(try String(contentsOf: schema, encoding: .utf8) == "{\"title\": \"mine\"}\n")

            let folder = try await runJourney(["handlers", "--schema", "--out", directory.path], cwd: directory)
            #expect(folder.status == Exit.invalid)
            #expect(folder.stderr == "error: \(directory.path) is a folder, not a regular file\n")
            expectNoCrash(folder)

            // Under a file: the file in the way is named.
            let underAFile = try await runJourney(
                ["handlers", "--schema", "--out", "journey.schema.json/handlers.json"], cwd: directory)
            #expect(underAFile.status == Exit.invalid)
            #expect(
                underAFile.stderr
                    == "error: cannot write the schema to journey.schema.json/handlers.json: journey.schema.json is a file, not a folder\n",
                "\(underAFile)")
        }
    }

    @Test("`journey handlers` is a table of every handler, by id, with source, summary, parameters and outcomes")
    func tableListsEveryHandler() async throws {
        let result = try await runJourney(["handlers"])
        #expect(result.status == Exit.ok, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.first?.hasPrefix("HANDLER  ") == true)
        let rows = lines.filter { !$0.hasPrefix(" ") && !$0.isEmpty }.dropFirst()
        #expect(rows.map { String($0.prefix { $0 != " " }) } == Self.builtinIDs)
        #expect(rows.allSatisfy { $0.contains("  built-in  ") })
        #expect(lines.allSatisfy { $0.count <= HandlerReference.textWidth }, "lines fit in 100 columns")
        let pin = try #require(result.stdout.range(of: "\nui.pin  "))
        // The handler's row, its wrapped lines joined.
        let block = String(result.stdout[pin.upperBound...]).components(separatedBy: "\n\n")[0]
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(block.hasPrefix("built-in A PIN pad of length digits"), "\(block)")
        #expect(block.contains("parameters: length, expected"), "\(block)")
        #expect(
            block.contains(
                "outcomes: entered (without expected), correct (with expected), wrong (with expected), one per screen action"
            ), "\(block)")
        let again = try await runJourney(["handlers"])
        #expect(again.stdoutData == result.stdoutData, "the same handlers give the same bytes")
    }

    @Test("handler ids show those handlers in full; an unknown id is exit 2 naming the closest")
    func detailsAndUnknownIDs() async throws {
        let result = try await runJourney(["handlers", "ui.pin", "http.request"])
        #expect(result.status == Exit.ok, "\(result)")
        let text = result.stdout
        let http = try #require(text.range(of: "http.request (built-in)\n"))
        let pin = try #require(text.range(of: "ui.pin (built-in)\n"))
        #expect(http.lowerBound < pin.lowerBound, "sorted by id")
        #expect(text.contains("    length: int (1 to 64, default 6)\n        how many digits\n"))
        #expect(text.contains("    expected: secret string\n"))
        #expect(text.contains("    pin (secret)\n"))
        #expect(text.contains("    correct (with expected)\n        the PIN matches expected\n"))
        #expect(text.contains("    url: string (required)\n"))
        #expect(!text.contains("ui.screen"))

        let unknown = try await runJourney(["handlers", "ui.pins"])
        #expect(unknown.status == Exit.invalid)
        #expect(
            unknown.stderr
                == "error: unknown handler 'ui.pins'; did you mean 'ui.pin'?; `journey handlers` lists them all\n")
        #expect(unknown.stdout.isEmpty)
    }

    @Test("--json holds every contract: parameters, inputs and outcomes with when a step has them")
    func jsonHoldsTheContracts() async throws {
        let result = try await runJourney(["handlers", "--json"])
        #expect(result.status == Exit.ok, "\(result)")
        let root = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let handlers = try #require(root["handlers"] as? [[String: Any]])
        #expect(handlers.compactMap { $0["id"] as? String } == Self.builtinIDs)
        for handler in handlers {
            let id = try #require(handler["id"] as? String)
            let contract = try #require(BuiltinHandlers.registry[id]?.contract)
            #expect(handler["source"] as? String == "built-in")
            #expect(handler["summary"] as? String == contract.summary)
            let parameters = try #require(handler["parameters"] as? [[String: Any]])
            #expect(parameters.compactMap { $0["name"] as? String } == contract.parameters.map(\.name))
            let outcomes = try #require(handler["outcomes"] as? [[String: Any]])
            #expect(outcomes.compactMap { $0["name"] as? String } == contract.describedOutcomes.map(\.item.name))
            #expect(handler["actionsAreOutcomes"] as? Bool == contract.actionsAreOutcomes)
            #expect(handler["outcomesDescribed"] as? Bool == true)
            #expect(handler["verifiesCredential"] as? [String] == contract.verifiedOutcomes)
            #expect(handler["deterministic"] as? Bool == true, "every built-in handler is deterministic")
            #expect(handler["readsTimeAtStep"] as? Bool == contract.readsTimeAtStep, "\(id)")
            for (parameter, spec) in zip(parameters, contract.parameters) {
                #expect(parameter["namesAction"] as? Bool == spec.namesAction, "\(id).\(spec.name)")
            }
        }
        // The time away of app.background, and a form's submit, are said as such.
        let background = try #require(handlers.first { $0["id"] as? String == "app.background" })
        #expect(background["readsTimeAtStep"] as? Bool == true)
        let form = try #require(handlers.first { $0["id"] as? String == "ui.form" })
        let submit = try #require((form["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "submit" })
        #expect(submit["namesAction"] as? Bool == true)
        let verify = try #require(handlers.first { $0["id"] as? String == "pin.verify" })
        #expect(verify["verifiesCredential"] as? [String] == ["correct"])
        let token = try #require(handlers.first { $0["id"] as? String == "oidc.token" })
        let outcomes = try #require(token["outcomes"] as? [[String: Any]])
        let pinMismatch = try #require(outcomes.first { $0["name"] as? String == "pinMismatch" })
        #expect(pinMismatch["when"] as? [String: String] == ["given": "pins"])
        let parameters = try #require(token["parameters"] as? [[String: Any]])
        let issuedWithin = try #require(parameters.first { $0["name"] as? String == "issuedWithin" })
        #expect(issuedWithin["type"] as? String == "int")
        #expect(issuedWithin["default"] as? Int == 600)
        #expect(issuedWithin["range"] as? [String: Int] == ["min": 1, "max": 86_400])
        let code = try #require(parameters.first { $0["name"] as? String == "code" })
        #expect(code["secret"] as? Bool == true && code["required"] as? Bool == true)
        let wait = try #require(handlers.first { $0["id"] as? String == "link.wait" })
        let routes = try #require((wait["outcomes"] as? [[String: Any]])?.first)
        #expect(routes["each"] as? [String: String] == ["keyOf": "routes"])
    }

    @Test("options that do not go together are usage errors: exit 2 and a message")
    func usageErrors() async throws {
        let cases: [([String], String)] = [
            (["--json", "--markdown"], "choose one of --json, --markdown and --schema"),
            (["--out", "x.md"], "--out writes the --markdown table or the --schema; give one of them"),
            (["--schema", "--check"], "--check compares with the file --out names; give --out"),
            (["--schema", "ui.pin"], "--markdown and --schema cover every handler; leave out the handler ids"),
        ]
        for (arguments, message) in cases {
            let result = try await runJourney(["handlers"] + arguments)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("--help explains the command with examples, and `journey --help` lists it")
    func help() async throws {
        let help = try await runJourney(["handlers", "--help"])
        #expect(help.status == Exit.ok)
        for example in [
            "journey handlers ui.pin oidc.token", "journey handlers --json",
            "journey handlers --markdown --out docs/journey-format.md",
            "journey handlers --schema --out schemas/handlers.schema.json --check",
        ] {
            #expect(help.stdout.contains(example), "\(example)")
        }
        let root = try await runJourney(["--help"])
        #expect(root.stdout.contains("handlers") && root.stdout.contains("List the handlers journeys can name"))
    }

    // MARK: A package's own handlers

    /// A handler of a package's own, with a secret parameter whose default must never show.
    struct CardReader: StepHandler {
        var contract: HandlerContract {
            HandlerContract(
                id: "card.read", summary: "Reads a card held to the phone.",
                parameters: [
                    ParameterSpec(
                        name: "pin", kind: .value(TypeInfo(.string, secret: true)), defaultValue: .string("2468"),
                        summary: "the card's PIN"),
                    ParameterSpec(
                        name: "attempts", kind: .value(TypeInfo(.int)), required: true, summary: "tries", range: 1...3),
                ],
                outcomes: [
                    OutcomeSpec(name: "read", summary: "the card answered"),
                    OutcomeSpec(name: "absent", summary: "no card"),
                ])
        }
        nonisolated(nonsending) func run(
            _ invocation: HandlerInvocation, context: HandlerContext
        ) async throws -> HandlerResult { HandlerResult("read") }
    }

    /// A handler whose refine adds outcomes without saying which.
    struct Tuner: StepHandler {
        var contract: HandlerContract {
            HandlerContract(
                id: "card.tune", summary: "Tunes.", outcomes: [OutcomeSpec(name: "tuned", summary: "tuned")],
                refine: { _, contract in contract.outcomes.append(OutcomeSpec(name: "detuned", summary: "")) })
        }
        nonisolated(nonsending) func run(
            _ invocation: HandlerInvocation, context: HandlerContext
        ) async throws -> HandlerResult { HandlerResult("tuned") }
    }

    @Test("a package's own handlers are listed with the built-in ones, marked swift, in every format")
    func packageHandlersAreListed() throws {
        let toolkit = try Toolkit.builtin.adding([CardReader(), Tuner()])
        #expect(toolkit.entries.map(\.id) == (Self.builtinIDs + ["card.read", "card.tune"]).sorted())
        #expect(Toolkit.builtin.entries.map(\.id) == Self.builtinIDs, "the built-in toolkit lists the built-ins only")
        func output(_ arguments: [String]) throws -> String {
            let command = try HandlersCommand.parse(arguments)
            return command.output(try command.selected(toolkit))
        }
        let table = try output([])
        #expect(table.contains(/\ncard\.read +swift +Reads a card held to the phone\.\n/))
        #expect(table.contains(/\nui\.pin +built-in +A PIN pad/))
        #expect(table.contains("outcomes: tuned, more from the step's parameters"))

        let markdown = try output(["--markdown"])
        #expect(markdown.hasPrefix("| handler | source | what it does |"))
        #expect(markdown.contains("| `card.read` | swift | Reads a card held to the phone. |"))
        #expect(markdown.contains("| `ui.pin` | built-in |"))
        #expect(!HandlerReference.markdown(Toolkit.builtin.entries).contains("| source |"))

        let json = try output(["--json", "card.read"])
        #expect(json.contains(#""source": "swift""#))

        let schema = try output(["--schema"])
        #expect(schema.contains(##""$ref": "#/$defs/card.read""##))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any])
        let definitions = try #require(root["$defs"] as? [String: Any])
        let card = try #require(definitions["card.read"] as? [String: Any])
        let properties = try #require(card["properties"] as? [String: Any])
        let with = try #require(properties["with"] as? [String: Any])
        #expect(with["required"] as? [String] == ["attempts"])
        #expect(with["additionalProperties"] as? Bool == false)
        let on = try #require(properties["on"] as? [String: Any])
        #expect(on["required"] as? [String] == ["read", "absent"])
        #expect(on["additionalProperties"] as? Bool == false)
        // Outcomes it does not describe leave `on:` open.
        let tune = try #require(definitions["card.tune"] as? [String: Any])
        let tuneOn = try #require((tune["properties"] as? [String: Any])?["on"] as? [String: Any])
        #expect(tuneOn["additionalProperties"] == nil)
        #expect(tuneOn["required"] == nil, "refine may take any outcome away")

        for arguments in [[], ["card.read"], ["--json"], ["--markdown"], ["--schema"]] {
            let text = try output(arguments)
            #expect(!text.contains("2468"), "\(arguments): a secret parameter's default is never shown")
        }
        #expect(try output(["card.read"]).contains("    pin: secret string (default •••)\n"))
    }
}
