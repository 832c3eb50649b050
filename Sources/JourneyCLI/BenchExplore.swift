import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `journey bench --explore`: the explorer on the PIN journey the reference peers model, beside
/// the peers' own explorers, and every shipped journey explored with the default bounds.
enum BenchExplore {
    /// The PIN journey the peers' model describes, as shipped.
    static let modelJourney = "journeys/examples/pin-model.journey.yaml"
    static let modelId = "examples.pin-model"

    /// One side's figures for one exploration: the medians over the timed runs.
    struct Rates {
        var states: Int
        var transitions: Int
        var statesPerSecond: Double
        var transitionsPerSecond: Double
        /// Transitions per second of CPU time (all threads together).
        var transitionsPerCPUSecond: Double
        var millisecondsPerExploration: Double
        /// Transitions taken over from a state equal but for its restarts, not played.
        var reused: Int
        /// Of those, the moves played again to see what the state they reach asks.
        var playedAgain: Int
    }

    /// Explores `journey` with `jobs` threads, repeating it until a run lasts 0.2 s, five
    /// times; the medians, as the peers measure theirs. With `reusing` false, every move is
    /// played, none taken over from a state equal but for its restarts.
    static func measure(
        _ journey: CompiledJourney, library: CompiledLibrary, bounds: JourneyExplorer.Bounds, jobs: Int,
        reusing: Bool = true
    ) async -> Rates {
        var explorer = JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs)
        explorer.reusesExpansions = reusing
        let first = await explorer.explore(journey)
        var repeats = 1
        while true {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats { _ = await explorer.explore(journey) }
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 >= 0.2 { break }
            repeats *= 2
        }
        var walls: [Double] = []
        var cpus: [Double] = []
        for _ in 0..<5 {
            let cpu0 = BenchSuite.cpuSeconds()
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats { _ = await explorer.explore(journey) }
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(repeats))
            cpus.append((BenchSuite.cpuSeconds() - cpu0) / Double(repeats))
        }
        let wall = median(walls)
        return Rates(
            states: first.states, transitions: first.transitions, statesPerSecond: Double(first.states) / wall,
            transitionsPerSecond: Double(first.transitions) / wall,
            transitionsPerCPUSecond: Double(first.transitions) / max(median(cpus), 1e-9),
            millisecondsPerExploration: wall * 1e3, reused: first.reused, playedAgain: first.playedAgain)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// How much the process's peak memory grows over one exploration, per state it keeps: the
    /// states' keys, their parents and moves, and the levels in flight at their widest.
    static func bytesPerState(
        _ journey: CompiledJourney, library: CompiledLibrary, bounds: JourneyExplorer.Bounds
    ) async -> (bytes: Double, states: Int) {
        let before = BenchSuite.peakRSSKilobytes()
        let explorer = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
        let result = await explorer.explore(journey)
        let after = BenchSuite.peakRSSKilobytes()
        return (Double(after - before) * 1024 / Double(max(1, result.states)), result.states)
    }

    /// A peer's line of JSON, run with `python` in the peers' folder; nil with why when it could not run.
    static func peer(
        _ script: String, _ arguments: [String], python: String, folder: String
    ) -> Result<[String: Any], CLIError> {
        guard Files.exists(Path.join(folder, script)) else {
            return .failure(CLIError("\(PrintableText.escaped(folder)) holds no \(script)"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .failure(CLIError("\(python) could not start: \(error)")) }
        // The peers write a line or two to each stream: reading one to its end cannot block the other.
        let data = (try? out.fileHandleForReading.readToEnd()) ?? Data()
        let problem = (try? err.fileHandleForReading.readToEnd()) ?? Data()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard process.terminationStatus == 0, let last = lines.last,
            let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        else {
            let why = String(decoding: problem, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            return .failure(CLIError("\(script) \(arguments.joined(separator: " ")) failed: \(why)"))
        }
        return .success(object)
    }

    /// Every journey under `folder` with the default bounds, from where `journey explore
    /// FOLDER` explores it (``ExplorationStarts``):
    /// how many journeys and starts, the states and transitions, and the seconds it took to load
    /// them and to explore them.
    static func shipped(
        folder: String, jobs: Int
    ) async throws -> (journeys: Int, starts: Int, states: Int, transitions: Int, load: Double, explore: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let (project, diagnostics) = Workspace.load(paths: [folder])
        guard !diagnostics.hasErrors, let library = project.library else {
            throw CLIError("the journeys under \(folder) have errors: run journey check \(folder)")
        }
        let loaded = DispatchTime.now().uptimeNanoseconds
        let ids = project.journeys.filter { $0.file.hasPrefix(folder + "/") }.map(\.id.value).sorted()
        let found: ExplorationStarts
        do {
            found = try ExplorationStarts(
                journeys: ids.compactMap { library[$0] }, scenarios: project.scenarios, library: library,
                player: Toolkit.current.player(), bounds: JourneyExplorer.Bounds(), jobs: jobs)
        } catch { throw CLIError(error.message) }
        var states = 0
        var transitions = 0
        for start in found.starts {
            let result = await start.explorer.explore(start.journey)
            states += result.states
            transitions += result.transitions
        }
        let end = DispatchTime.now().uptimeNanoseconds
        return (
            Set(found.starts.map(\.journey.id)).count, found.starts.count, states, transitions,
            Double(loaded - start) / 1e9, Double(end - loaded) / 1e9
        )
    }

    static func describe(_ rates: Rates) -> String {
        String(
            format: "%.0f states/s, %.0f transitions/s (%.0f per CPU second), %.3f ms per exploration",
            rates.statesPerSecond, rates.transitionsPerSecond, rates.transitionsPerCPUSecond,
            rates.millisecondsPerExploration)
    }

    /// A peer's figures in words, and its transitions per second (wall).
    static func describe(peer row: [String: Any]) -> (text: String, transitionsPerSecond: Double) {
        let number = { (key: String) in (row[key] as? NSNumber)?.doubleValue ?? 0 }
        let text = String(
            format: "%.0f states/s, %.0f transitions/s (%.0f per CPU second), %.3f ms per exploration",
            number("states_per_s_wall_median"), number("transitions_per_s_wall_median"),
            number("transitions_per_s_cpu_median"), number("ms_per_exploration_wall_median"))
        return (text, number("transitions_per_s_wall_median"))
    }
}

extension BenchCommand {
    /// The explorer section (`--explore`).
    func exploreSection(_ report: (String, String) -> Void) async throws {
        guard let data = FileManager.default.contents(atPath: BenchExplore.modelJourney) else {
            throw CLIError(
                "\(BenchExplore.modelJourney) not found: run journey bench --explore from the JourneyKit repository")
        }
        let project = Toolkit.current.loader().load([SourceFile(path: BenchExplore.modelJourney, data: data)])
        guard let library = project.library, let journey = library[BenchExplore.modelId] else {
            throw CLIError("\(BenchExplore.modelJourney) does not compile: run journey check on it")
        }
        let cores = BenchSuite.usableCores()
        let large = JourneyExplorer.Bounds(depth: 2 * exploreRestarts, restarts: exploreRestarts)
        // The peers play the same bounds: their own defaults are depth 30.
        let defaults = JourneyExplorer.Bounds()
        // Memory first, while the process has explored nothing large.
        let memory = await BenchExplore.bytesPerState(journey, library: library, bounds: large)
        let bounds: [(String, JourneyExplorer.Bounds, [String])] = [
            (
                "defaults (depth \(defaults.depth), \(defaults.restarts) restarts)", defaults,
                ["--restarts", "\(defaults.restarts)", "--depth", "\(defaults.depth)"]
            ),
            (
                "depth \(large.depth), \(large.restarts) restarts", large,
                ["--restarts", "\(large.restarts)", "--depth", "\(large.depth)"]
            ),
        ]
        let folder = peersFolder
        for (name, bound, arguments) in bounds {
            let one = await BenchExplore.measure(journey, library: library, bounds: bound, jobs: 1)
            report(
                "explore \(BenchExplore.modelId), \(name)",
                "\(one.states) states, \(one.transitions) transitions")
            report("  JourneyKit, 1 thread", BenchExplore.describe(one))
            if cores > 1 {
                let all = await BenchExplore.measure(journey, library: library, bounds: bound, jobs: cores)
                report("  JourneyKit, \(cores) threads", BenchExplore.describe(all))
            }
            // How much of that is reuse: the same exploration with every move played.
            let played = await BenchExplore.measure(journey, library: library, bounds: bound, jobs: 1, reusing: false)
            let notPlayed = one.reused - one.playedAgain
            report(
                "  taken over, not played",
                "\(notPlayed) of \(one.transitions) transitions (from a state equal but for its restarts; "
                    + "\(one.playedAgain) more taken over were played again, to see what the new state they reach asks)"
            )
            report("  JourneyKit, 1 thread, every move played", BenchExplore.describe(played))
            guard let folder else {
                report("  peers", "skipped: say where they are with --peers FOLDER (or JOURNEY_PEERS)")
                continue
            }
            for (peer, script, extra) in [
                ("bfs-pure", "bench_explore_bfs.py", [String]()),
                ("bfs-transitions-reuse", "bench_explore_transitions.py", ["--copy", "reuse"]),
            ] {
                switch BenchExplore.peer(script, extra + arguments, python: python, folder: folder) {
                case .failure(let error): report("  peer \(peer)", "skipped: \(error.message)")
                case .success(let row):
                    let counts = ((row["states"] as? NSNumber)?.intValue, (row["transitions"] as? NSNumber)?.intValue)
                    guard counts == (one.states, one.transitions) else {
                        report(
                            "  peer \(peer)",
                            "skipped: it found \(counts.0 ?? 0) states and \(counts.1 ?? 0) transitions, not the same space"
                        )
                        continue
                    }
                    let (text, rate) = BenchExplore.describe(peer: row)
                    report("  peer \(peer) (Python)", text)
                    report(
                        "  JourneyKit / \(peer), transitions/s",
                        String(
                            format: "%.2f× on 1 thread (every move played: %.2f×)",
                            one.transitionsPerSecond / max(rate, 1),
                            played.transitionsPerSecond / max(rate, 1)))
                }
            }
        }
        report(
            "memory per stored state",
            String(
                format: "%.0f bytes (peak memory growth over the %d-state exploration, 1 thread)", memory.bytes,
                memory.states))
        let shipped = try await BenchExplore.shipped(folder: "journeys", jobs: cores)
        report(
            "every shipped journey, default bounds",
            String(
                format: "%d journeys from %d starts, %d states, %d transitions: %.3f s to explore (%.3f s to load), ",
                shipped.journeys, shipped.starts, shipped.states, shipped.transitions, shipped.explore, shipped.load)
                + "\(counted(cores, "thread"))")
    }
}
