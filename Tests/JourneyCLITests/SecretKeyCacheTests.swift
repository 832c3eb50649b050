import Foundation
import JourneyCore
import Testing

@testable import JourneyCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's cache of which stored keys journey files declare secret: an answer is found
/// only under the name of the very bytes, settings and program it was written for, and only
/// when it is exactly what was written, by the user, for nobody else to change.
@Suite("The cache of secret stored keys")
struct SecretKeyCacheTests {
    static func cache() throws -> SecretKeyCache {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secret-keys-\(UUID().uuidString)")
        return SecretKeyCache(folder: Path.join(folder.path, "journeykit/secret-stored-keys"), program: "0123abcd")
    }

    static let content = Data("journey: a.b\nstored:\n  pin: { type: string, secret: true }\n".utf8)

    @Test("an answer comes back for the same bytes, settings and program, and for nothing else")
    func roundTrip() throws {
        let cache = try Self.cache()
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil)
        let keys = ["pin", "two\nlines", "é", ""]
        cache.remember(keys, declaredBy: Self.content, settings: "s")
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == keys)
        cache.remember([], declaredBy: Self.content, settings: "other")
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "other") == [])
        #expect(cache.secretStoredKeys(declaredBy: Self.content + Data(" ".utf8), settings: "s") == nil)
        let otherBuild = SecretKeyCache(folder: cache.folder, program: "4567")
        #expect(otherBuild.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil)
        // Only the user may look in the folder or read an answer; no temporary is left behind.
        var status = stat()
        #expect(stat(cache.folder, &status) == 0 && status.st_mode & 0o777 == 0o700)
        let name = cache.name(for: Self.content, settings: "s")
        #expect(stat(Path.join(cache.folder, name), &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cache.folder).sorted().allSatisfy { !$0.hasPrefix(".") }
        )
    }

    @Test("a broken, cut short, foreign or shared answer is ignored, and written anew")
    func untrustedAnswers() throws {
        let cache = try Self.cache()
        cache.remember(["pin"], declaredBy: Self.content, settings: "s")
        let name = cache.name(for: Self.content, settings: "s")
        let path = Path.join(cache.folder, name)
        let good = try String(contentsOfFile: path, encoding: .utf8)
        #expect(good == "journeykit secret stored keys 1\n\(name)\n1\n70696e\nend\n")
        let broken = [
            "", "journeykit secret stored keys 1\n\(name)\n1\n70696e\n",  // cut short
            "journeykit secret stored keys 1\n\(name)\n0\nend\n70696e\n",
            "journeykit secret stored keys 1\n\(name)\n2\n70696e\nend\n",
            "journeykit secret stored keys 1\n\(String(repeating: "0", count: 64))\n1\n70696e\nend\n",
            "journeykit secret stored keys 2\n\(name)\n1\n70696e\nend\n",
            "journeykit secret stored keys 1\n\(name)\n01\n70696e\nend\n",
            "journeykit secret stored keys 1\n\(name)\n1\n70696E\nend\n",
            "journeykit secret stored keys 1\n\(name)\n1\n7069z6\nend\n",
            "journeykit secret stored keys 1\n\(name)\n1\nff\nend\n",  // not UTF-8
            "journeykit secret stored keys 1\n\(name)\n1\n70696e\nend",
        ]
        for text in broken {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil, "\(text.debugDescription)")
        }
        try good.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o620)
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil)
        chmod(path, 0o600)
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == ["pin"])
        // A link is not followed, whatever it points to.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".target")
        symlink(path + ".target", path)
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil)
        // Written anew over what was there.
        cache.remember(["pin"], declaredBy: Self.content, settings: "s")
        #expect(cache.secretStoredKeys(declaredBy: Self.content, settings: "s") == ["pin"])
        // A folder that cannot be made means nothing is remembered, and nothing fails.
        let blocked = SecretKeyCache(folder: Path.join(path, "inside-a-file"), program: "0123abcd")
        blocked.remember(["pin"], declaredBy: Self.content, settings: "s")
        #expect(blocked.secretStoredKeys(declaredBy: Self.content, settings: "s") == nil)
    }

    @Test("the cache is in $XDG_CACHE_HOME when it is absolute, else in ~/.cache; with neither, there is none")
    func location() {
        #expect(
            SecretKeyCache.cacheFolder(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]) == "/x/cache")
        #expect(
            SecretKeyCache.cacheFolder(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/u"]) == "/home/u/.cache")
        #expect(SecretKeyCache.cacheFolder(environment: ["HOME": "/home/u"]) == "/home/u/.cache")
        #expect(SecretKeyCache.cacheFolder(environment: [:]) == nil)
    }

    @Test("the program is told apart by the build ID the linker wrote into it")
    func buildID() {
        // A 64-bit little-endian ELF header, one PT_NOTE entry at 64, its notes at 200: another
        // note, then the GNU build ID.
        var file = [UInt8](repeating: 0, count: 240)
        file.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
        file[32] = 64  // program headers right after the header
        file[54] = 56  // each 56 bytes
        file[56] = 1  // one of them
        file[64] = 4  // PT_NOTE
        file[64 + 8] = 200  // its notes at offset 200
        file[64 + 32] = 40  // 40 bytes of them
        file[64 + 48] = 4  // aligned to 4
        file.replaceSubrange(
            200..<240,
            with: [4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 71, 78, 85, 0]
                + [4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 71, 78, 85, 0, 1, 2, 3, 4, 5, 6, 7, 0xAB])
        func bytes(_ offset: Int, _ count: Int) -> [UInt8]? {
            offset + count <= file.count ? Array(file[offset..<(offset + count)]) : nil
        }
        #expect(SecretKeyCache.buildID(header: Array(file.prefix(64)), bytes: bytes) == "01020304050607ab")
        var other = file
        other[200 + 16 + 8] = 1  // the second note is no build ID either
        #expect(
            SecretKeyCache.buildID(
                header: Array(other.prefix(64)),
                bytes: { offset, count in
                    offset + count <= other.count ? Array(other[offset..<(offset + count)]) : nil
                }) == nil)
        #expect(SecretKeyCache.buildID(header: Array(repeating: 0, count: 64), bytes: bytes) == nil)
        #if os(Linux)
        // This test program has one, and it is the same every time it is asked.
        #expect(SecretKeyCache.buildID() != nil)
        #expect(SecretKeyCache.buildID() == SecretKeyCache.buildID())
        #endif
    }

    @Test("folders read ahead of time give exactly what reading them when asked gives")
    func prefetchedFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-\(UUID().uuidString)").path
        for index in 0..<40 {
            let folder = Path.join(root, "area-\(index % 7)/sub-\(index % 3)")
            try Files.makeFolders(folder)
            try String(repeating: "journey: a.b\n", count: index * 500).write(
                toFile: Path.join(folder, "f\(index).journey.yaml"), atomically: false, encoding: .utf8)
        }
        mkfifo(Path.join(root, "area-1/pipe.yaml"), 0o600)
        var expectedDiagnostics = DiagnosticList()
        let expected = try #require(Files.yamlSources(under: root, limit: 100_000, diagnostics: &expectedDiagnostics))
        Files.prefetchSources(limit: 100_000) { [root] }
        var diagnostics = DiagnosticList()
        let found = try #require(Files.yamlSources(under: root, limit: 100_000, diagnostics: &diagnostics))
        #expect(found.map(\.path) == expected.map(\.path))
        #expect(found.map { try? $0.data.get() } == expected.map { try? $0.data.get() })
        #expect(diagnostics.sorted.map(\.message) == expectedDiagnostics.sorted.map(\.message))
        #expect(expectedDiagnostics.items.count == 1)
        // Larger than a read at once, and larger than the limit: read whole, or to one byte past it.
        #expect(
            expected.first { $0.path.hasSuffix("f39.journey.yaml") }.flatMap { try? $0.data.get().count } == 100_001)
        #expect(expected.first { $0.path.hasSuffix("f12.journey.yaml") }.flatMap { try? $0.data.get().count } == 78_000)
        #expect(expected.first { $0.path.hasSuffix("f0.journey.yaml") }.flatMap { try? $0.data.get().count } == 0)
    }
}
