import ArgumentParser
import Foundation
import JourneyCore
import JourneyDocs

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct HandlersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handlers",
        abstract: "List the handlers journeys can name, with their contracts.",
        discussion: """
            Lists every handler this `journey` knows: the built-in ones, and those of a package \
            that starts the command line with handlers of its own (`JourneyCLI.main(handlers:)`), \
            each with its source and its contract: the parameters `with:` takes (type, range, \
            default, required), what the step asks the driver for, and the outcomes `on:` must \
            handle with the data they carry. An input or outcome that depends on how a step is \
            written says when a step has it (`pinMismatch` with `pins`; one per key of `routes`).

            Examples:
              journey handlers                        # a table of every handler
              journey handlers ui.pin oidc.token      # those handlers in full
              journey handlers --json                 # the contracts as JSON, for tools
              journey handlers --markdown --out docs/journey-format.md
              journey handlers --schema --out schemas/handlers.schema.json
              journey handlers --schema --out schemas/handlers.schema.json --check

            --markdown prints the handler table of docs/journey-format.md; with --out FILE it goes \
            between FILE's lines `\(HandlerReference.beginMarker)` and \
            `\(HandlerReference.endMarker)` (a new FILE holds just those). --schema prints the \
            per-handler JSON Schema, what `with:` takes and which outcomes `on:` may and must name \
            for each handler, which journey.schema.json reads as handlers.schema.json beside it: \
            a package with handlers of its own writes it next to its copy of journey.schema.json, \
            so that editors complete and check its own handlers' steps too. --out replaces only a \
            schema that `journey handlers --schema` wrote.

            Output is sorted by handler id, and the same handlers always give the same bytes. \
            Exits 0 on success, 1 when --check finds FILE stale, 2 for an unknown handler id, \
            invalid options, or a FILE that cannot be read or written.
            """
    )

    @Argument(help: "Handler ids to show in full (default: a table of every handler).")
    var ids: [String] = []

    @Flag(help: "Print the contracts as JSON.")
    var json = false

    @Flag(help: "Print the Markdown table of the handlers (docs/journey-format.md's).")
    var markdown = false

    @Flag(help: "Print the per-handler JSON Schema (schemas/handlers.schema.json).")
    var schema = false

    @Option(
        help: ArgumentHelp(
            "Write the --markdown table or the --schema to this file instead of standard output.",
            valueName: "file"))
    var out: String?

    @Flag(help: "With --out: write nothing; fail if the file differs from what would be written.")
    var check = false

    func validate() throws {
        let formats = [json, markdown, schema].filter { $0 }.count
        if formats > 1 { throw ValidationError("choose one of --json, --markdown and --schema") }
        if out != nil && !markdown && !schema {
            throw ValidationError("--out writes the --markdown table or the --schema; give one of them")
        }
        if check && out == nil { throw ValidationError("--check compares with the file --out names; give --out") }
        if !ids.isEmpty && (markdown || schema) {
            throw ValidationError("--markdown and --schema cover every handler; leave out the handler ids")
        }
    }

    func run() async throws {
        let console = Console()
        let entries = try selected(ProjectContext.load(console: console).toolkit)
        let text = output(entries)
        guard let out else {
            console.out(text)
            return
        }
        let existing = try Self.read(out, content: markdown ? "the handler table" : "the schema")
        let content: String
        if markdown {
            if let existing {
                switch HandlerReference.embedding(text, in: existing) {
                case .success(let document): content = document
                case .failure(let problem):
                    console.err("\(out):\(problem.line ?? 1):1: error: \(problem) [handlers.markers]\n")
                    throw ExitCode(ExitStatus.invalid)
                }
            } else {
                content = "\(HandlerReference.beginMarker)\n\(text)\(HandlerReference.endMarker)\n"
            }
        } else {
            if let existing, !existing.contains(JSONLinesEncoder.quoted(HandlerSchema.comment)) {
                console.err(
                    "\(out):1:1: error: this file was not written by `journey handlers --schema`, which never replaces such files; move it or choose another --out [handlers.foreign]\n"
                )
                throw ExitCode(ExitStatus.invalid)
            }
            content = text
        }
        let what =
            markdown ? "the handler table of \(entries.count) handlers" : "the schema of \(entries.count) handlers"
        if content == existing {
            console.err("\(out) is up to date: \(what)\n")
            return
        }
        if check {
            let reason =
                existing == nil ? "it does not exist" : "the handlers' contracts changed since it was generated"
            console.err("\(out): stale: \(reason)\n")
            console.err(
                "regenerate with `journey handlers \(markdown ? "--markdown" : "--schema") --out \(out)` and commit the result\n"
            )
            throw ExitCode(ExitStatus.failed)
        }
        // Folders it goes in that are not there yet are made, as for a transcript or a report.
        let file = try OutputFile(
            path: out, content: markdown ? "the handler table" : "the schema", makingFolders: true)
        file.write(content)
        try file.commit()
        console.err("wrote \(what) to \(out)\n")
    }

    /// The handlers of `toolkit` the command is about: all of them, or those `ids` names.
    /// An id no handler has is an error naming the closest.
    func selected(_ toolkit: Toolkit) throws -> [HandlerEntry] {
        let entries = toolkit.entries
        guard !ids.isEmpty else { return entries }
        let known = Set(entries.map(\.id))
        for id in ids where !known.contains(id) {
            throw CLIError(
                "unknown handler '\(id)'\(Suggestion.hint(for: id, in: known.sorted())); `journey handlers` lists them all"
            )
        }
        return entries.filter { ids.contains($0.id) }
    }

    /// What the command prints for these handlers, in the format its options ask for.
    func output(_ entries: [HandlerEntry]) -> String {
        if json { return HandlerReference.json(entries) }
        if markdown { return HandlerReference.markdown(entries) }
        if schema { return HandlerSchema.json(entries) }
        return ids.isEmpty ? HandlerReference.table(entries) : HandlerReference.details(entries)
    }

    /// The text of `path`, or nil when there is nothing there. Anything but a regular UTF-8
    /// file (following links) is an error: there is no document to compare or write into.
    static func read(_ path: String, content: String) throws -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            // The file is read to be written: what stops the read stops the write.
            throw CLIError("cannot write \(content) to \(path): \(Files.reason(SystemError(), at: path))")
        }
        if let kind = Files.kind(of: status.st_mode) {
            throw CLIError("\(path) is \(kind), not a regular file")
        }
        let data = try Files.read(path, limit: Workspace.limits.maxBytes)
        guard data.count <= Workspace.limits.maxBytes, let text = String(data: data, encoding: .utf8) else {
            throw CLIError("\(path) is not a UTF-8 text file of at most \(Workspace.limits.maxBytes) bytes")
        }
        return text
    }
}

extension HandlersCommand: DescribesStandardOutput {
    static let standardOutput = "the handler reference"
}
