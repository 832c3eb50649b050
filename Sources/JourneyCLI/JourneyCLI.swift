import JourneyCore
import JourneyDocs
import JourneyHandlers
import JourneySuite

/// The `journey` command line as a library. The `journey` executable is
/// `await JourneyCLI.main()`; a package with handlers of its own starts the same command line
/// with them:
///
/// ```swift
/// import JourneyCLI
///
/// @main enum MyJourney {
///     static func main() async { await JourneyCLI.main(handlers: [CardReaderHandler()]) }
/// }
/// ```
///
/// Every command (`check`, `run`, `test`, `docs`) then knows those handlers as well as the
/// built-in ones, and `journey handlers` lists them with their contracts (and writes the
/// project's per-handler schema); `journey test` runs its scenarios in worker processes started
/// from the same executable, so they know them too.
public enum JourneyCLI {
    /// Runs the command line with the built-in handlers plus `handlers`, and exits with the
    /// documented status. A handler whose id is already taken (by a built-in handler or another
    /// of `handlers`) is an error, whatever the command: exit 2 with a message naming the id,
    /// before anything runs.
    public static func main(handlers: [any StepHandler] = []) async -> Never {
        // `journey run` reads the project's journey folders whatever its scenario: they are
        // read on another core while the arguments are parsed.
        if CommandLine.arguments.dropFirst().first == "run" { Workspace.prefetchProjectFolders() }
        let toolkit: Toolkit
        do {
            toolkit = try self.toolkit(adding: handlers)
        } catch {
            JourneyCommand.exit(failing: "error: \(PrintableText.escaped(error.message))\n")
        }
        await Toolkit.$current.withValue(toolkit) {
            await JourneyCommand.main()
        }
        // JourneyCommand.main() exits.
        fatalError("the command line returned without exiting")
    }

    /// The built-in handlers plus `handlers`; an id taken twice is an error that says by whom.
    static func toolkit(adding handlers: [any StepHandler]) throws(CLIError) -> Toolkit {
        do {
            return try Toolkit.builtin.adding(handlers)
        } catch {
            if Toolkit.builtin.handlers[error.id] != nil {
                throw CLIError(
                    "cannot add the handler '\(error.id)': a built-in handler has this id; give yours an id of its "
                        + "own, prefixed with your app's or company's name (such as 'acme.')")
            }
            throw CLIError(
                "cannot add the handler '\(error.id)': two of the handlers added have this id; each handler id "
                    + "names one handler")
        }
    }
}

/// What the commands build projects and runs with: the handlers journeys may name and what
/// scenarios need from them. Set once for the process by ``JourneyCLI/main(handlers:)``.
struct Toolkit: Sendable {
    var handlers: HandlerRegistry
    var services: RunServices
    /// The ids of the handlers that are programs a project file declares.
    var external: Set<String> = []

    static let builtin = Toolkit(handlers: BuiltinHandlers.registry, services: BuiltinHandlers.services)

    @TaskLocal static var current = Toolkit.builtin

    func adding(_ more: [any StepHandler]) throws(HandlerRegistry.DuplicateID) -> Toolkit {
        Toolkit(handlers: try handlers.adding(more), services: services, external: external)
    }

    /// This toolkit with a project's program added; its id must be free.
    func adding(external handler: ExternalHandler) -> Toolkit {
        var toolkit = self
        try? toolkit.handlers.register(handler)
        toolkit.external.insert(handler.contract.id)
        return toolkit
    }

    /// Every handler journeys may name, with where it comes from, by id: what
    /// `journey handlers` lists.
    var entries: [HandlerEntry] {
        handlers.ids.compactMap { id in
            handlers[id].map {
                // An added handler can never take a built-in id (``adding(_:)``).
                HandlerEntry(
                    $0.contract,
                    source: external.contains(id) ? .external : Toolkit.builtin.handlers[id] != nil ? .builtin : .swift)
            }
        }
    }

    /// The front end every command loads files with: safe YAML within the CLI's limits, then
    /// the loader with these handlers. What the journeys a command does not reach declare
    /// secret is remembered in the user's cache (``SecretKeyCache``).
    func loader() -> ProjectLoader {
        var loader = ProjectLoader(handlers: handlers, yaml: SafeYAML(limits: Workspace.limits))
        loader.secretDeclarations = SecretKeyCache.user
        return loader
    }

    /// The player every command runs scenarios with, falling back to the project's defaults.
    func player(
        _ configuration: JourneyMachine.Configuration = .init(), defaults: ScenarioRunner.Defaults = .init()
    ) -> ScenarioRunner {
        ScenarioRunner(services: services, configuration: configuration, defaults: defaults)
    }
}
