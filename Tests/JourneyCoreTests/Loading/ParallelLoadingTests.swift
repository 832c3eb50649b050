import Foundation
import Testing

@testable import JourneyCore

/// Files are read, and journeys compiled, on every core; what comes out must not depend on
/// which thread finished first.
@Suite("Parallel loading")
struct ParallelLoadingTests {
    /// A journey of `steps` steps; every third file names a handler that does not exist (a
    /// compiler error), every fifth has a key the loader does not know.
    static func journey(_ index: Int, steps: Int) -> String {
        var text = "journey: j\(index)\nversion: 1\ntitle: Journey \(index)\nstart: s0\n"
        if index % 5 == 0 { text += "colour: red\n" }
        text += "steps:\n"
        for step in 0..<steps {
            let handler = index % 3 == 0 && step == steps / 2 ? "t.missing\(index)" : "t.step"
            let next = step + 1 < steps ? "s\(step + 1)" : "done"
            text += "  s\(step):\n    handler: \(handler)\n    on: { next: \(next), back: s0 }\n"
        }
        return text + "ends:\n  done: { kind: success }\n"
    }

    static let files = (0..<60).map {
        SourceFile(path: "dir/j\($0).journey.yaml", data: Data(journey($0, steps: 40).utf8))
    }

    @Test func filesAreLargeEnoughToBeReadInParallel() {
        #expect(Self.files.reduce(0) { $0 + $1.data.count } >= ProjectLoader.parallelBytes)
        let journeys = Self.files.compactMap { file in
            if case .journey(let journey?, _, _) = ProjectLoader(handlers: testHandlers).read(file) {
                journey
            } else {
                nil
            }
        }
        #expect(
            journeys.reduce(0) { $0 + $1.steps.count } >= JourneyCompiler.parallelSteps,
            "enough steps to compile in parallel")
    }

    @Test func diagnosticsComeInADeterminedOrder() {
        let project = ProjectLoader(handlers: testHandlers).load(Self.files)
        // The loader's, in the order the files were given.
        let keys = project.diagnostics.items.filter { $0.id == NodeReader.unknownKey }
        #expect(keys.map(\.location.file) == stride(from: 0, to: 60, by: 5).map { "dir/j\($0).journey.yaml" })
        // The compiler's, journey by journey in the order of their ids.
        let handlers = project.diagnostics.items.filter { $0.id == JourneyCompiler.unknownHandler }
        #expect(
            handlers.map(\.location.file)
                == stride(from: 0, to: 60, by: 3).map { "j\($0)" }.sorted().map { "dir/\($0).journey.yaml" })
        #expect(project.library == nil)
    }

    @Test func loadingTwiceGivesTheSameResult() {
        let clean = Self.files.enumerated().filter { $0.offset % 3 != 0 && $0.offset % 5 != 0 }.map(\.element)
        let first = ProjectLoader(handlers: testHandlers).load(clean)
        let second = ProjectLoader(handlers: testHandlers).load(clean.reversed())
        #expect(first.diagnostics.items.isEmpty, "\(first.diagnostics.items)")
        #expect(first.library?.ids == second.library?.ids)
        #expect(first.library?.ids.count == 32)
        #expect(first.journeys.map(\.id.value) == clean.map { String($0.path.dropFirst(4).dropLast(13)) })
    }

    @Test func parallelMapKeepsTheOrderOfItsItems() {
        let items = Array(0..<10_000)
        let serial = items.map { ($0 * 7919) % 10_007 }
        #expect(Parallel.map(items, parallel: true) { ($0 * 7919) % 10_007 } == serial)
        #expect(Parallel.map(items, parallel: false) { ($0 * 7919) % 10_007 } == serial)
        #expect(Parallel.map([Int](), parallel: true) { $0 }.isEmpty)
    }
}
