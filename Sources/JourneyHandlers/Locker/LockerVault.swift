import Crypto
import Foundation
import JourneyCore

/// Protected data the way the Locker SDK promises it: data sealed at a protection level can
/// be read only in the session states allowed that level, and the rule is kept by
/// cryptography, not by an if-statement.
///
/// Every level has its own random AES-256-GCM key. At enrolment the four keys are sealed
/// under a key derived from the easy-access secret (PBKDF2-HMAC-SHA256), the *vault*; the
/// `background` and `base` keys are also sealed under a random device key kept in the
/// keychain for use without the user (the *device wrap*). A session holds a *keyring*: only
/// the keys its state may use.
///
/// | state | keyring |
/// |---|---|
/// | ActiveViaStrongAuth, ActiveViaEasyAccess | active, offline, background, base |
/// | VerifiedOffline | offline, base |
/// | BackgroundAccess | background, base |
/// | Enrolled | base |
/// | Unregistered | nothing: destroy wipes the vault and the device wrap |
///
/// Decrypting at a level whose key is not on the keyring is impossible, not forbidden. Data is
/// sealed with its level and name as associated data, so a ciphertext moved to another level or
/// name, or altered in any byte, fails to open: that is tampering, never a fallback to plain text.
public enum LockerVault {
    public enum Level: String, CaseIterable, Sendable {
        case active, offline, background, base
    }

    public enum Failure: Error, Equatable {
        /// The easy-access secret does not open the vault.
        case wrongSecret
        /// A record is not one this vault wrote, or was altered.
        case unreadable
        /// The level's key is not on the keyring: the session's state may not use it.
        case unavailable(Level)
    }

    static let version = "locker-v1"
    static let vaultContext = Data("journeykit.locker.vault.v1".utf8)
    static let deviceContext = Data("journeykit.locker.device.v1".utf8)

    /// Keys by level, held by a session.
    public struct Keyring: Equatable, Sendable {
        var keys: [Level: Data]

        public var levels: [Level] { Level.allCases.filter { keys[$0] != nil } }

        /// The keyring reduced to `levels`.
        public func only(_ levels: [Level]) -> Keyring {
            Keyring(keys: keys.filter { levels.contains($0.key) })
        }

        /// One line: `locker-v1:LEVEL=KEY,…` (base64 keys, levels in a fixed order). Secret.
        public var encoded: String {
            version + ":" + levels.map { "\($0.rawValue)=\(keys[$0]!.base64EncodedString())" }.joined(separator: ",")
        }

        public init(encoded: String) throws(Failure) {
            guard encoded.hasPrefix(version + ":") else {
                if encoded.isEmpty {
                    keys = [:]
                    return
                }
                throw .unreadable
            }
            var keys: [Level: Data] = [:]
            for item in encoded.dropFirst(version.count + 1).split(separator: ",") {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let level = Level(rawValue: String(pair[0])),
                    let key = Data(base64Encoded: String(pair[1])), key.count == 32
                else { throw .unreadable }
                keys[level] = key
            }
            self.keys = keys
        }

        init(keys: [Level: Data]) { self.keys = keys }

        /// A keyring with no keys: an Unregistered session's.
        public init() { keys = [:] }
    }

    /// What enrolment leaves on the device, and the first session's keyring.
    public struct Enrolment: Sendable {
        public var vault: String
        public var deviceWrap: String
        public var keyring: Keyring
    }

    /// Level keys sealed under `secret`, and (background, base) under a new device key. The keys
    /// of `keeping` are kept (a changed password must not lose the data); the others are fresh.
    /// Keys, salt and nonces are drawn from `random` (a handler's context's source).
    public static func enrol(
        secret: String, rounds: Int, keeping: Keyring = Keyring(), using random: inout RandomSource
    ) throws -> Enrolment {
        var keys: [Level: Data] = [:]
        for level in Level.allCases { keys[level] = keeping.keys[level] ?? SecureRandom.bytes(32, from: &random) }
        let keyring = Keyring(keys: keys)
        let salt = SecureRandom.bytes(16, from: &random)
        let kek = try PinVault.deriveKey(pin: secret, salt: salt, rounds: rounds)
        let vault = try seal(Data(keyring.encoded.utf8), key: kek, context: vaultContext, using: &random)
        let deviceKey = SecureRandom.bytes(32, from: &random)
        let wrap = try seal(
            Data(keyring.only([.background, .base]).encoded.utf8), key: SymmetricKey(data: deviceKey),
            context: deviceContext, using: &random)
        return Enrolment(
            vault: [version, String(rounds), salt.base64EncodedString(), vault.base64EncodedString()]
                .joined(separator: ":"),
            deviceWrap: [version, deviceKey.base64EncodedString(), wrap.base64EncodedString()].joined(separator: ":"),
            keyring: keyring)
    }

    /// A vault's parts, when it is one this code wrote: check before asking for the secret.
    public static func parse(vault: String) throws(Failure) -> (rounds: Int, salt: Data, sealed: Data) {
        let parts = vault.split(separator: ":", omittingEmptySubsequences: false)
        // A cost this code never writes is tampering: it must not make opening hang or crash.
        guard parts.count == 4, parts[0] == version, let rounds = Int(parts[1]), NumberRange.kdfRounds.contains(rounds),
            let salt = Data(base64Encoded: String(parts[2])), salt.count == 16,
            let sealed = Data(base64Encoded: String(parts[3]))
        else { throw .unreadable }
        return (rounds, salt, sealed)
    }

    /// The keyring the easy-access secret releases from the vault.
    public static func open(vault: String, secret: String) throws -> Keyring {
        let (rounds, salt, sealed) = try parse(vault: vault)
        let kek = try PinVault.deriveKey(pin: secret, salt: salt, rounds: rounds)
        guard let plain = try? open(sealed, key: kek, context: vaultContext) else { throw Failure.wrongSecret }
        return try Keyring(encoded: String(decoding: plain, as: UTF8.self))
    }

    /// The keyring the device wrap releases without the user: background and base.
    public static func open(deviceWrap: String) throws -> Keyring {
        let parts = deviceWrap.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == version, let key = Data(base64Encoded: String(parts[1])),
            key.count == 32, let sealed = Data(base64Encoded: String(parts[2])),
            let plain = try? open(sealed, key: SymmetricKey(data: key), context: deviceContext)
        else { throw Failure.unreadable }
        return try Keyring(encoded: String(decoding: plain, as: UTF8.self))
    }

    /// Seals `data` at `level` under the name it is stored by: `locker-v1:LEVEL:SEALED`, with the
    /// nonce drawn from `random` (a handler's context's source).
    public static func encrypt(
        _ data: String, level: Level, name: String, keyring: Keyring, using random: inout RandomSource
    ) throws -> String {
        guard let key = keyring.keys[level] else { throw Failure.unavailable(level) }
        let sealed = try seal(
            Data(data.utf8), key: SymmetricKey(data: key), context: dataContext(level, name), using: &random)
        return [version, level.rawValue, sealed.base64EncodedString()].joined(separator: ":")
    }

    /// Opens what `encrypt` sealed at `level` under `name`.
    public static func decrypt(_ record: String, level: Level, name: String, keyring: Keyring) throws -> String {
        guard let key = keyring.keys[level] else { throw Failure.unavailable(level) }
        let parts = record.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == version, let sealed = Data(base64Encoded: String(parts[2])),
            let plain = try? open(sealed, key: SymmetricKey(data: key), context: dataContext(level, name)),
            let text = String(data: plain, encoding: .utf8)
        else { throw Failure.unreadable }
        return text
    }

    static func dataContext(_ level: Level, _ name: String) -> Data {
        Data("journeykit.locker.data.v1|\(level.rawValue)|\(name)".utf8)
    }

    static func seal(_ data: Data, key: SymmetricKey, context: Data, using random: inout RandomSource) throws -> Data {
        let nonce = try AES.GCM.Nonce(data: SecureRandom.bytes(12, from: &random))
        guard let combined = try AES.GCM.seal(data, using: key, nonce: nonce, authenticating: context).combined else {
            throw Failure.unreadable
        }
        return combined
    }

    /// Any failure to open is reported the same way: on Linux a wrong key or altered byte is a
    /// BoringSSL error code rather than `.authenticationFailure`, so no case is matched.
    static func open(_ combined: Data, key: SymmetricKey, context: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: context)
    }
}
