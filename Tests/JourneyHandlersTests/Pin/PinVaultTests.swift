import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import JourneyHandlers

@Suite("PIN vault")
struct PinVaultTests {
    func hex(_ key: SymmetricKey) -> String {
        key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// RFC 7914 §11, the PBKDF2-HMAC-SHA256 test vectors.
    @Test(arguments: [
        (
            "passwd", "salt", 1,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        ),
        (
            "Password", "NaCl", 80000,
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        ),
    ])
    func rfc7914Vectors(password: String, salt: String, rounds: Int, expected: String) throws {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(password.utf8), salt: Data(salt.utf8), using: .sha256, outputByteCount: 64,
            unsafeUncheckedRounds: rounds)
        #expect(hex(key) == expected)
        // The vault's derivation is the same function, truncated to 32 bytes.
        let vault = try PinVault.deriveKey(pin: password, salt: Data(salt.utf8), rounds: rounds)
        #expect(hex(vault) == String(expected.prefix(64)))
    }

    @Test func theRightPinOpensTheRecordAndNoOtherDoes() throws {
        let record = try PinVault.seal(pin: "0420", rounds: 1000)
        #expect(try PinVault.verify(pin: "0420", record: record))
        #expect(try !PinVault.verify(pin: "0421", record: record))
        #expect(try !PinVault.verify(pin: "", record: record))
        #expect(!record.contains("0420"), "the record never holds the PIN")
        #expect(record.hasPrefix("pin-v1:1000:"), "the cost is stored with the record")
    }

    @Test func everySealIsFresh() throws {
        let a = try PinVault.seal(pin: "1234", rounds: 1000)
        let b = try PinVault.seal(pin: "1234", rounds: 1000)
        #expect(a != b, "random salt and secret: equal PINs give different records")
        let saltA = a.split(separator: ":")[2]
        let saltB = b.split(separator: ":")[2]
        #expect(saltA != saltB)
    }

    @Test func aTamperedRecordNeverOpens() throws {
        let record = try PinVault.seal(pin: "0420", rounds: 1000)
        var parts = record.split(separator: ":").map(String.init)
        var sealed = try #require(Data(base64Encoded: parts[3]))
        sealed[sealed.count - 1] ^= 0x01
        parts[3] = sealed.base64EncodedString()
        #expect(try !PinVault.verify(pin: "0420", record: parts.joined(separator: ":")))
    }

    @Test(arguments: ["", "pin-v1:1000:xx", "sha256:abcd", "pin-v1:0:AAAA:AAAA", "pin-v1:1000:!!!:???"])
    func unreadableRecordsAreReportedNotGuessed(record: String) {
        #expect(throws: PinVault.Failure.unreadableRecord) { try PinVault.verify(pin: "0420", record: record) }
    }

    @Test func theDefaultCostIsOwaspsRecommendation() {
        #expect(PinVault.defaultRounds == 600_000)
    }

    @Test(
        arguments: [
            ("1234", 4, "1234"), ("12⌫34", 4, nil), ("123⌫45", 4, "1245"), ("⌫⌫1234", 4, "1234"), ("1<234", 4, nil),
            ("12345", 4, nil), ("12a4", 4, nil), ("123", 4, nil), ("1<2345", 4, "2345"),
        ] as [(String, Int, String?)])
    func pinPadDeletesAndAdvances(keys: String, length: Int, expected: String?) {
        let result = PinPad.enter(keys, length: length)
        switch (result, expected) {
        case (.success(let digits), let expected?): #expect(digits == expected)
        case (.failure(let error), nil): #expect(!error.message.contains(keys))
        default: Issue.record("keys '\(keys)' gave \(result), expected \(String(describing: expected))")
        }
    }
}

@Suite("Weak PINs")
struct WeakPinTests {
    @Test(arguments: [
        ("1111", "one digit repeated"), ("000000", "one digit repeated"), ("1234", "a run of consecutive digits"),
        ("987654", "a run of consecutive digits"), ("1212", "a repeated pair of digits"),
        ("474747", "a repeated pair of digits"), ("1004", "one of the most common PINs"),
        ("159753", "one of the most common PINs"),
    ])
    func weakPinsAreRecognised(pin: String, reason: String) {
        #expect(WeakPins.reason(pin) == reason)
    }

    @Test(arguments: ["4826", "5917", "739104", "2469", "1357"])
    func ordinaryPinsPass(pin: String) {
        #expect(WeakPins.reason(pin) == nil)
    }
}
