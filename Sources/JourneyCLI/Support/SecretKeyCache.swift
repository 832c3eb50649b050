import Crypto
import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stored keys that journey files declare secret, remembered in the user's cache folder
/// (`$XDG_CACHE_HOME/journeykit/secret-stored-keys/`, else `~/.cache/journeykit/…`, never the
/// project), so that `journey run` inside a large project need not parse again, run after
/// run, the journeys it does not reach to be sure none declares a key it touches secret.
///
/// Each answer is one small file named by the SHA-256 of the program's build ID (a digest of
/// the program the linker writes into it), the YAML limits and the journey file's bytes: an
/// edited file, another limit or another build of JourneyKit is looked up under another name,
/// so an answer never goes stale. A file that is not exactly what this program writes for
/// that name (broken, cut short, from another format), that cannot be read, or that belongs
/// to another user or can be written by others is ignored, never trusted, and written anew.
/// Answers are written whole to a temporary file and renamed into place. Without a build ID
/// (not an ELF program) or a home folder, nothing is remembered and files are parsed as
/// before.
struct SecretKeyCache: SecretDeclarationMemory {
    /// The folder of the answers.
    let folder: String
    /// What tells this program apart from every other build (hex).
    let program: String

    /// The cache of the user running the command, found when first asked: nothing is looked
    /// for in a run that never needs it.
    static let user: any SecretDeclarationMemory = UserCache()

    /// The cache of the user running the command, or nil when there is no place for it or
    /// the program cannot be told apart from other builds.
    static let located: SecretKeyCache? = {
        guard let base = cacheFolder(environment: ProcessInfo.processInfo.environment),
            let program = buildID()
        else { return nil }
        return SecretKeyCache(folder: Path.join(Path.join(base, "journeykit"), "secret-stored-keys"), program: program)
    }()

    /// ``located``, once first asked.
    private struct UserCache: SecretDeclarationMemory {
        func secretStoredKeys(declaredBy content: Data, settings: String) -> [String]? {
            located?.secretStoredKeys(declaredBy: content, settings: settings)
        }

        func remember(_ keys: [String], declaredBy content: Data, settings: String) {
            located?.remember(keys, declaredBy: content, settings: settings)
        }
    }

    /// `$XDG_CACHE_HOME` when it is an absolute path (the XDG rule), else `$HOME/.cache`.
    static func cacheFolder(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return Path.join(home, ".cache")
    }

    static let header = "journeykit secret stored keys 1"
    /// Larger answers are not this program's.
    static let maxBytes = 1 << 20

    /// The name of the answer for `content` parsed with `settings`.
    func name(for content: Data, settings: String) -> String {
        var hash = SHA256()
        hash.update(data: Data((Self.header + "\n" + program + "\n" + settings + "\n").utf8))
        hash.update(data: content)
        return Self.hex(hash.finalize())
    }

    func secretStoredKeys(declaredBy content: Data, settings: String) -> [String]? {
        let name = name(for: content, settings: settings)
        guard let data = Self.readOwn(Path.join(folder, name)) else { return nil }
        return Self.decode(data, name: name)
    }

    func remember(_ keys: [String], declaredBy content: Data, settings: String) {
        let name = name(for: content, settings: settings)
        guard makeFolder() else { return }
        let text = Self.encode(keys, name: name)
        var random = SystemRandomNumberGenerator()
        let temporary = Path.join(folder, ".\(name).\(getpid()).\(random.next() as UInt64).tmp")
        // Kept before it is made, as every temporary is: Ctrl-C while it is written leaves none.
        SignalCleanup.add(temporary)
        defer { SignalCleanup.remove(temporary) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        SignalCleanup.made(temporary)
        let written = (try? Descriptor(raw: descriptor).write(Array(text.utf8))) != nil
        if close(descriptor) == 0 && written && rename(temporary, Path.join(folder, name)) == 0 { return }
        unlink(temporary)
    }

    /// Makes the folder (only its owner may look in it) and those above it.
    private func makeFolder() -> Bool {
        if Files.isFolder(folder) { return true }
        guard (try? Files.makeFolders(Path.parent(folder))) != nil else { return false }
        return mkdir(folder, 0o700) == 0 || (errno == EEXIST && Files.isFolder(folder))
    }

    /// The answer file: the header, the name it was written under, how many keys, each key's
    /// UTF-8 bytes in hex on a line of its own, and `end`, so that a file cut short is told
    /// from a file with fewer keys.
    static func encode(_ keys: [String], name: String) -> String {
        ([header, name, String(keys.count)] + keys.map { hex(Array($0.utf8)) } + ["end", ""]).joined(separator: "\n")
    }

    /// The keys of an answer file, when it is exactly what ``encode(_:name:)`` writes for
    /// `name`; nil otherwise.
    static func decode(_ data: Data, name: String) -> [String]? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 5, lines[0] == header, lines[1] == name, let count = Int(lines[2]),
            String(count) == lines[2], count == lines.count - 5, lines[lines.count - 2] == "end",
            lines[lines.count - 1].isEmpty
        else { return nil }
        var keys: [String] = []
        for line in lines[3..<(3 + count)] {
            guard let bytes = unhex(line), let key = String(validating: bytes, as: UTF8.self) else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// What the regular file at `path` holds, when it belongs to the user running the command
    /// and nobody else may write it; nil otherwise (or when it cannot be read).
    static func readOwn(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            status.st_mode & 0o022 == 0, status.st_size <= maxBytes
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes {
                systemRead(descriptor, $0.baseAddress! + count, $0.count - count)
            }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            count += read
        }
        // A file that grew while it was read is not the one looked at.
        guard count == Int(status.st_size) else { return nil }
        return Data(bytes[..<count])
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of lowercase hex text; nil for anything else.
    static func unhex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The build ID the linker wrote into the running program (its `NT_GNU_BUILD_ID` note, a
    /// digest of what it was built from), in hex; nil when it has none or it cannot be read.
    static func buildID() -> String? {
        #if os(Linux)
        let descriptor = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, count <= 1 << 20 else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return read == count ? buffer : nil
        }
        return bytes(at: 0, count: 64).flatMap { header in
            buildID(header: header) { bytes(at: $0, count: $1) }
        }
        #else
        return nil
        #endif
    }

    /// The build ID of the ELF program whose first 64 bytes are `header` (64-bit,
    /// little-endian), reading its other parts with `bytes(offset, count)`.
    static func buildID(header: [UInt8], bytes: (Int, Int) -> [UInt8]?) -> String? {
        func integer(_ data: [UInt8], _ offset: Int, _ size: Int) -> Int {
            (0..<size).reversed().reduce(0) { $0 << 8 | Int(data[offset + $1]) }
        }
        guard header.count >= 64, header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), header[4] == 2, header[5] == 1
        else { return nil }
        let tableOffset = integer(header, 32, 8)
        let entrySize = integer(header, 54, 2)
        let entries = integer(header, 56, 2)
        guard entrySize >= 56, let table = bytes(tableOffset, entrySize * entries) else { return nil }
        for entry in stride(from: 0, to: table.count, by: entrySize) where integer(table, entry, 4) == 4 {
            // A PT_NOTE segment: notes (size of name, of description, type, then both, each
            // padded to the segment's alignment).
            let align = integer(table, entry + 48, 8) == 8 ? 8 : 4
            guard let notes = bytes(integer(table, entry + 8, 8), integer(table, entry + 32, 8)) else { continue }
            func padded(_ size: Int) -> Int { (size + align - 1) / align * align }
            var at = 0
            while at + 12 <= notes.count {
                let nameSize = integer(notes, at, 4)
                let descriptionSize = integer(notes, at + 4, 4)
                let name = at + 12
                let description = name + padded(nameSize)
                let next = description + padded(descriptionSize)
                guard next <= notes.count else { break }
                if integer(notes, at + 8, 4) == 3, nameSize == 4,
                    notes[name..<(name + 4)].elementsEqual([71, 78, 85, 0]),
                    descriptionSize >= 8
                {
                    return hex(notes[description..<(description + descriptionSize)])
                }
                at = next
            }
        }
        return nil
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif
