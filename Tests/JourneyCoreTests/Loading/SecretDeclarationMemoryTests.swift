import Foundation
import Testing

@testable import JourneyCore

/// What journeys not reached declare secret may be remembered between runs by their bytes
/// (``SecretDeclarationMemory``): a remembered answer saves parsing, and never changes it.
@Suite("Remembering which stored keys a journey file declares secret")
struct SecretDeclarationMemoryTests {
    /// Remembers in memory, by the exact bytes and settings; counts what it is asked.
    final class Memory: SecretDeclarationMemory, @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [String: [String]] = [:]
        private(set) var lookups = 0

        private func key(_ content: Data, _ settings: String) -> String {
            settings + "\n" + String(decoding: content, as: UTF8.self)
        }

        func secretStoredKeys(declaredBy content: Data, settings: String) -> [String]? {
            lock.withLock {
                lookups += 1
                return answers[key(content, settings)]
            }
        }

        func remember(_ keys: [String], declaredBy content: Data, settings: String) {
            lock.withLock { answers[key(content, settings)] = keys }
        }

        var remembered: [String: [String]] { lock.withLock { answers } }
    }

    static let declares = LazyLoadingTests.journey(
        "b.declares", stored: "stored:\n  token: { type: string, secret: true, default: \"\" }")
    static let mentions = LazyLoadingTests.journey(
        "b.mentions", stored: "stored:\n  token: { type: string, default: \"\" }\n# not secret here")

    static func files(_ memory: Memory) -> ProjectJourneyFiles {
        var loader = ProjectLoader(handlers: testHandlers)
        loader.secretDeclarations = memory
        return ProjectJourneyFiles(
            [
                LazyLoadingTests.file("b/declares.journey.yaml", declares),
                LazyLoadingTests.file("b/mentions.journey.yaml", mentions),
            ], loader: loader)
    }

    @Test("the files that may declare a key are parsed once and remembered; the next run answers the same unparsed")
    func rememberedAnswers() {
        let memory = Memory()
        let first = Self.files(memory)
        #expect(first.declaresSecret("token"))
        #expect(first.parsed == ["b/declares.journey.yaml", "b/mentions.journey.yaml"])
        #expect(memory.remembered.values.sorted { $0.count < $1.count } == [[], ["token"]])
        let next = Self.files(memory)
        #expect(next.declaresSecret("token"))
        #expect(!next.declaresSecret("other"))
        #expect(next.allDeclaredSecret() == ["token"])
        #expect(next.parsed.isEmpty)
        // A journey still needed is parsed for what it is, remembered answers or not.
        #expect(next.journey("b.declares")?.journey?.secretStoredKeys == ["token"])
        #expect(next.parsed == ["b/declares.journey.yaml"])
    }

    @Test("a file whose YAML does not parse is taken to declare the key, and never remembered as declaring none")
    func anUnreadableFileIsNotRemembered() {
        let memory = Memory()
        var loader = ProjectLoader(handlers: testHandlers)
        loader.secretDeclarations = memory
        let broken = Self.declares + "oops: [unclosed\n"
        let files = ProjectJourneyFiles([LazyLoadingTests.file("b/broken.journey.yaml", broken)], loader: loader)
        #expect(files.declaresSecret("token"))
        #expect(memory.remembered.isEmpty)
        let again = ProjectJourneyFiles([LazyLoadingTests.file("b/broken.journey.yaml", broken)], loader: loader)
        #expect(again.declaresSecret("token"))
        #expect(again.parsed == ["b/broken.journey.yaml"])
    }

    @Test("an edited file, or other YAML limits, is not answered from what was remembered for other bytes")
    func keyedByBytesAndSettings() {
        let memory = Memory()
        #expect(Self.files(memory).declaresSecret("token"))
        // The secret declaration removed: the memory has nothing for these bytes, so it is parsed.
        var loader = ProjectLoader(handlers: testHandlers)
        loader.secretDeclarations = memory
        let edited = ProjectJourneyFiles(
            [
                LazyLoadingTests.file(
                    "b/declares.journey.yaml",
                    Self.declares.replacingOccurrences(of: "secret: true", with: "secret: false"))
            ], loader: loader)
        #expect(!edited.declaresSecret("token"))
        #expect(edited.parsed == ["b/declares.journey.yaml"])
        var strict = ProjectLoader(handlers: testHandlers, yaml: SafeYAML(limits: .init(maxDepth: 32)))
        strict.secretDeclarations = memory
        #expect(strict.secretDeclarationSettings != ProjectLoader(handlers: testHandlers).secretDeclarationSettings)
        let other = ProjectJourneyFiles(
            [LazyLoadingTests.file("b/declares.journey.yaml", Self.declares)], loader: strict)
        #expect(other.declaresSecret("token"))
        #expect(other.parsed == ["b/declares.journey.yaml"])
    }

    @Test("a project file among the journeys is skipped for its name, never looked up or remembered")
    func projectFileNotRemembered() {
        let memory = Memory()
        var loader = ProjectLoader(handlers: testHandlers)
        loader.secretDeclarations = memory
        let files = ProjectJourneyFiles([LazyLoadingTests.file("b/journeykit.yaml", Self.declares)], loader: loader)
        #expect(!files.declaresSecret("token"))
        #expect(memory.lookups == 0)
        #expect(memory.remembered.isEmpty)
    }
}
