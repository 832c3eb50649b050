import Testing

@testable import JourneyCore

/// Visits prepared once and shown again (``VisitMemo``): the same values give the same visit,
/// other values or another locale give their own.
@Suite("Journey machine: prepared visits")
struct VisitMemoTests {
    static let counting = journey(
        steps: """
              a:
                handler: t.screen
                with: { n: "${state.n}" }
                screen:
                  title: { en: "Visit ${state.n}", de: "Besuch ${state.n}" }
                  actions: { again: Again, back: Back, finish: Finish }
                on:
                  again:
                    set: { state.n: "${state.n + 1}" }
                    to: a
                  back:
                    set: { state.n: "${state.n - 1}" }
                    to: a
                  finish: done
            """,
        extra: """
            locales: [en, de]
            state:
              n: { type: int, default: 0 }
            """)

    /// The titles shown and the `n` each call was given, pressing `actions` in `locale`.
    func visits(_ actions: [String], locale: String? = nil, library: CompiledLibrary) throws -> [String] {
        var machine = JourneyMachine(
            library: library, journey: try #require(library["t.j"]), device: DeviceState(),
            configuration: .init(locale: locale))
        _ = machine.handle(.start)
        for action in actions { _ = machine.handle(.complete(HandlerResult(action))) }
        return machine.takeRecords().compactMap { record in
            switch record.event {
            case .screen(_, let screen): screen.title
            case .handlerCall(_, _, let params): "n=\(params.first { $0.name == "n" }?.value.displayText ?? "?")"
            default: nil
            }
        }
    }

    @Test("a visit with the values an earlier one read is that visit; other values and locales are their own")
    func sameValuesSameVisit() throws {
        let (compiled, diagnostics) = compile([Self.counting])
        let library = try #require(compiled, "\(diagnostics)")
        let step = try #require(library["t.j"]?.steps.first)
        #expect(step.visitReads == [["state", "n"]])
        let expected = ["Visit 0", "n=0", "Visit 1", "n=1", "Visit 2", "n=2", "Visit 1", "n=1", "Visit 0", "n=0"]
        // Prepared the first time, shown from the memo the second: the same transcript.
        #expect(try visits(["again", "again", "back", "back"], library: library) == expected)
        #expect(step.visitMemo.count == 3)
        #expect(try visits(["again", "again", "back", "back"], library: library) == expected)
        #expect(step.visitMemo.count == 3)
        #expect(try visits(["again"], locale: "de", library: library) == ["Besuch 0", "n=0", "Besuch 1", "n=1"])
        #expect(step.visitMemo.count == 5)
        // Past its capacity the memo starts again, and the visits stay right.
        let many = Array(repeating: "again", count: VisitMemo.capacity + 10)
        let shown = try visits(many, library: library)
        #expect(shown.suffix(2) == ["Visit \(VisitMemo.capacity + 10)", "n=\(VisitMemo.capacity + 10)"])
        #expect(step.visitMemo.count <= VisitMemo.capacity)
    }

    @Test("a visit that reads the clock, or never changes, is not kept")
    func clockAndFixedVisits() throws {
        let (compiled, diagnostics) = compile([JourneyMachineTimeTests.resend])
        let library = try #require(compiled, "\(diagnostics)")
        #expect(try #require(library["t.j"]?.steps.first).visitReads == nil)
        let fixed = journey(
            steps: "  a:\n    handler: t.screen\n    screen: { title: Hi, actions: { ok: OK } }\n    on: { ok: done }\n"
        )
        let (fixedLibrary, fixedDiagnostics) = compile([fixed])
        let fixedCompiled = try #require(fixedLibrary, "\(fixedDiagnostics)")
        let step = try #require(fixedCompiled["t.j"]?.steps.first)
        #expect(step.fixedVisit != nil && step.visitReads == nil)
    }
}
