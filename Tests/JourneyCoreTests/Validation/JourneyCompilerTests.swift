import Foundation
import Testing

@testable import JourneyCore

@Suite("Journey checks")
struct JourneyCompilerTests {
    @Test func validJourneyCompilesWithoutDiagnostics() {
        let (library, diagnostics) = compile([
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: b, back: failed }
                      b:
                        handler: t.check
                        on: { correct: done, wrong: a, cancel: failed }
                    """)
        ])
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(library?["t.j"] != nil)
    }

    /// A journey whose one screen has an action `go` enabled by `enabled` as written.
    static func enabledAction(_ enabled: String, extra: String = "") -> MarkedSource {
        MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          actions:
                            go:
                              label: Go
                              enabled: \(enabled)
                        on: { go: done }
                    """, extra: extra))
    }

    /// `enabled: ${…}` points into the expression whether the scalar is quoted or not.
    @Test(arguments: [("${1️⃣state.nope}", "plain"), ("\"${1️⃣state.nope}\"", "quoted")])
    func actionConditionErrorsPointIntoTheExpression(enabled: String, style: String) {
        expectDiagnostic("expr.undefined", at: "1️⃣", in: Self.enabledAction(enabled))
    }

    /// A step or end that fails to load is reported once: transitions to it add nothing.
    @Test func brokenStepsAndEndsAreReportedOnce() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: b, back: done }
                      b: 1️⃣[not, a, step]
                    """,
                ends: "  done: 2️⃣[success]\n  failed: { kind: failure }\n"))
        let found = diagnostics(source.text)
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.location == source.location("1️⃣") && $0.message.contains("step 'b'") })
        #expect(found.contains { $0.location == source.location("2️⃣") && $0.message.contains("end 'done'") })
    }

    @Test func unknownHandlerSuggestsTheClosest() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: 1️⃣t.stpe
                        on: { next: done }
                    """))
        expectDiagnostic("handler.unknown", at: "1️⃣", in: source, containing: "did you mean 't.step'")
        let found = diagnostics(source.text).filter { $0.id == "handler.unknown" }
        #expect(found.allSatisfy { !$0.message.contains("JourneyCLI.main") }, "a likely typo needs no more: \(found)")
    }

    /// An id no handler comes close to is a handler that was never added: the message says how
    /// handlers of one's own are added and where that is described.
    @Test func unknownHandlerSaysHowHandlersAreAdded() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: 1️⃣acme.riskScore
                        on: { next: done }
                    """))
        expectDiagnostic(
            "handler.unknown", at: "1️⃣", in: source,
            containing: "unknown handler 'acme.riskScore': it is neither built in nor added;")
        expectDiagnostic("handler.unknown", at: "1️⃣", in: source, containing: "JourneyCLI.main(handlers:)")
        expectDiagnostic(
            "handler.unknown", at: "1️⃣", in: source, containing: "(see docs/journey-format.md#handlers-of-your-own)")
        #expect(diagnostics(source.text).allSatisfy { !$0.message.contains("did you mean") })
    }

    /// A text that shows nothing (empty, or only spaces, in any locale) is a warning where it is
    /// written; one with an expression may show something, and is not.
    @Test func emptyTextsAreWarnedOf() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: 2️⃣""
                          text: { en: Hello, 3️⃣nl: "  " }
                          actions: { go: "${state.name}" }
                        on: { go: done }
                    """,
                extra: "summary: 1️⃣\"\"\nlocales: [en, nl]\nstate:\n  name: { type: string }",
                ends: "  done: { kind: success, title: 4️⃣\" \" }\n  failed: { kind: failure, title: Sorry }\n"))
        let found = diagnostics(source.text).filter { $0.id == "text.empty" }
        #expect(found.allSatisfy { $0.severity == .warning }, "\(found)")
        #expect(
            found.map(\.location).sorted { ($0.line, $0.column) < ($1.line, $1.column) }
                == ["1️⃣", "2️⃣", "3️⃣", "4️⃣"].map { source.location($0) }, "\(found)")
    }

    @Test func unknownTargetIsLocatedAtTheTarget() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: 1️⃣nowhere, back: done }
                    """))
        expectDiagnostic("step.unknown", at: "1️⃣", in: source, containing: "'nowhere'")
    }

    @Test func undeclaredAndUnhandledOutcomes() {
        let source = MarkedSource(
            journey(
                steps: """
                      1️⃣a:
                        handler: t.step
                        on:
                          next: done
                          2️⃣nxt: done
                    """))
        expectDiagnostic("outcome.undeclared", at: "2️⃣", in: source, containing: "did you mean")
        expectDiagnostic("outcome.unhandled", at: "1️⃣", in: source, containing: "'back'")
    }

    @Test func disabledActionsNeedNoTransition() {
        let diagnostics = diagnostics(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          actions:
                            go: Go
                            skip: { label: Skip, enabled: false }
                        on: { go: done }
                    """))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    @Test func undefinedVariableInAGuard() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on:
                          next:
                            - if: 1️⃣state.cuont > 1
                              to: done
                            - else: failed
                          back: failed
                    """, extra: "state:\n  count: { type: int, default: 0 }"))
        expectDiagnostic("expr.undefined", at: "1️⃣", in: source, containing: "did you mean 'state.count'")
    }

    @Test func typeErrorsInGuardsAndSets() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on:
                          next:
                            - if: 1️⃣state.count + 1
                              to: done
                            - else: failed
                          back:
                            set: { state.count: 2️⃣"${'three'}" }
                            to: done
                    """, extra: "state:\n  count: { type: int, default: 0 }"))
        let found = diagnostics(source.text).filter { $0.id == "value.type" }
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.location == source.location("1️⃣") && $0.message.contains("must be a bool") })
        #expect(found.contains { $0.location == source.location("2️⃣") && $0.message.contains("is int") })
    }

    @Test func guardedBranchesNeedAnElse() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on:
                          next:
                            1️⃣- if: device.online
                              to: done
                          back: failed
                    """))
        expectDiagnostic("transition.missing-else", at: "1️⃣", in: source)
    }

    @Test func unknownKeysSuggestTheIntendedOne() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        1️⃣onn: { next: done }
                    """))
        let found = diagnostics(source.text)
        #expect(
            found.contains {
                $0.id == "key.unknown" && $0.message.contains("did you mean 'on'")
                    && $0.location == source.location("1️⃣")
            })
    }

    @Test func unreachableStepsWarnAndDeadEndsFail() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: 2️⃣loop, back: done }
                      1️⃣orphan:
                        handler: t.step
                        on: { next: done, back: done }
                      loop:
                        handler: t.step
                        on: { next: loop, back: loop }
                    """))
        let found = diagnostics(source.text)
        let unreachable = found.first { $0.id == "step.unreachable" }
        #expect(unreachable?.severity == .warning)
        #expect(unreachable?.location == source.location("1️⃣"))
        #expect(found.contains { $0.id == "step.no-end" && $0.severity == .error && $0.message.contains("'loop'") })
    }

    @Test func stepAndEndIdsShareOneNamespace() {
        let (_, diagnostics) = compile([
            journey(
                steps: """
                      a:
                        handler: t.step
                        on: { next: done, back: done }
                      done:
                        handler: t.step
                        on: { next: a, back: a }
                    """)
        ])
        #expect(diagnostics.contains { $0.id == "id.duplicate" })
    }

    @Test func duplicateJourneyIdsAcrossFiles() {
        let text = journey(steps: "  a:\n    handler: t.step\n    on: { next: done, back: done }")
        let (_, diagnostics) = compile([text, text])
        #expect(diagnostics.contains { $0.id == "id.duplicate" && $0.message.contains("already used") })
    }

    @Test func subJourneyCyclesAreFound() {
        let a = journey("t.a", steps: "  a:\n    call: t.b\n    on: { done: done, failed: failed }")
        let b = journey("t.b", steps: "  a:\n    call: t.a\n    on: { done: done, failed: failed }")
        let (library, diagnostics) = compile([a, b])
        #expect(library == nil)
        #expect(
            diagnostics.contains {
                $0.id == "call.cycle"
                    && ($0.message.contains("t.a → t.b → t.a") || $0.message.contains("t.b → t.a → t.b"))
            })
    }

    @Test func callsCheckParamsAndUseTheCalleesEndsAsOutcomes() {
        let callee = journey(
            "t.callee", steps: "  a:\n    handler: t.step\n    on: { next: done, back: failed }",
            extra: "params:\n  length: { type: int }\noutputs:\n  ok: \"${params.length > 3}\"")
        let caller = MarkedSource(
            journey(
                "t.caller",
                steps: """
                      a:
                        call: t.callee
                        with: { 1️⃣lenght: 6 }
                        on:
                          done:
                            - if: outcome.ok
                              to: done
                            - else: failed
                          2️⃣cancelled: failed
                    """))
        let (_, diagnostics) = compile([caller.text, callee])
        #expect(
            diagnostics.contains {
                $0.id == "param.unknown" && $0.location == caller.location("1️⃣")
                    && $0.message.contains("did you mean 'length'")
            })
        #expect(diagnostics.contains { $0.id == "param.missing" && $0.message.contains("'length'") })
        #expect(diagnostics.contains { $0.id == "outcome.undeclared" && $0.location == caller.location("2️⃣") })
        #expect(diagnostics.contains { $0.id == "outcome.unhandled" && $0.message.contains("'failed'") })
    }

    /// A journey whose one step gives a secret `outcome.pin`, and does `done` with it.
    static func secretOutcome(_ done: String, extra: String) -> MarkedSource {
        MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.secret
                        on:
                          done:
                            \(done)
                    """, extra: extra))
    }

    @Test func secretsCannotFlowIntoPlainState() {
        let source = Self.secretOutcome(
            "set: { state.pin: 1️⃣\"${outcome.pin}\" }\n        to: done", extra: "state:\n  pin: { type: string }")
        expectDiagnostic("secret.leak", at: "1️⃣", in: source, containing: "secret: true")
        let fixed = source.text.replacingOccurrences(
            of: "pin: { type: string }", with: "pin: { type: string, secret: true }")
        #expect(diagnostics(fixed).isEmpty)
    }

    /// What a condition computed from a secret decides shows in transcripts (the value chosen,
    /// the branch taken, the action enabled), and tells the secret bit by bit.
    @Test(arguments: [
        (
            "set: { state.hint: 1️⃣\"${startsWith(outcome.pin, '73') ? 'a' : 'b'}\" }\n        to: done",
            "is computed from a secret; declare it with 'secret: true'"
        ),
        (
            "- if: 1️⃣\"startsWith(outcome.pin, '7')\"\n          to: done\n        - else: done",
            "transcripts show which branch is taken"
        ),
        ("- if: 1️⃣outcome.pin < '5'\n          to: done\n        - else: done", "which branch is taken"),
    ])
    func secretConditionsLeakNothing(done: String, message: String) {
        let source = Self.secretOutcome(done, extra: "state:\n  hint: { type: string }")
        expectDiagnostic("secret.leak", at: "1️⃣", in: source, containing: message)
        // Compared with == the secret gives a bool that is not secret.
        let compared = source.text.replacingOccurrences(
            of: "startsWith(outcome.pin, '73')", with: "outcome.pin == '73'"
        )
        .replacingOccurrences(of: "startsWith(outcome.pin, '7')", with: "outcome.pin != ''")
        .replacingOccurrences(of: "outcome.pin < '5'", with: "len(outcome.pin) < 5")
        // Compared with text written in, it is auth.literal-secret's to say, not a leak.
        let leaks = diagnostics(compared).filter { !$0.id.hasPrefix("auth.") }
        #expect(leaks.isEmpty, "\(leaks)")
    }

    @Test("a message about an expression that reads a secret, or is written for one, shows none of its literals")
    func secretExpressionsQuotedWithoutLiterals() {
        let text = Self.secretOutcome(
            """
            - if: "startsWith(outcome.pin, '4826') || outcome.pin < \\"48\\\\\\"26\\""
                      to: done
                    - else:
                        set: { state.hint: "${outcome.pin + '4826'}", state.code: "${4826 + len(outcome.pin)}" }
                        to: done
            """, extra: "state:\n  hint: { type: string }\n  code: { type: string, secret: true }"
        ).text
        let messages = diagnostics(text).map(\.message)
        #expect(messages.count == 3, "\(messages)")
        #expect(messages.allSatisfy { !$0.contains("48") && !$0.contains("26") && $0.contains("•••") }, "\(messages)")
        #expect(
            messages.contains {
                $0.hasPrefix("the condition 'startsWith(outcome.pin, '•••') || outcome.pin < \"•••\"' is computed")
            }, "\(messages)")
        #expect(messages.contains { $0.hasSuffix("but '${••• + len(outcome.pin)}' is int") }, "\(messages)")
        #expect(
            messages.contains { $0.contains("but '${outcome.pin + '•••'}' is computed from a secret") }, "\(messages)")
        // Names with digits, and durations, are no literals a secret is compared with: kept.
        #expect(
            ExpressionLexer.maskingLiterals("since(state.t2) > 5m && x == 12") == "since(state.t2) > 5m && x == •••")
        #expect(ExpressionLexer.maskingLiterals("a == 'it\\'s' && b == \"x") == "a == '•••' && b == \"•••")
    }

    @Test func anActionEnabledBySecretLeaks() {
        let source = Self.enabledAction(
            "\"1️⃣${startsWith(stored.code, '1')}\"", extra: "stored:\n  code: { type: string, secret: true }")
        expectDiagnostic("secret.leak", at: "1️⃣", in: source, containing: "whether the action is enabled")
        let compared = source.text.replacingOccurrences(of: "startsWith(stored.code, '1')", with: "stored.code != ''")
        #expect(diagnostics(compared).isEmpty, "\(diagnostics(compared))")
    }

    @Test func digitStringsStayStrings() throws {
        let text = journey(
            steps: "  a:\n    handler: t.step\n    on: { next: done, back: done }",
            extra: "params:\n  code: { type: string, default: 0012 }\n  n: { type: int, default: 12 }")
        let (library, _) = compile([text])
        let diagnostics = diagnostics(text)
        let compiled = try #require(library?["t.j"])
        #expect(compiled.params.first { $0.name == "code" }?.defaultValue == .string("0012"))
        #expect(compiled.params.first { $0.name == "n" }?.defaultValue == .int(12))
        #expect(diagnostics.map(\.id) == ["value.leading-zero"])
        #expect(diagnostics.first?.severity == .warning)
    }

    @Test func octalLookingIntsAreRejectedNotReinterpreted() {
        let source = MarkedSource(
            journey(
                steps: "  a:\n    handler: t.step\n    on: { next: done, back: done }",
                extra: "params:\n  n: { type: int, default: 1️⃣0012 }"))
        expectDiagnostic("value.type", at: "1️⃣", in: source, containing: "leading zeros")
    }

    @Test func everyProblemInAFileIsReported() {
        let text = journey(
            steps: """
                  a:
                    handler: t.nope
                    on: { next: done }
                  b:
                    handler: t.step
                    on: { next: nowhere, back: done, sideways: done }
                """)
        let ids = Set(diagnostics(text).map(\.id))
        #expect(ids.isSuperset(of: ["handler.unknown", "step.unknown", "outcome.undeclared"]))
    }

    @Test func limitsNeedADeclaredIntCounter() {
        let source = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.check
                        attempts: { limit: pin, counts: [wrong], resets: [correct] }
                        on: { correct: done, wrong: a, cancel: failed }
                    """,
                extra:
                    "stored:\n  tries: { type: string }\nlimits:\n  pin: { max: 3, counter: 1️⃣stored.tries, exceeded: failed }"
            ))
        expectDiagnostic("limit.counter", at: "1️⃣", in: source, containing: "must be an int")
    }

    @Test(
        "a condition that reads nothing is warned of: always false, its branch is never taken; always true, those after it"
    )
    func constantConditions() {
        func warnings(_ first: String) -> [String] {
            let yaml = """
                journey: t.c
                version: 1
                title: C
                start: d
                steps:
                  d:
                    handler: t.step
                    on:
                      back: a
                      next:
                        - if: \(first)
                          to: a
                        - if: device.online
                          to: b
                        - else: b
                ends:
                  a: { kind: success }
                  b: { kind: success }
                """
            let project = ProjectLoader(handlers: testHandlers).load([
                SourceFile(path: "j.yaml", data: Data(yaml.utf8))
            ])
            return project.diagnostics.items.filter { $0.id == "branch.constant" }.map {
                "\($0.location.line):\($0.location.column) \($0.message)"
            }
        }
        let never = warnings("\"false\"")
        #expect(
            never.first?.hasPrefix("11:15 the condition 'false' reads nothing and is always false") == true, "\(never)")
        #expect(warnings("1 > 2").count == 1)
        #expect(warnings("2 > 1").first?.contains("always true: the branches after it are never taken") == true)
        // Reading anything, or the clock, it may differ from run to run.
        #expect(warnings("device.online").isEmpty)
        #expect(warnings("since(0) > 5m").isEmpty)
    }
}
