import Foundation
import Testing

@testable import JourneyHandlers

@Suite("Locker protected data")
struct LockerVaultTests {
    typealias Level = LockerVault.Level
    static let rounds = 1_000
    static let enrolment = try! LockerVault.enrol(secret: "Correct-Horse-7", rounds: rounds)

    /// The keyring each session state holds (README states, the reference's interpretation).
    static let stateKeyrings: [(String, [Level])] = [
        ("active", [.active, .offline, .background, .base]),
        ("verifiedOffline", [.offline, .base]),
        ("backgroundAccess", [.background, .base]),
        ("enrolled", [.base]),
        ("unregistered", []),
    ]

    @Test func theSecretOpensTheVaultAndNothingElseDoes() throws {
        let keyring = try LockerVault.open(vault: Self.enrolment.vault, secret: "Correct-Horse-7")
        #expect(keyring == Self.enrolment.keyring)
        #expect(keyring.levels == [.active, .offline, .background, .base])
        #expect(throws: LockerVault.Failure.wrongSecret) {
            _ = try LockerVault.open(vault: Self.enrolment.vault, secret: "correct-horse-7")
        }
        #expect(throws: LockerVault.Failure.unreadable) { _ = try LockerVault.open(vault: "pin-v1:1:x:y", secret: "a") }
    }

    @Test func theDeviceWrapGivesOnlyBackgroundAndBase() throws {
        let keyring = try LockerVault.open(deviceWrap: Self.enrolment.deviceWrap)
        #expect(keyring.levels == [.background, .base])
        #expect(keyring == Self.enrolment.keyring.only([.background, .base]))
    }

    /// Each state reads exactly the levels its keyring holds; the others are impossible.
    @Test(arguments: stateKeyrings.map(\.0))
    func eachStateReadsExactlyItsLevels(state: String) throws {
        let allowed = try #require(Self.stateKeyrings.first { $0.0 == state }?.1)
        let keyring = Self.enrolment.keyring.only(allowed)
        for level in Level.allCases {
            let record = try LockerVault.encrypt(
                "note at \(level)", level: level, name: "note", keyring: Self.enrolment.keyring)
            if allowed.contains(level) {
                #expect(
                    try LockerVault.decrypt(record, level: level, name: "note", keyring: keyring) == "note at \(level)")
            } else {
                #expect(throws: LockerVault.Failure.unavailable(level)) {
                    _ = try LockerVault.decrypt(record, level: level, name: "note", keyring: keyring)
                }
                #expect(throws: LockerVault.Failure.unavailable(level)) {
                    _ = try LockerVault.encrypt("x", level: level, name: "note", keyring: keyring)
                }
            }
        }
    }

    @Test func anyChangeToACiphertextIsTampering() throws {
        let keyring = Self.enrolment.keyring
        let record = try LockerVault.encrypt(
            "IBAN CH93 0076 2011 6238 5295 7", level: .active, name: "iban", keyring: keyring)
        let parts = record.split(separator: ":").map(String.init)
        var bytes = try #require(Data(base64Encoded: parts[2]))
        for index in [0, 12, bytes.count / 2, bytes.count - 1] {
            bytes[index] ^= 0x01
            let flipped = [parts[0], parts[1], bytes.base64EncodedString()].joined(separator: ":")
            #expect(throws: LockerVault.Failure.unreadable) {
                _ = try LockerVault.decrypt(flipped, level: .active, name: "iban", keyring: keyring)
            }
            bytes[index] ^= 0x01
        }
        // Bound to its name and level: copied under another name, or read at another level.
        #expect(throws: LockerVault.Failure.unreadable) {
            _ = try LockerVault.decrypt(record, level: .active, name: "note", keyring: keyring)
        }
        #expect(throws: LockerVault.Failure.unreadable) {
            _ = try LockerVault.decrypt(record, level: .base, name: "iban", keyring: keyring)
        }
        #expect(throws: LockerVault.Failure.unreadable) {
            _ = try LockerVault.decrypt("plain text", level: .active, name: "iban", keyring: keyring)
        }
        #expect(try LockerVault.decrypt(record, level: .active, name: "iban", keyring: keyring).hasPrefix("IBAN"))
    }

    @Test func aChangedPasswordKeepsTheKeysItIsGiven() throws {
        let record = try LockerVault.encrypt("x", level: .active, name: "n", keyring: Self.enrolment.keyring)
        let changed = try LockerVault.enrol(
            secret: "New-Secret-8", rounds: Self.rounds, keeping: Self.enrolment.keyring)
        let reopened = try LockerVault.open(vault: changed.vault, secret: "New-Secret-8")
        #expect(try LockerVault.decrypt(record, level: .active, name: "n", keyring: reopened) == "x")
        #expect(throws: LockerVault.Failure.wrongSecret) {
            _ = try LockerVault.open(vault: changed.vault, secret: "Correct-Horse-7")
        }
        let partial = try LockerVault.enrol(
            secret: "s", rounds: Self.rounds, keeping: Self.enrolment.keyring.only([.base]))
        #expect(partial.keyring.keys[.base] == Self.enrolment.keyring.keys[.base])
        #expect(partial.keyring.keys[.active] != Self.enrolment.keyring.keys[.active])
    }

    @Test func anotherEnrolmentsKeysOpenNothing() throws {
        let other = try LockerVault.enrol(secret: "Correct-Horse-7", rounds: Self.rounds)
        let record = try LockerVault.encrypt("x", level: .base, name: "n", keyring: Self.enrolment.keyring)
        #expect(throws: LockerVault.Failure.unreadable) {
            _ = try LockerVault.decrypt(record, level: .base, name: "n", keyring: other.keyring)
        }
        #expect(other.vault != Self.enrolment.vault)
    }

    @Test func recordsShowNeitherTheSecretNorAKey() throws {
        let keys = Self.enrolment.keyring.keys.values.map { $0.base64EncodedString() }
        for record in [Self.enrolment.vault, Self.enrolment.deviceWrap.split(separator: ":").last.map(String.init)!] {
            #expect(!record.contains("Correct-Horse-7"))
            for key in keys { #expect(!record.contains(key)) }
        }
        let sealed = try LockerVault.encrypt(
            "top secret note", level: .offline, name: "n", keyring: Self.enrolment.keyring)
        #expect(!sealed.contains("top secret"))
    }

    @Test func keyringsRoundTripAndRejectGarbage() throws {
        let keyring = Self.enrolment.keyring.only([.offline, .base])
        #expect(try LockerVault.Keyring(encoded: keyring.encoded) == keyring)
        #expect(keyring.encoded.hasPrefix("locker-v1:offline="))
        #expect(try LockerVault.Keyring(encoded: "").levels.isEmpty)
        #expect(throws: LockerVault.Failure.unreadable) { _ = try LockerVault.Keyring(encoded: "locker-v1:admin=AAAA") }
        #expect(throws: LockerVault.Failure.unreadable) { _ = try LockerVault.Keyring(encoded: "something else") }
    }
}
