import Foundation
import JourneyCore
import JourneyHandlers
import Testing

/// A journey and a scenario of it, given as YAML, loaded with the built-in handlers and
/// compiled: the scenario and its library. Any error in them fails the test.
func compiled(journey: String, scenario: String) throws -> (CompiledScenario, CompiledLibrary) {
    let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
        SourceFile(path: "j.yaml", data: Data(journey.utf8)), SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
    ])
    let errors = project.diagnostics.items.filter { $0.severity == .error }
    try #require(errors.isEmpty, "\(errors)")
    return (try #require(project.scenarios.first), try #require(project.library))
}
