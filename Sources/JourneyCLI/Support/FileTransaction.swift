import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A change to several files in one folder — new contents and deletions — that a `kill -9`
/// cannot leave half made:
/// 1. every new file is staged as a temporary `.NAME.journey-PID.tmp` in the folder, written
///    and flushed to disk (``AtomicFile``);
/// 2. a journal `.LABEL.journey-journal` is written atomically, naming each temporary → target
///    rename and each deletion;
/// 3. the renames and deletions are made and the folder is flushed;
/// 4. the journal is removed.
///
/// A kill before step 2 leaves only temporaries: the targets are all old, and the next command
/// that writes in the folder deletes them. A kill after it leaves a journal: the next writer
/// finishes it first (``FolderRecovery``), and a command that only reads reports it
/// (``isUnfinished(folder:label:)``).
struct FileTransaction {
    let folder: String
    let label: String
    private var staged: [AtomicFile] = []
    private var deletions: [String] = []

    /// Starts a change in `folder` (which exists), first finishing what an interrupted command
    /// left there. `label` names the journal: one change per label at a time.
    init(folder: String, label: String) throws(WriteError) {
        self.folder = folder
        self.label = label
        try FolderRecovery.shared.prepare(folder)
    }

    /// The journal's name for `label`.
    static func journalName(_ label: String) -> String { ".\(label).journey-journal" }

    /// Stages `text` as the new content of the file `name` in the folder.
    mutating func stage(_ text: String, as name: String) throws(WriteError) {
        let file = try AtomicFile(path: Path.join(folder, name))
        file.write(text)
        do {
            try file.stage()
        } catch {
            discard()
            throw error
        }
        staged.append(file)
    }

    /// Deletes the file `name` in the folder with the change.
    mutating func delete(_ name: String) {
        deletions.append(name)
    }

    /// Makes the change: after this returns, or after the next writer finishes the journal of a
    /// kill, every staged file is in place and every deletion made.
    func commit() throws(WriteError) {
        // A rename that would fail is found before the journal is written: the change is then
        // abandoned with nothing replaced, rather than left half made for the next writer.
        do {
            try checkReplaceable()
        } catch {
            discard()
            throw error
        }
        // From the journal on, the change is finished whatever comes: a signal waits for it, and
        // the staged files are the journal's, not temporaries to remove.
        SignalCleanup.hold()
        defer { SignalCleanup.resume() }
        for file in staged { SignalCleanup.remove(file.temporaryPath) }
        let journalPath = Path.join(folder, Self.journalName(label))
        let journal = TransactionJournal(
            pid: getpid(), boot: BootSession.id,
            renames: staged.map { .init(from: Path.lastComponent($0.temporaryPath), to: Path.lastComponent($0.path)) },
            deletions: deletions)
        do {
            try AtomicFile.write(journal.encoded(), to: journalPath)
        } catch {
            discard()
            throw error
        }
        FolderRecovery.shared.register(journalPath)
        defer { FolderRecovery.shared.unregister(journalPath) }
        try journal.apply(in: folder, journalPath: journalPath)
        for file in staged { FolderRecovery.shared.unregister(file.temporaryPath) }
    }

    /// Fails, naming the file, when a staged file could not be renamed into place (a folder is
    /// there, or a file marked immutable): for changes in several folders made together, each
    /// checked before any is made.
    func checkReplaceable() throws(WriteError) {
        for file in staged {
            guard let reason = Files.whyNotReplaceable(file.path) else { continue }
            throw WriteError(path: file.path, reason: reason)
        }
    }

    /// Abandons the change: staged temporaries are deleted, nothing else is touched.
    func discard() {
        for file in staged { file.discard() }
    }

    /// Whether the change `label` in `folder` was interrupted with work left: some staged file
    /// not yet renamed, or some deletion not yet made (a journal that cannot be read counts).
    static func isUnfinished(folder: String, label: String) -> Bool {
        let path = Path.join(folder, journalName(label))
        guard Files.exists(path) else { return false }
        guard let journal = TransactionJournal.read(path) else { return true }
        return journal.hasWorkLeft(in: folder)
    }

    /// The unfinished journals in `folder` (see ``isUnfinished(folder:label:)``), by name.
    static func unfinishedJournals(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix(".") && $0.hasSuffix(TransactionJournal.suffix) }.sorted().filter {
            guard let journal = TransactionJournal.read(Path.join(folder, $0)) else { return true }
            return journal.hasWorkLeft(in: folder)
        }
    }
}

/// The record of a ``FileTransaction`` in progress, as JSON:
/// `{"deletions":["old.md"],"pid":123,"renames":[{"from":".a.md.journey-123.tmp","to":"a.md"}],"version":1}`.
/// Names are plain file names in the journal's folder.
struct TransactionJournal: Codable, Equatable {
    struct Rename: Codable, Equatable {
        var from: String
        var to: String
    }

    static let suffix = ".journey-journal"

    var version = 1
    var pid: Int32
    /// The boot of the machine that wrote it (``BootSession/id``): only a journal of this boot
    /// is finished by another process. One from elsewhere (committed to a repository, copied
    /// with the folder) names renames and deletions nobody here made.
    var boot: String?
    var renames: [Rename]
    var deletions: [String]

    init(pid: Int32, boot: String?, renames: [Rename], deletions: [String]) {
        self.pid = pid
        self.boot = boot
        self.renames = renames
        self.deletions = deletions
    }

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The journal at `path`, or nil when it cannot be read or is not one of ours: unknown
    /// version, a name that is not a plain file name, a rename from something other than a
    /// temporary of its target.
    static func read(_ path: String) -> TransactionJournal? {
        guard let data = try? Files.read(path, limit: 1 << 20), data.count <= 1 << 20,
            let journal = try? JSONDecoder().decode(TransactionJournal.self, from: data), journal.version == 1
        else { return nil }
        func plain(_ name: String) -> Bool { !name.isEmpty && name != "." && name != ".." && !name.contains("/") }
        let valid =
            journal.renames.allSatisfy {
                plain($0.to) && plain($0.from) && TemporaryName.parse($0.from)?.target == TemporaryName.stem(for: $0.to)
            } && journal.deletions.allSatisfy(plain)
        return valid ? journal : nil
    }

    /// Whether a staged file is still waiting for its rename, or a deletion still to be made.
    func hasWorkLeft(in folder: String) -> Bool {
        renames.contains { Files.exists(Path.join(folder, $0.from)) }
            || deletions.contains { Files.exists(Path.join(folder, $0)) }
    }

    /// Makes the renames (those whose temporary is still there) and deletions, flushes the
    /// folder, and removes the journal.
    func apply(in folder: String, journalPath: String) throws(WriteError) {
        for entry in renames {
            let from = Path.join(folder, entry.from)
            let to = Path.join(folder, entry.to)
            guard Files.exists(from) else { continue }
            if rename(from, to) != 0 { throw WriteError(path: to, reason: SystemError().description) }
        }
        for name in deletions {
            let path = Path.join(folder, name)
            if unlink(path) != 0 && errno != ENOENT { throw WriteError(path: path, reason: SystemError().description) }
        }
        try Files.syncFolder(folder)
        // Not flushed: should the journal come back after a power cut, finishing it again
        // changes nothing (its temporaries are gone).
        if unlink(journalPath) != 0 && errno != ENOENT {
            throw WriteError(path: journalPath, reason: SystemError().description)
        }
    }
}

/// The names of staged files: `.NAME.journey-PID.tmp` beside the target `NAME`, where PID is
/// the writing process. A name too long for that to fit in a file name (255 bytes) is cut, and
/// a hash of the whole name told apart from others cut the same way (``stem(for:)``).
enum TemporaryName {
    static func make(for target: String) -> String { ".\(stem(for: target)).journey-\(getpid()).tmp" }

    /// The longest name a temporary's stem may have: 255 bytes, less a dot, `.journey-`, the
    /// longest process id (7 digits) and `.tmp`.
    static let longestStem = 255 - 1 - 9 - 7 - 4

    /// What a temporary of `target` is named after: `target` itself, or when that is too long,
    /// its first characters, `~` and eight hexadecimal digits of a hash of it (FNV-1a).
    static func stem(for target: String) -> String {
        guard target.utf8.count > longestStem else { return target }
        var hash: UInt32 = 0x811C_9DC5
        for byte in target.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let suffix = "~" + String(repeating: "0", count: 8 - String(hash, radix: 16).count) + String(hash, radix: 16)
        var prefix = ""
        for character in target {
            guard prefix.utf8.count + character.utf8.count + suffix.utf8.count <= longestStem else { break }
            prefix.append(character)
        }
        return prefix + suffix
    }

    /// The target (its stem, ``stem(for:)``) and the writer's process of a temporary's name;
    /// nil for any other name.
    static func parse(_ name: String) -> (target: String, pid: Int32)? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let middle = name.dropFirst().dropLast(4)
        guard let marker = middle.range(of: ".journey-", options: .backwards),
            let pid = Int32(middle[marker.upperBound...]), pid > 0, marker.lowerBound > middle.startIndex
        else { return nil }
        return (String(middle[..<marker.lowerBound]), pid)
    }
}

/// What an interrupted command left in a folder, cleared by the first command of this process
/// that writes there, before it writes: every journal of a process that is no longer running is
/// finished (rolled forward), then every temporary of ours whose process is no longer running
/// is deleted. Files of running processes — this one's included — are left alone.
final class FolderRecovery: @unchecked Sendable {
    static let shared = FolderRecovery()

    private let lock = NSLock()
    private var prepared: Set<String> = []
    /// Temporaries and journals this process is writing now.
    private var inFlight: Set<String> = []

    func register(_ path: String) { lock.withLock { _ = inFlight.insert(path) } }
    func unregister(_ path: String) { lock.withLock { _ = inFlight.remove(path) } }

    /// Clears `folder` once per process; a journal that cannot be finished (or read) throws.
    func prepare(_ folder: String) throws(WriteError) {
        lock.lock()
        defer { lock.unlock() }
        let key = Files.realPath(folder) ?? folder
        guard !prepared.contains(key) else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names.sorted() where name.hasPrefix(".") && name.hasSuffix(TransactionJournal.suffix) {
            let path = Path.join(folder, name)
            guard !inFlight.contains(path) else { continue }
            guard let journal = TransactionJournal.read(path) else {
                throw WriteError(
                    path: folder,
                    reason:
                        "\(path) records an interrupted update but cannot be read; check the files it names and delete it"
                )
            }
            guard journal.boot == BootSession.id else {
                throw WriteError(
                    path: folder,
                    reason:
                        "\(path) records an interrupted update, but not one made on this machine since it last started: it is not finished here; check the files it names and delete it"
                )
            }
            if journal.pid != getpid() && Self.isRunning(journal.pid) { continue }
            try journal.apply(in: folder, journalPath: path)
            if journal.pid != getpid() {
                Console().err(
                    "note: finished an update of \(PrintableText.escaped(folder)) that was interrupted (\(PrintableText.escaped(name)))\n"
                )
            }
        }
        for name in names {
            guard let temporary = TemporaryName.parse(name) else { continue }
            let path = Path.join(folder, name)
            let stale = temporary.pid == getpid() ? !inFlight.contains(path) : !Self.isRunning(temporary.pid)
            if stale { unlink(path) }
        }
        prepared.insert(key)
    }

    /// Whether a process with this id exists (`kill(pid, 0)`; one we may not signal exists) and
    /// has not ended: a process killed a moment ago stays until its parent reaps it (a zombie,
    /// `Z` in `/proc/PID/stat` on Linux), and what it left is stale already.
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
        if let data = try? Files.read("/proc/\(pid)/stat", limit: 4096),
            let close = data.lastIndex(of: UInt8(ascii: ")")), close + 2 < data.count,
            [UInt8(ascii: "Z"), UInt8(ascii: "X")].contains(data[close + 2])
        {
            return false
        }
        #endif
        return true
    }
}

/// The boot of this machine: a journal records it, so that only this boot's are finished.
enum BootSession {
    /// Linux's boot id, macOS's boot session UUID; nil where neither can be read.
    static let id: String? = {
        #if os(Linux)
        guard let data = try? Files.read("/proc/sys/kernel/random/boot_id", limit: 64) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
        #elseif canImport(Darwin)
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0 else { return nil }
        return String(cString: buffer)
        #else
        return nil
        #endif
    }()
}
