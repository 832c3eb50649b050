import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// What handlers make at random (PIN records, Locker keys, PKCE verifiers, `state`, `nonce`)
/// is drawn from the source they are given: the same seed makes the same values, so a seeded
/// exploration reaches the same stored values by the same path; the system's source never
/// repeats. The values stay as sound as before: a seeded record still opens only with its PIN.
@Suite("Seeded randomness in handlers")
struct SeededRandomnessTests {
    @Test func aSeededPinRecordIsReproducibleAndStillSound() throws {
        var a = RandomSource.seeded(11)
        var b = RandomSource.seeded(11)
        let first = try PinVault.seal(pin: "0420", rounds: 1000, using: &a)
        #expect(first == (try PinVault.seal(pin: "0420", rounds: 1000, using: &b)))
        #expect(try PinVault.verify(pin: "0420", record: first))
        #expect(try !PinVault.verify(pin: "0421", record: first))
        #expect(first != (try PinVault.seal(pin: "0420", rounds: 1000, using: &a)), "the stream moves on")
        #expect(try PinVault.seal(pin: "0420", rounds: 1000) != PinVault.seal(pin: "0420", rounds: 1000))
    }

    @Test func aSeededLockerEnrolmentIsReproducibleAndStillOpens() throws {
        var a = RandomSource.seeded(5)
        var b = RandomSource.seeded(5)
        let first = try LockerVault.enrol(secret: "Correct-Horse-7", rounds: 1000, using: &a)
        let second = try LockerVault.enrol(secret: "Correct-Horse-7", rounds: 1000, using: &b)
        #expect(first.vault == second.vault && first.deviceWrap == second.deviceWrap)
        #expect(try LockerVault.open(vault: first.vault, secret: "Correct-Horse-7").encoded == first.keyring.encoded)
        let sealed = try LockerVault.encrypt("IBAN", level: .active, name: "iban", keyring: first.keyring, using: &a)
        #expect(try LockerVault.decrypt(sealed, level: .active, name: "iban", keyring: first.keyring) == "IBAN")
    }

    @Test func seededVerifiersAndTokensAreReproducibleAndValid() {
        var a = RandomSource.seeded(3)
        var b = RandomSource.seeded(3)
        let pkce = PKCE(using: &a)
        #expect(pkce == PKCE(using: &b))
        #expect(PKCE.isValid(verifier: pkce.verifier))
        #expect(PKCE.randomToken(bytes: 32, using: &a) == PKCE.randomToken(bytes: 32, using: &b))
        let tinkoff = TinkoffID.verifier(using: &a)
        #expect(tinkoff == TinkoffID.verifier(using: &b))
        #expect(tinkoff.count == 128 && PKCE.isValid(verifier: tinkoff))
    }
}
