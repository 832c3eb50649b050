import Foundation
import JourneyCore
import Testing

/// The journey schema's `exceptions:` names exactly the rules a journey may except: every auth
/// rule and every exploration invariant, so an editor accepts what `journey check` accepts.
@Suite("The rule ids in the journey schema")
struct RuleIdsSchemaTests {
    @Test("exceptions: lists every auth rule and exploration invariant, and nothing else")
    func exceptionIds() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("schemas/journey.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let exceptions = try #require(properties["exceptions"] as? [String: Any])
        let names = try #require((exceptions["propertyNames"] as? [String: Any])?["enum"] as? [String])
        let rules = AuthRule.allCases.map(\.rawValue) + ExplorationInvariant.allCases.map(\.rawValue)
        #expect(Set(names) == Set(rules), "\(Set(rules).symmetricDifference(names).sorted())")
        #expect(names.count == rules.count)
    }
}
