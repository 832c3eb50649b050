import Foundation

/// The journey files a command may need without naming them: those of the project's folders
/// (and of the folders it uses, and near the files named), which the files named may call or
/// play. They are read but not parsed: a run or a check parses only what it reaches, so its
/// start-up does not grow with the number of journeys in the project.
///
/// A file is parsed when
/// - a call or a scenario names the journey it declares (``journey(_:)``), or
/// - a run or a check asks whether a stored key is secret (``declaresSecret(_:)``): a key that
///   any journey of the project declares secret is secret in every journey and every output,
///   so the answer looks at every file that could declare it, reached or not.
///
/// What a parsed file gives is exactly what reading it with the others would give: it is read
/// by the same ``ProjectLoader/read(_:)``.
final class ProjectJourneyFiles: @unchecked Sendable {
    private let files: [SourceFile]
    private let loader: ProjectLoader
    /// Guards everything below: runs side by side (`journey test --jobs`) may ask at once.
    private let lock = NSLock()
    /// What each file came to, once parsed.
    private var results: [ProjectLoader.FileResult?]
    /// The stored keys each file declares secret, when remembered from an earlier run
    /// (``ProjectLoader/secretDeclarations``) rather than parsed.
    private var remembered: [[String]?]
    /// What each file's text says without parsing, each part looked at once, when needed.
    private var texts: [TextFacts]
    /// Stored keys asked about, and whether a journey among the files declares them secret.
    private var answers: [String: Bool] = [:]
    /// The files parsed, in the order they were.
    private var parsedOrder: [String] = []

    init(_ files: [SourceFile], loader: ProjectLoader) {
        self.files = files
        self.loader = loader
        self.results = Array(repeating: nil, count: files.count)
        self.remembered = Array(repeating: nil, count: files.count)
        self.texts = Array(repeating: TextFacts(), count: files.count)
    }

    /// The files parsed so far, in the order they were.
    var parsed: [String] { lock.withLock { parsedOrder } }

    var isEmpty: Bool { files.isEmpty }

    /// What the files say about secret stored keys, for a ``CompiledLibrary``.
    var secrets: SecretsElsewhere {
        SecretsElsewhere(declares: { self.declaresSecret($0) }, all: { self.allDeclaredSecret() })
    }

    // MARK: Finding a journey

    /// The file declaring the journey `id` (its journey, nil when the file is too broken to
    /// load one, and its problems), or nil when none of the files declares it.
    ///
    /// A file's first line `journey: ID` says what it declares, so the files saying `id` are
    /// parsed first, in order; the first that declares it is the one. Only when none does
    /// (a file that writes its id otherwise, as a folded scalar or with an escape) are the
    /// other journey files whose text holds `id` parsed, in order.
    func journey(_ id: String) -> (file: String, journey: Journey?, diagnostics: DiagnosticList)? {
        lock.withLock {
            for index in files.indices where header(index) == id && isJourney(index) {
                if let found = declared(id, by: index) { return found }
            }
            let plain = Self.isPlain(id)
            let needle = Array(id.utf8)
            for index in files.indices where results[index] == nil {
                guard !plain || hasEscape(index) || ByteSearch.contains(needle, in: files[index].data), isJourney(index)
                else { continue }
                if let found = declared(id, by: index) { return found }
            }
            return nil
        }
    }

    /// The other files whose first line declares journey `id` and that do declare it, besides
    /// `file`: each with where it writes the id (a project's ids are one each; a file that
    /// spells its id otherwise is found only by a check of the whole project).
    func otherDeclarations(of id: String, besides file: String) -> [(file: String, line: Int, column: Int)] {
        lock.withLock {
            files.indices.compactMap { index in
                guard files[index].path != file, header(index) == id, isJourney(index),
                    let (found, journey, _) = declared(id, by: index), found != file
                else { return nil }
                let location = journey?.id.location
                return (found, location?.line ?? 1, location?.column ?? 1)
            }
        }
    }

    private func declared(_ id: String, by index: Int) -> (String, Journey?, DiagnosticList)? {
        guard case .candidate(id, let file, let journey, let diagnostics) = result(index) else { return nil }
        return (file, journey, diagnostics)
    }

    // MARK: Secret stored keys

    /// Whether a journey among the files declares the stored key `key` secret (`stored:`, with
    /// `secret: true`), exactly as if every file had been parsed.
    ///
    /// Only the files that could declare it are parsed; the others are told apart by their
    /// bytes, soundly:
    /// - ``ProjectLoader/read(_:)`` skips a file that does not look like a journey: it declares
    ///   nothing.
    /// - A YAML key's characters are in the file as they are, unless an escape in a
    ///   double-quoted scalar spells them. Only a hexadecimal escape (`\x`, `\u`, `\U`) can
    ///   give a letter, a digit, `_`, `-` or `.`, and only an escaped line break (a backslash
    ///   ending a line) joins two lines without a space: folding a line adds a space, the other
    ///   escapes give spaces, controls, quotes and slashes, and single quotes double only a
    ///   quote. So a file without such an escape (``mayEscape(_:)``) and without the bytes
    ///   `secret` and `stored` declares no stored key secret.
    /// - Likewise such a file without `key`'s bytes declares no key equal to it, when `key` is
    ///   plain (``isPlain(_:)``): Swift compares text by canonical equivalence, and the only
    ///   characters equal to an ASCII one are the Kelvin sign (K), the Greek question mark (;)
    ///   and the Greek varia (`), as a test checks over all of Unicode.
    func declaresSecret(_ key: String) -> Bool {
        lock.withLock {
            if let known = answers[key] { return known }
            let plain = Self.isPlain(key)
            let needle = Array(key.utf8)
            // Cheapest first: an escape, then the key's text, each in one quick pass.
            let candidates = files.indices.filter { index in
                let escape = hasEscape(index)
                guard escape || !plain || ByteSearch.contains(needle, in: files[index].data) else { return false }
                return isJourney(index) && (escape || mentionsSecretAndStored(index))
            }
            // Most keys asked about are not secret, and then every file that may declare one
            // is parsed anyway: parse them together.
            learnSecrets(candidates)
            // A file too broken to read may declare it: it is taken to (fail closed).
            let found = candidates.contains { secretStoredKeys($0).contains(key) || unreadable($0) }
            answers[key] = found
            return found
        }
    }

    /// Every stored key a journey among the files declares secret: parses each file that
    /// could declare one (see ``declaresSecret(_:)``).
    func allDeclaredSecret() -> Set<String> {
        lock.withLock {
            let candidates = files.indices.filter { index in
                isJourney(index) && (hasEscape(index) || mentionsSecretAndStored(index))
            }
            learnSecrets(candidates)
            var keys: Set<String> = []
            for index in candidates { keys.formUnion(secretStoredKeys(index)) }
            return keys
        }
    }

    // MARK: Reading

    /// What a file's text says, judged from its bytes without parsing: each part once known.
    struct TextFacts {
        /// The value of its first top-level `journey:` line (``ProjectLoader/declaredKey(_:in:)``).
        var header: String??
        /// Whether ``ProjectLoader/read(_:)`` reads it as a journey rather than skipping it
        /// (``ProjectLoader/looksLikeJourney(_:)``).
        var isJourney: Bool?
        /// Whether it may hold a YAML escape that spells a letter or digit, or joins two lines
        /// (``ProjectJourneyFiles/mayEscape(_:)``).
        var hasEscape: Bool?
        var mentionsSecretAndStored: Bool?
    }

    private func header(_ index: Int) -> String? {
        if let known = texts[index].header { return known }
        let header = ProjectLoader.declaredKey("journey", in: files[index].data)
        texts[index].header = .some(header)
        return header
    }

    private func isJourney(_ index: Int) -> Bool {
        if let known = texts[index].isJourney { return known }
        let isJourney = header(index) != nil && ProjectLoader.declaredKey("scenario", in: files[index].data) == nil
        texts[index].isJourney = isJourney
        return isJourney
    }

    private func hasEscape(_ index: Int) -> Bool {
        if let known = texts[index].hasEscape { return known }
        let hasEscape = Self.mayEscape(files[index].data)
        texts[index].hasEscape = hasEscape
        return hasEscape
    }

    private func mentionsSecretAndStored(_ index: Int) -> Bool {
        if let known = texts[index].mentionsSecretAndStored { return known }
        let data = files[index].data
        let mentions = ByteSearch.contains(Self.secret, in: data) && ByteSearch.contains(Self.stored, in: data)
        texts[index].mentionsSecretAndStored = mentions
        return mentions
    }

    /// Whether `data` has a backslash followed by `x`, `u`, `U` or a line break (also the
    /// Unicode line and paragraph separators, which start with a byte past ASCII): the only YAML
    /// escapes that can spell a letter, a digit, `_`, `-` or `.`, or join two lines without a
    /// space. (A `\n` in a text, the usual escape, is none of them.)
    static func mayEscape(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var from = 0
            while let index = ByteSearch.firstIndex(of: UInt8(ascii: "\\"), in: bytes, from: from) {
                guard index + 1 < bytes.count else { return false }
                switch bytes[index + 1] {
                case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                    0x80...0xFF:
                    return true
                default: from = index + 1
                }
            }
            return false
        }
    }

    private static let secret = Array("secret".utf8)
    private static let stored = Array("stored".utf8)

    /// From this much YAML on, parsing files on other threads saves time: a file of a few
    /// kilobytes takes a fifth of a millisecond, waking a thread a few hundredths. (Loading
    /// the files a command names waits for more, since it usually has other work to share.)
    static let parallelBytes = 8 << 10

    /// Parses the files not parsed yet among `indices`, on every core when they are many.
    private func parse(_ indices: [Int]) {
        let missing = indices.filter { results[$0] == nil }
        let bytes = missing.reduce(0) { $0 + files[$1].data.count }
        let parsed = Parallel.map(missing, parallel: bytes >= Self.parallelBytes) { loader.read(files[$0]) }
        for (index, result) in zip(missing, parsed) {
            results[index] = result
            parsedOrder.append(files[index].path)
        }
    }

    /// Learns the stored keys each of `indices` declares secret: remembered from an earlier run
    /// when the loader's ``ProjectLoader/secretDeclarations`` knows the file's bytes, else
    /// parsed (together, as ``parse(_:)``) and then remembered.
    private func learnSecrets(_ indices: [Int]) {
        guard let memory = loader.secretDeclarations else { return parse(indices) }
        let settings = loader.secretDeclarationSettings
        // A project file is skipped for its name, whatever it holds: no memory needed.
        var missing: [Int] = []
        for index in indices where results[index] == nil && remembered[index] == nil {
            if !ProjectLoader.isProjectFile(files[index]),
                let keys = memory.secretStoredKeys(declaredBy: files[index].data, settings: settings)
            {
                remembered[index] = keys
            } else {
                missing.append(index)
            }
        }
        parse(missing)
        // A file that could not be read declares nothing known: never remembered as declaring none.
        for index in missing where !ProjectLoader.isProjectFile(files[index]) && !unreadable(index) {
            memory.remember(secretStoredKeys(index), declaredBy: files[index].data, settings: settings)
        }
    }

    /// The stored keys the file `index` declares secret, as parsed or remembered: parses it
    /// when neither.
    private func secretStoredKeys(_ index: Int) -> [String] {
        if results[index] == nil, let keys = remembered[index] { return keys }
        return ProjectLoader.secretStoredKeys(result(index))
    }

    /// Whether the file `index`, parsed, is a journey's file too broken to read its journey
    /// from (its YAML does not parse): what it declares secret is not known.
    private func unreadable(_ index: Int) -> Bool {
        guard results[index] != nil || remembered[index] == nil else { return false }
        if case .candidate(_, _, nil, _) = result(index) { return true }
        return false
    }

    /// Whether a journey's file that could not be read (`data`) may declare the stored key
    /// `key` secret, judged from its bytes as ``declaresSecret(_:)`` judges the files it need
    /// not parse: taken to declare it unless it cannot.
    static func mayDeclareSecret(_ key: String, in data: Data) -> Bool {
        if mayEscape(data) { return true }
        guard ByteSearch.contains(secret, in: data), ByteSearch.contains(stored, in: data) else { return false }
        return !isPlain(key) || ByteSearch.contains(Array(key.utf8), in: data)
    }

    private func result(_ index: Int) -> ProjectLoader.FileResult {
        parse([index])
        return results[index]!
    }

    /// Whether `text` is made only of ASCII letters other than `K`, digits, `_`, `-` and `.`:
    /// text that a YAML file can hold only as those very bytes, unless it uses an escape.
    static func isPlain(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte != UInt8(ascii: "K")
                case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."): true
                default: false
                }
            }
    }
}

/// Searching bytes for bytes, without decoding them, many at a time: one byte with the C
/// library's `memchr`, several by comparing 32 positions at once.
enum ByteSearch {
    /// Whether `needle` occurs in `data`.
    static func contains(_ needle: [UInt8], in data: Data) -> Bool {
        data.withUnsafeBytes { firstIndex(of: needle, in: $0) != nil }
    }

    /// Where `needle` first occurs in `bytes`, at or after `start`; nil for an empty needle.
    /// Thirty-two positions at a time are kept as candidates when the needle's first and last
    /// bytes are where they would be; each candidate is then compared whole.
    static func firstIndex(of needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard let first = needle.first, let last = needle.last, let base = bytes.baseAddress, start >= 0,
            bytes.count - start >= needle.count
        else { return nil }
        if needle.count == 1 { return firstIndex(of: first, in: bytes, from: start) }
        return needle.withUnsafeBytes { needleBytes -> Int? in
            let count = needle.count
            func matches(at index: Int) -> Bool { memcmp(base + index, needleBytes.baseAddress!, count) == 0 }
            let end = bytes.count - count  // the last position the needle can start at
            let firsts = SIMD32<UInt8>(repeating: first)
            let lasts = SIMD32<UInt8>(repeating: last)
            var index = start
            while index + 31 <= end {
                let head = bytes.loadUnaligned(fromByteOffset: index, as: SIMD32<UInt8>.self)
                let tail = bytes.loadUnaligned(fromByteOffset: index + count - 1, as: SIMD32<UInt8>.self)
                let candidates = (head .== firsts) .& (tail .== lasts)
                if any(candidates) {
                    for lane in 0..<32 where candidates[lane] && matches(at: index + lane) { return index + lane }
                }
                index += 32
            }
            while index <= end {
                if bytes[index] == first && matches(at: index) { return index }
                index += 1
            }
            return nil
        }
    }

    /// Where the byte `byte` first occurs in `bytes`, at or after `start`.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard let base = bytes.baseAddress, start >= 0, start < bytes.count else { return nil }
        return memchr(base + start, Int32(byte), bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
    }
}
