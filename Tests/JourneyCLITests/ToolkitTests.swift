import Foundation
import JourneyCore
import JourneyHandlers
import Testing

@testable import JourneyCLI

/// The command line as a library: more handlers join the built-in ones, and an id taken twice
/// is an error rather than a silent replacement.
@Suite("JourneyCLI with more handlers")
struct ToolkitTests {
    struct CardReader: StepHandler {
        let id: String
        var contract: HandlerContract {
            HandlerContract(id: id, summary: "Reads a card.", outcomes: [OutcomeSpec(name: "read", summary: "read")])
        }
        nonisolated(nonsending) func run(
            _ invocation: HandlerInvocation, context: HandlerContext
        ) async throws -> HandlerResult { HandlerResult("read") }
    }

    static let journey = """
        journey: t.card
        version: 1
        title: Card
        start: read
        steps:
          read:
            handler: card.read
            on: { read: done }
        ends:
          done: { kind: success }
        """

    @Test("a handler added to the CLI is known to the loader; without it the journey does not check")
    func addedHandlerIsKnown() throws {
        let file = SourceFile(path: "card.journey.yaml", data: Data(Self.journey.utf8))
        let without = Toolkit.builtin.loader().load([file])
        #expect(without.diagnostics.items.contains { $0.severity == .error && $0.message.contains("card.read") })
        let with = try Toolkit.builtin.adding([CardReader(id: "card.read")]).loader().load([file])
        #expect(with.diagnostics.items.filter { $0.severity == .error }.isEmpty, "\(with.diagnostics.items)")
        #expect(with.library?["t.card"] != nil)
    }

    @Test("an id taken twice, by a built-in handler or by another added one, is an error naming it")
    func duplicateIDs() {
        #expect(throws: HandlerRegistry.DuplicateID(id: "ui.screen")) {
            try Toolkit.builtin.adding([CardReader(id: "ui.screen")])
        }
        #expect(throws: HandlerRegistry.DuplicateID(id: "card.read")) {
            try Toolkit.builtin.adding([CardReader(id: "card.read"), CardReader(id: "card.read")])
        }
        #expect(
            HandlerRegistry.DuplicateID(id: "card.read").description
                == "two handlers are registered as 'card.read'; each handler id names one handler")
        // The built-in handlers' own ids are unique (the registry would not build otherwise).
        #expect(BuiltinHandlers.registry.ids.count == BuiltinHandlers.all.count)
    }

    @Test("the command line says whose id a taken id is: a built-in handler's, or another added one's")
    func takenIDsAreExplained() throws {
        #expect(
            throws: CLIError(
                "cannot add the handler 'ui.screen': a built-in handler has this id; give yours an id of its own, "
                    + "prefixed with your app's or company's name (such as 'acme.')")
        ) {
            try JourneyCLI.toolkit(adding: [CardReader(id: "card.read"), CardReader(id: "ui.screen")])
        }
        #expect(
            throws: CLIError(
                "cannot add the handler 'card.read': two of the handlers added have this id; each handler id names "
                    + "one handler")
        ) {
            try JourneyCLI.toolkit(adding: [CardReader(id: "card.read"), CardReader(id: "card.read")])
        }
        let toolkit = try JourneyCLI.toolkit(adding: [CardReader(id: "card.read"), CardReader(id: "card.write")])
        #expect(toolkit.handlers.ids == (BuiltinHandlers.registry.ids + ["card.read", "card.write"]).sorted())
    }

    @Test("journey --help says how handlers of one's own are added")
    func helpSaysHowHandlersAreAdded() {
        let help = JourneyCommand.helpMessage(columns: 500)
        #expect(
            help.contains(
                "handlers of your own, which a Swift package adds to every command by starting them with "
                    + "JourneyCLI.main(handlers:). See docs/journey-format.md#handlers-of-your-own."), "\(help)")
    }

    @Test("JourneyCLI.main with a taken id prints one error naming it and exits 2 before any command runs")
    func mainRefusesATakenID() async {
        let result = await #expect(
            processExitsWith: .exitCode(2), observing: [\.standardErrorContent]
        ) {
            await JourneyCLI.main(handlers: [CardReader(id: "acme.risk"), CardReader(id: "acme.risk")])
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr
                == "error: cannot add the handler 'acme.risk': two of the handlers added have this id; each handler "
                + "id names one handler\n")
    }
}
