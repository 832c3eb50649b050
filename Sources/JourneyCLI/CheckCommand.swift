import ArgumentParser
import Foundation
import JourneyCore

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check journeys and scenarios without running them.",
        discussion: """
            Reads every .yaml file under the given paths (files or folders), checks journeys \
            together (so calls between them resolve) and scenarios against their journeys, and \
            prints every problem as `path:line:column: error: message [id]`.

            A file is checked with the journeys it plays or calls, all the way down, found in \
            the project's folders: the project's other journeys are not loaded, so one with \
            errors elsewhere is not reported. Given a folder, or nothing (the project's journey \
            folders), every journey and scenario in it is checked.

            Examples:
              journey check journeys/
              journey check journeys/eduid/onboarding.journey.yaml journeys/eiam/
              journey check                # the project's journey folders, whole

            Exits 0 when there are no errors (warnings are printed but allowed; with --strict \
            they are printed and counted as errors), 2 when there are errors.
            """
    )

    @Argument(
        help:
            "Journey and scenario files, or folders to search (default: the project's journey folders, else journeys)."
    )
    var paths: [String] = []

    @Flag(help: "Treat warnings as errors: printed as `error:`, and failing the check.")
    var strict = false

    @Flag(name: .shortAndLong, help: "Print nothing but the problems.")
    var quiet = false

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let (project, loaded) = Workspace.load(
            paths: try context.paths(paths, usage: "journey check path/to/journeys"),
            journeyFolders: context.searchFolders, toolkit: context.toolkit)
        var diagnostics = loaded
        // A default locale none of the journeys has texts in: every run shows their defaults'.
        if let locale = context.settings.locale, let at = context.settings.localeLocation,
            let offered = Workspace.localesWithout(locale, in: project.journeys)
        {
            diagnostics.warning(
                "text.locale",
                "defaults.locale '\(locale)': none of the journeys checked has texts in it, so each shows its default's (they have \(offered))",
                at: at)
        }
        // With --strict the warnings are errors: said as such, and counted as such.
        let promoted = strict ? diagnostics.warningCount : 0
        if strict { diagnostics = diagnostics.warningsAsErrors }
        console.print(diagnostics)
        let errors = diagnostics.errorCount
        let warnings = diagnostics.warningCount
        if !quiet {
            // A file given by name is checked with the journeys it plays or calls from elsewhere.
            let reached = project.journeysReached
            let files =
                "\(counted(project.journeyFiles, "journey")) and \(counted(project.scenarioFiles, "scenario"))"
                + (reached > 0 ? ", with \(counted(reached, "journey")) they play or call" : "")
            // With --strict the warnings fail the check: the summary says how many of the errors were.
            let failing =
                promoted > 0
                ? " (--strict: \(counted(promoted, "warning")) counted as \(promoted == 1 ? "an error" : "errors"))"
                : ""
            console.err(
                "checked \(files): \(counted(errors, "error")), \(counted(warnings, "warning"))\(failing)\n"
            )
        }
        if errors > 0 { throw ExitCode(ExitStatus.invalid) }
    }
}
