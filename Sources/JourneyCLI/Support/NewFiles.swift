import Foundation
import JourneyCore
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that `journey new` writes together. None is written over unless the user says so: a
/// target that exists stops the write before anything is touched. Every file is staged in full
/// beside its target (one ``FileTransaction`` per folder) before any is renamed into place, so a
/// failure to write one leaves none of them, nor any folder made for them.
struct NewFiles {
    struct File {
        var path: String
        var text: String
    }

    /// The files, in the order they are put in place.
    private(set) var files: [File] = []
    /// What an existing target's error says replaces it, when the command has a way to (its
    /// `--force`); nil says nothing of replacing.
    var replacedBy: String? = "--force"

    mutating func add(_ text: String, at path: String) {
        files.append(File(path: path, text: text))
    }

    /// The label of the transaction in each folder.
    static let label = "journey-new"

    /// An existing target is an error naming it, unless `replacing`; a folder where a file
    /// should go is an error either way.
    func checkTargets(replacing: Bool) throws(CLIError) {
        for file in files where Files.isFolder(file.path) {
            throw CLIError("\(Workspace.display(file.path)) is a folder; nothing was written")
        }
        let existing = files.map(\.path).filter(Files.exists)
        guard replacing || existing.isEmpty else {
            let names = existing.map(Workspace.display).joined(separator: ", ")
            let one = existing.count == 1
            throw CLIError(
                "\(names) already exist\(one ? "s" : ""); nothing was written"
                    + (replacedBy.map { " (\($0) replaces \(one ? "it" : "them"))" } ?? "")
            )
        }
    }

    /// Writes every file, after ``checkTargets(replacing:)``.
    func write(replacing: Bool) throws(CLIError) {
        try checkTargets(replacing: replacing)
        var folders: [String] = []
        for file in files where !folders.contains(Path.parent(file.path)) { folders.append(Path.parent(file.path)) }
        var made: [String] = []
        var staged: [FileTransaction] = []
        do throws(WriteError) {
            for folder in folders {
                made += try Files.makeFolders(folder)
                var transaction = try FileTransaction(folder: folder, label: Self.label)
                for file in files where Path.parent(file.path) == folder {
                    try transaction.stage(file.text, as: Path.lastComponent(file.path))
                }
                staged.append(transaction)
            }
            // Every folder's files are checked before any folder's change is made: one that
            // cannot be replaced stops them all, with nothing replaced.
            for transaction in staged { try transaction.checkReplaceable() }
            for transaction in staged { try transaction.commit() }
        } catch {
            for transaction in staged { transaction.discard() }
            for folder in made.reversed() { rmdir(folder) }
            throw CLIError(error.description)
        }
    }

    /// Prints each file written, then the commands to run next.
    func report(_ console: Console, next: [String]) {
        for file in files { console.out("wrote \(PrintableText.escaped(Workspace.display(file.path)))\n") }
        guard let first = next.first else { return }
        console.out("\nnext: \(first)\n")
        for command in next.dropFirst() { console.out("      \(command)\n") }
    }

    /// The path to `file` from `folder` (both as paths from the working folder, or absolute):
    /// `../../schemas/journey.schema.json`.
    static func relativePath(to file: String, from folder: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let target = Path.absoluteComponents(file, cwd: cwd)
        let base = Path.absoluteComponents(folder, cwd: cwd)
        var shared = 0
        while shared < min(target.count, base.count), target[shared] == base[shared] { shared += 1 }
        let up = Array(repeating: "..", count: base.count - shared)
        return (up + target[shared...]).joined(separator: "/")
    }

    /// What a file at `path` names as its schema: `schemas/NAME` of the project (the folder of
    /// `projectFile`), as a path from the file's folder, when the project has it; else the
    /// published schema.
    static func schema(_ name: String, for path: String, projectFile: String?) -> String {
        if let projectFile {
            let local = Path.join(Path.join(Path.parent(projectFile), "schemas"), name)
            if Files.exists(local) { return relativePath(to: local, from: Path.parent(path)) }
        }
        return NewTemplates.publishedSchemas + name
    }
}

/// The goldens a suite run would record, kept in memory to be written with the files they
/// belong to: `journey new project` records its scenario's goldens as `journey test --update`
/// does, through ``SuiteRunner``, and writes them in the same ``NewFiles``.
final class RecordedGoldens: GoldenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String: (text: String, jsonl: String)] = [:]

    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) { (nil, nil) }

    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {
        lock.withLock { recorded[scenario.file] = (text, jsonl) }
    }

    func name(for scenario: CompiledScenario) -> String { FileGoldenStore().name(for: scenario) }

    /// The goldens recorded for the scenario in `file`.
    func goldens(of file: String) -> (text: String, jsonl: String)? {
        lock.withLock { recorded[file] }
    }
}
