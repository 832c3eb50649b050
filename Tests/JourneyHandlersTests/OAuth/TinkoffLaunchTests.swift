import Crypto
import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// TinkoffID's T2 (seed-flows 3.3), through a real run of `tinkoff.launch`: the challenge the
/// launch URL carries is base64url-no-pad(SHA-256(verifier)), and the verifier is at most 128
/// characters of the base64url alphabet. The transcript writes both as •••, so this is where
/// they are compared.
@Suite("TinkoffID launch")
struct TinkoffLaunchTests {
    @Test("T2: the launch's challenge is base64url(SHA-256(verifier)), the verifier at most 128 base64url characters")
    func challengeIsTheVerifiersS256() async throws {
        let journey = oneStep(
            """
            handler: tinkoff.launch
            with: { clientId: partner-app, callbackUrl: "partnerapp://tinkoff-callback" }
            on:
              launched:
                set: { state.verifier: "${outcome.verifier}", state.challenge: "${outcome.challenge}" }
                to: done
              failed: other
            """,
            extra: "state:\n  verifier: { type: string, secret: true }\n  challenge: { type: string, secret: true }")
        let (library, diagnostics) = compile([journey])
        let lib = try #require(library, "\(diagnostics)")
        for seed in [UInt64(1), 2, 3] {
            let outcome = await JourneyRunner(configuration: .init(random: .seeded(seed))).run(
                try #require(lib["t.one"]), in: lib, device: DeviceState(), driver: NoInput(),
                transcript: TranscriptBuffer())
            #expect(outcome.result.end == "done", "\(outcome.result)")
            guard case .string(let verifier)? = outcome.rootState["verifier"]?.revealed,
                case .string(let challenge)? = outcome.rootState["challenge"]?.revealed
            else {
                Issue.record("no verifier or challenge: \(outcome.rootState)")
                continue
            }
            let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            #expect((43...128).contains(verifier.count) && verifier.allSatisfy(alphabet.contains), "\(verifier)")
            // Computed here, apart from the handler's PKCE: SHA-256, base64, made URL-safe, unpadded.
            let expected = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(challenge == expected)
        }
    }

    final class NoInput: InputDriver {
        nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
            throw HandlerError("no input in this test")
        }
    }

    func compile(_ texts: [String]) -> (CompiledLibrary?, DiagnosticList) {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(
            texts.enumerated().map { SourceFile(path: "j\($0.offset).yaml", data: Data($0.element.utf8)) })
        return (project.library, project.diagnostics)
    }
}
