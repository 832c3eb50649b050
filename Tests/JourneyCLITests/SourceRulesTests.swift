import Foundation
import Testing

/// JourneyCore is pure: it never touches the file system, the network or processes. The
/// CLI reads and writes files; the core gets bytes and returns values.
@Suite(
    "Source rules: JourneyCore touches no files, network or processes; no I/O traps; randomness and time from the context",
    .timeLimit(.minutes(10)))
struct SourceRulesTests {
    struct Rule: Sendable, CustomTestStringConvertible {
        var name: String
        var pattern: String
        var testDescription: String { name }

        /// Simple word boundaries: with Swift Regex's default (Unicode) ones, `FileManager.default`
        /// is one word and `\bFileManager\b` would not match it.
        func compiled() throws -> Regex<AnyRegexOutput> { try Regex(pattern).wordBoundaryKind(.simple) }
    }

    static let rules: [Rule] = [
        Rule(name: "import ArgumentParser", pattern: #"^\s*(@\w+\s+)*import\s+(\w+\s+)?ArgumentParser\b"#),
        Rule(name: "import FoundationNetworking", pattern: #"^\s*(@\w+\s+)*import\s+(\w+\s+)?FoundationNetworking\b"#),
        Rule(name: "import AsyncHTTPClient", pattern: #"^\s*(@\w+\s+)*import\s+(\w+\s+)?AsyncHTTPClient\b"#),
        Rule(name: "import NIO*", pattern: #"^\s*(@\w+\s+)*import\s+(\w+\s+)?NIO\w*"#),
        Rule(
            name: "import Glibc/Musl/Darwin",
            pattern: #"^\s*(@\w+\s+)*import\s+(\w+\s+)?(Glibc|Musl|Darwin|WinSDK|ucrt)\b"#),
        Rule(
            name: "process APIs",
            pattern:
                #"\b(fork|vfork|execv|execve|execvp|execl|execlp|posix_spawn|posix_spawnp|popen|system|waitpid)\s*\("#),
        Rule(name: "Process(", pattern: #"\b(Process|NSTask)\s*\("#),
        Rule(name: "FileManager", pattern: #"\bFileManager\b"#),
        Rule(name: "FileHandle", pattern: #"\bFileHandle\b"#),
        Rule(name: "C file APIs", pattern: #"\b(fopen|freopen|opendir|mkstemp|fdopen)\s*\("#),
        Rule(
            name: "Foundation file reads and writes",
            pattern:
                #"contentsOfFile|\b(Data|NSData|String|NSString)\s*\(\s*contentsOf\s*:|\.write\s*\(\s*to(File)?\s*:\s*[^&\s]|\bURLSession\b|\bInputStream\b|\bOutputStream\b"#
        ),
    ]

    static let coreFolder = Paths.root.appendingPathComponent("Sources/JourneyCore")

    /// The code of a Swift file without its comments (line comments and `/* */` blocks), so
    /// that documentation may say "the core never uses FileManager".
    static func code(of text: String) -> [(number: Int, text: String)] {
        var result: [(Int, String)] = []
        var inBlock = false
        for (offset, raw) in RunResult.lines(text).enumerated() {
            var line = ""
            var rest = Substring(raw)
            while !rest.isEmpty {
                if inBlock {
                    guard let end = rest.range(of: "*/") else {
                        rest = ""
                        break
                    }
                    rest = rest[end.upperBound...]
                    inBlock = false
                } else if let start = rest.range(of: "/*"),
                    rest.range(of: "//").map({ start.lowerBound < $0.lowerBound }) ?? true
                {
                    line += rest[..<start.lowerBound]
                    rest = rest[start.upperBound...]
                    inBlock = true
                } else if let comment = rest.range(of: "//") {
                    line += rest[..<comment.lowerBound]
                    rest = ""
                } else {
                    line += rest
                    rest = ""
                }
            }
            result.append((offset + 1, line))
        }
        return result
    }

    @Test("the rules catch what they are meant to catch")
    func rulesWork() throws {
        let compiled = try Self.rules.map { ($0.name, try $0.compiled()) }
        func caught(_ line: String) -> [String] { compiled.filter { line.contains($0.1) }.map(\.0) }
        #expect(caught("import ArgumentParser") == ["import ArgumentParser"])
        #expect(caught("@preconcurrency import FoundationNetworking") == ["import FoundationNetworking"])
        #expect(caught("import NIOPosix") == ["import NIO*"])
        #expect(caught("import struct NIOCore.ByteBuffer") == ["import NIO*"])
        #expect(caught("    import Glibc") == ["import Glibc/Musl/Darwin"])
        #expect(caught("let p = Process()") == ["Process("])
        #expect(caught("let fm = FileManager.default") == ["FileManager"])
        #expect(caught("FileHandle.standardError.write(data)") == ["FileHandle"])
        #expect(caught("let f = fopen(path, \"r\")") == ["C file APIs"])
        #expect(caught("_ = system(\"ls\")") == ["process APIs"])
        #expect(caught("let d = try Data(contentsOf: url)") == ["Foundation file reads and writes"])
        #expect(caught("try data.write(to: url)") == ["Foundation file reads and writes"])
        // Ordinary core code is not caught.
        #expect(caught("import Foundation").isEmpty)
        #expect(caught("import Yams").isEmpty)
        #expect(caught("let processed = handler.process(input)").isEmpty)
        #expect(caught("let s = subsystem(\"x\")").isEmpty)
        #expect(caught("writer.write(record)").isEmpty)
        #expect(caught("diagnostics.append(contentsOf: other.items)").isEmpty)
        #expect(caught("value.write(to: &output)").isEmpty)
        // Comments are not code.
        #expect(
            Self.code(of: "/// the CLI uses FileManager; the core never does\nlet x = 1").map(\.text) == [
                "", "let x = 1",
            ])
        #expect(Self.code(of: "let a = 1 /* FileManager */ + 2").map(\.text) == ["let a = 1  + 2"])
        #expect(Self.code(of: "/*\nFileManager\n*/let b = 2").map(\.text) == ["", "", "let b = 2"])
    }

    /// Rules for every target: I/O that traps instead of reporting. Foundation's `FileHandle`
    /// write and its older read methods end in `try!` on Linux, so a full disk or a closed pipe
    /// would kill the process; the CLI writes with `write(2)` and reports the error.
    static let ioRules: [Rule] = [
        Rule(name: "try!", pattern: #"\btry!"#),
        Rule(
            name: "FileHandle write",
            pattern: #"\bFileHandle\.(standard\w+|nullDevice)\.write\s*\(|\.fileHandleFor(Writing|Reading)\.write\s*\("#
        ),
        Rule(
            name: "FileHandle methods that trap",
            pattern:
                #"\.(readDataToEndOfFile|readData\s*\(\s*ofLength|availableData|seekToEndOfFile|truncateFile|synchronizeFile|closeFile)\b"#
        ),
    ]

    @Test("the I/O rules catch what they are meant to catch")
    func ioRulesWork() throws {
        let compiled = try Self.ioRules.map { ($0.name, try $0.compiled()) }
        func caught(_ line: String) -> [String] { compiled.filter { line.contains($0.1) }.map(\.0) }
        #expect(caught("let d = try! Data(contentsOf: url)") == ["try!"])
        #expect(caught("FileHandle.standardOutput.write(data)") == ["FileHandle write"])
        #expect(caught("FileHandle.standardError.write(Data(text.utf8))") == ["FileHandle write"])
        #expect(caught("input.fileHandleForWriting.write(Data(dot.utf8))") == ["FileHandle write"])
        #expect(
            caught("let data = pipe.fileHandleForReading.readDataToEndOfFile()") == ["FileHandle methods that trap"])
        #expect(caught("let x = try handle.readToEnd()").isEmpty)
        #expect(caught("let x = try? parse(text)").isEmpty)
        #expect(caught("file.write(text)").isEmpty)
        #expect(caught("console.out(text)").isEmpty)
    }

    /// Every line of code (comments aside) in the Swift files under `folder` that a rule
    /// catches, as `path:line: rule: code`.
    static func violations(under folder: URL, of rules: [Rule]) throws -> [String] {
        let compiled = try rules.map { ($0.name, try $0.compiled()) }
        var violations: [String] = []
        for file in files(under: folder, endingWith: ".swift") {
            let text = try String(contentsOf: file, encoding: .utf8)
            let relative = String(file.path.dropFirst(Paths.root.path.count + 1))
            for (number, line) in code(of: text) {
                for (name, regex) in compiled where line.contains(regex) {
                    violations.append("\(relative):\(number): \(name): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return violations
    }

    @Test("no source in Sources/ uses try! or FileHandle I/O that traps on an error")
    func noTrappingIO() throws {
        let folder = Paths.root.appendingPathComponent("Sources")
        let count = files(under: folder, endingWith: ".swift").count
        #expect(count >= 40, "found only \(count) Swift files under Sources")
        let violations = try Self.violations(under: folder, of: Self.ioRules)
        #expect(
            violations.isEmpty,
            "a write error must be reported, never trapped on:\n\(violations.joined(separator: "\n"))")
    }

    /// Randomness and real time reach handlers only through their context: the random stream
    /// of the run (the system's secure generator, or seeded when the run asks) and its wall
    /// clock. Neither JourneyCore nor JourneyHandlers takes them from anywhere else, so a seeded
    /// run is reproducible and a normal one is secure.
    static let entropyRules: [Rule] = [
        Rule(name: "SystemRandomNumberGenerator", pattern: #"\bSystemRandomNumberGenerator\b"#),
        Rule(name: "a source chosen in place", pattern: #"\bRandomSource\s*\.\s*(system|seeded)\b"#),
        Rule(
            name: "C randomness",
            pattern:
                #"\b(arc4random\w*|getrandom|getentropy|SecRandomCopyBytes|[del]rand48)\s*\(|(^|[=(,\s])s?rand(om)?\s*\(\s*\)"#
        ),
        Rule(name: "random() without a source", pattern: #"\.random\s*\((?![^)]*\busing\s*:)"#),
        Rule(
            name: "randomElement/shuffled without a source", pattern: #"\b(randomElement|shuffled|shuffle)\s*\(\s*\)"#),
        Rule(name: "UUID()", pattern: #"\bUUID\s*\(\s*\)"#),
        Rule(name: "SymmetricKey(size:)", pattern: #"\bSymmetricKey\s*\(\s*size\s*:"#),
        Rule(name: "a new private key", pattern: #"\bPrivateKey\s*\(\s*(keySize\s*:[^)]*)?\)"#),
        Rule(
            name: "sealing with a nonce of its own",
            pattern: #"\b(GCM|ChaChaPoly)\s*\.\s*seal\s*\((?![^\n]*\bnonce\s*:)"#),
        Rule(
            name: "the system's time",
            pattern:
                #"\bDate\s*\(\s*\)|\bDate\s*\.\s*now\b|\btimeIntervalSinceNow\b|\bCFAbsoluteTimeGetCurrent\b|\bDispatch(Wall)?Time\s*\.\s*now\b|\b(Continuous|Suspending)Clock\b|\b(clock_gettime|gettimeofday)\s*\(|\btime\s*\(\s*nil\s*\)"#
        ),
    ]

    /// The files that are where randomness and real time come from.
    static let entropySources: Set<String> = [
        "Sources/JourneyCore/Model/RandomSource.swift", "Sources/JourneyCore/Model/WallClock.swift",
    ]

    /// The files that may choose a seeded source, and nothing else of the rules: the explorer
    /// seeds every run it plays, and its random walks, from what the user asked, so that an
    /// exploration gives the same result every time.
    static let seeders: Set<String> = [
        "Sources/JourneyCore/Explore/JourneyExplorer.swift", "Sources/JourneyCore/Explore/RandomWalks.swift",
    ]

    @Test("the entropy rules catch what they are meant to catch")
    func entropyRulesWork() throws {
        let compiled = try Self.entropyRules.map { ($0.name, try $0.compiled()) }
        func caught(_ line: String) -> [String] { compiled.filter { line.contains($0.1) }.map(\.0) }
        #expect(caught("var g = SystemRandomNumberGenerator()") == ["SystemRandomNumberGenerator"])
        #expect(caught("var random = RandomSource.system") == ["a source chosen in place"])
        #expect(caught("var random = RandomSource.seeded(1)") == ["a source chosen in place"])
        #expect(caught("let n = arc4random_uniform(10)") == ["C randomness"])
        #expect(caught("let n = random()") == ["C randomness"])
        #expect(caught("let n = Int.random(in: 0..<10)") == ["random() without a source"])
        #expect(caught("let b = Bool.random()") == ["random() without a source"])
        #expect(caught("let x = xs.randomElement()") == ["randomElement/shuffled without a source"])
        #expect(caught("let id = UUID().uuidString") == ["UUID()"])
        #expect(caught("let key = SymmetricKey(size: .bits256)") == ["SymmetricKey(size:)"])
        #expect(caught("let key = P256.Signing.PrivateKey()") == ["a new private key"])
        #expect(caught("let box = try AES.GCM.seal(data, using: key)") == ["sealing with a nonce of its own"])
        #expect(caught("let now = Date()") == ["the system's time"])
        #expect(caught("let now = Date.now") == ["the system's time"])
        #expect(caught("let clock = ContinuousClock()") == ["the system's time"])
        #expect(caught("let t = time(nil)") == ["the system's time"])
        // Drawing from the context, and time from the context, are not caught.
        #expect(caught("let pkce = PKCE(using: &context.random)").isEmpty)
        #expect(caught("let n = Int.random(in: 0..<10, using: &context.random)").isEmpty)
        #expect(caught("let box = try AES.GCM.seal(data, using: key, nonce: nonce, authenticating: c)").isEmpty)
        #expect(caught("now: context.wallClock / 1000").isEmpty)
        #expect(caught("let date = formatter.date(from: text)").isEmpty)
        #expect(caught("static func time(_ ms: Int) -> String {").isEmpty)
        #expect(caught("let key = SymmetricKey(data: bytes)").isEmpty)
        #expect(caught("let key = try P256.Signing.PrivateKey(pemRepresentation: pem)").isEmpty)
    }

    @Test("JourneyCore and JourneyHandlers take randomness and real time only from a run's context")
    func entropyComesFromTheContext() throws {
        var violations: [String] = []
        for target in ["JourneyCore", "JourneyHandlers"] {
            let folder = Paths.root.appendingPathComponent("Sources/\(target)")
            violations += try Self.violations(under: folder, of: Self.entropyRules).filter { violation in
                let file = String(violation.prefix { $0 != ":" })
                if Self.seeders.contains(file) && violation.contains(": a source chosen in place: ")
                    && violation.contains("RandomSource.seeded(")
                {
                    return false
                }
                return !Self.entropySources.contains(file)
            }
        }
        #expect(
            violations.isEmpty,
            "draw from the handler context's random and wallClock instead:\n\(violations.joined(separator: "\n"))")
        for source in Self.entropySources.union(Self.seeders) {
            #expect(
                FileManager.default.fileExists(atPath: Paths.root.appendingPathComponent(source).path),
                "\(source) is gone: take it off the list")
        }
    }

    @Test("no JourneyCore source uses a forbidden module or API")
    func coreIsPure() throws {
        let count = files(under: Self.coreFolder, endingWith: ".swift").count
        #expect(count >= 10, "found only \(count) Swift files under Sources/JourneyCore")
        let violations = try Self.violations(under: Self.coreFolder, of: Self.rules)
        #expect(
            violations.isEmpty,
            "JourneyCore must not touch files, network or processes:\n\(violations.joined(separator: "\n"))")
    }
}
