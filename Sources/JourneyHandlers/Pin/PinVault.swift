import Crypto
import CryptoExtras
import Foundation
import JourneyCore

/// How PINs live on the device: never in clear and never as a plain hash.
///
/// A random 256-bit device secret is sealed with AES-GCM under a key derived from the PIN
/// with PBKDF2-HMAC-SHA256 and a random 128-bit salt. Verifying a PIN means deriving the key
/// again and opening the seal: the AEAD tag decides, so nothing is compared by hand and a
/// tampered or truncated record simply fails to open.
///
/// The stored form is one line: `pin-v1:ROUNDS:SALT:SEALED` (base64), kept as a secret value.
public enum PinVault {
    /// OWASP's recommendation for PBKDF2-HMAC-SHA256; also the most a record may ask for.
    public static let defaultRounds = NumberRange.kdfRounds.upperBound
    static let prefix = "pin-v1"
    /// Binds the seal to its purpose, so a record cannot be replayed as another kind of secret.
    static let context = Data("journeykit.pin.v1".utf8)

    public enum Failure: Error, Equatable {
        /// The record is not one this vault wrote (corrupted, truncated, another format).
        case unreadableRecord
    }

    /// Seals a fresh device secret under `pin`, with the salt, secret and nonce drawn from
    /// `random` (a handler's context's source).
    public static func seal(pin: String, rounds: Int = defaultRounds, using random: inout RandomSource) throws -> String
    {
        let salt = SecureRandom.bytes(16, from: &random)
        let key = try deriveKey(pin: pin, salt: salt, rounds: rounds)
        let secret = SecureRandom.bytes(32, from: &random)
        let nonce = try AES.GCM.Nonce(data: SecureRandom.bytes(12, from: &random))
        let box = try AES.GCM.seal(secret, using: key, nonce: nonce, authenticating: context)
        guard let combined = box.combined else { throw Failure.unreadableRecord }
        return [prefix, String(rounds), salt.base64EncodedString(), combined.base64EncodedString()]
            .joined(separator: ":")
    }

    /// A record's parts, when it is one this vault wrote: check before asking for the PIN.
    static func parse(_ record: String) throws(Failure) -> (rounds: Int, salt: Data, box: AES.GCM.SealedBox) {
        if let parts = Memo.shared.record(record) { return parts }
        let parts = try read(record)
        Memo.shared.remember(record, parts)
        return parts
    }

    private static func read(_ record: String) throws(Failure) -> (rounds: Int, salt: Data, box: AES.GCM.SealedBox) {
        // Split as bytes: the separator is ASCII, and reading the record by characters cost
        // `journey explore` a fifth of its time.
        let parts = record.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        // A cost this vault never writes is tampering: it must not make verifying hang or crash.
        guard parts.count == 4, parts[0].elementsEqual(prefix.utf8), let rounds = Int(Substring(parts[1])),
            NumberRange.kdfRounds.contains(rounds),
            let salt = Data(base64Encoded: Data(parts[2])), salt.count == 16,
            let combined = Data(base64Encoded: Data(parts[3])),
            let box = try? AES.GCM.SealedBox(combined: combined)
        else { throw .unreadableRecord }
        return (rounds, salt, box)
    }

    /// Whether `pin` opens `record`. Throws only when the record cannot be read at all.
    public static func verify(pin: String, record: String) throws -> Bool {
        if let opens = Memo.shared.opens(record, pin) { return opens }
        let (rounds, salt, box) = try parse(record)
        let key = try deriveKey(pin: pin, salt: salt, rounds: rounds)
        // Any failure to open (wrong key, tampered bytes) is a wrong PIN; on Linux the error is
        // a BoringSSL code rather than `.authenticationFailure`, so no case is matched.
        let opens = (try? AES.GCM.open(box, using: key, authenticating: context)) != nil
        Memo.shared.remember(record, pin, opens: opens)
        return opens
    }

    /// PBKDF2-HMAC-SHA256 with 32 bytes of output. Costs under 210 000 rounds (swift-crypto's
    /// floor) are allowed only because a device setting asked for them, for fast test runs.
    ///
    /// Keys are remembered per (PIN, salt, rounds) for the life of the process (``Memo``):
    /// `journey explore` opens and seals the same records with the same PINs thousands of times.
    public static func deriveKey(pin: String, salt: Data, rounds: Int) throws -> SymmetricKey {
        let id = Memo.KeyID(pin: pin, salt: salt, rounds: rounds)
        if let key = Memo.shared.key(id) { return key }
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(pin.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        Memo.shared.remember(id, key)
        return key
    }

    /// What the vault has worked out before, by everything that decides it: a key by the PIN,
    /// salt and rounds it was derived from, a record's parts by the record, whether a PIN opens
    /// a record by the two (the record holds the salt, rounds, nonce, sealed bytes and tag that
    /// decide it). All are pure functions of those, so remembering them changes no answer, only
    /// its cost. Each table holds at most ``capacity`` entries and starts again when full.
    final class Memo: @unchecked Sendable {
        struct KeyID: Hashable {
            var pin: String
            var salt: Data
            var rounds: Int
        }

        static let shared = Memo()
        static let capacity = 4096
        private let lock = NSLock()
        private var keys: [KeyID: SymmetricKey] = [:]
        private var records: [Record: (rounds: Int, salt: Data, box: AES.GCM.SealedBox)] = [:]
        private var openings: [Opening: Bool] = [:]

        /// A record as a key: equal when the records are, hashed by its length and last 16 bytes
        /// (the end of its AES-GCM tag, random for every record sealed), not by its every byte:
        /// an exploration looks records up on every move.
        struct Record: Hashable {
            var text: String

            func hash(into hasher: inout Hasher) {
                var text = text
                text.withUTF8 { bytes in
                    hasher.combine(bytes.count)
                    hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(16))))
                }
            }
        }

        struct Opening: Hashable {
            var record: Record
            var pin: String
        }

        func opens(_ record: String, _ pin: String) -> Bool? {
            lock.withLock { openings[Opening(record: Record(text: record), pin: pin)] }
        }

        func remember(_ record: String, _ pin: String, opens: Bool) {
            lock.withLock {
                if openings.count >= Self.capacity { openings.removeAll(keepingCapacity: true) }
                openings[Opening(record: Record(text: record), pin: pin)] = opens
            }
        }

        func key(_ id: KeyID) -> SymmetricKey? { lock.withLock { keys[id] } }

        func remember(_ id: KeyID, _ key: SymmetricKey) {
            lock.withLock {
                if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
                keys[id] = key
            }
        }

        func record(_ record: String) -> (rounds: Int, salt: Data, box: AES.GCM.SealedBox)? {
            lock.withLock { records[Record(text: record)] }
        }

        func remember(_ record: String, _ parts: (rounds: Int, salt: Data, box: AES.GCM.SealedBox)) {
            lock.withLock {
                if records.count >= Self.capacity { records.removeAll(keepingCapacity: true) }
                records[Record(text: record)] = parts
            }
        }
    }
}

/// Keys typed on a PIN pad: digits, with `⌫` (or `<`) for delete. The pad advances by itself
/// once it has `length` digits (``KeyPad``, as `journey check` counts a scenario's keys).
enum PinPad {
    /// The digits entered, or a message (never containing the keys) saying what was wrong.
    static func enter(_ keys: String, length: Int) -> Result<String, HandlerError> {
        // The common case, the digits alone: the keys are the PIN.
        if keys.utf8.count == length, keys.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return .success(keys) }
        // A key the pad does not have is refused wherever it is typed.
        guard keys.allSatisfy({ pinKeyPad.delete.contains($0) || ($0.isASCII && $0.isNumber) }) else {
            return .failure(HandlerError("a PIN pad has only digits and ⌫ (delete)"))
        }
        switch pinKeyPad.entered(keys, length: length) {
        case .advancedEarly(let leftOver):
            return .failure(
                HandlerError("the PIN pad advanced after \(length) digits; \(leftOver) more keys were given"))
        case .keys(let kept):
            guard kept.count == length else {
                return .failure(HandlerError("only \(kept.count) of \(length) digits were entered"))
            }
            return .success(String(kept))
        }
    }
}
