import Crypto
import Foundation
import JourneyCore

/// One-time passwords as authenticator apps and servers compute them: HOTP (RFC 4226), an
/// HMAC of a counter truncated to a few decimal digits, and TOTP (RFC 6238), HOTP of the
/// number of periods since the Unix epoch. The shared secret is written in base32, as in the
/// `otpauth://` URIs enrolment QR codes carry.
public enum OneTimePassword {
    /// The HMAC's hash function. RFC 6238 allows SHA-1 (the default everywhere), SHA-256 and
    /// SHA-512.
    public enum Algorithm: String, CaseIterable, Sendable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    /// The digits a code may have: RFC 4226 asks for at least six; ten is as many as the
    /// 31-bit truncated value can give.
    public static let digits = 6...10

    /// The HOTP code for `counter`: HMAC(key, counter as 8 bytes big-endian), dynamically
    /// truncated (RFC 4226 §5.3), modulo 10^digits, left-padded with zeros.
    public static func hotp(key: [UInt8], counter: UInt64, digits: Int, algorithm: Algorithm) -> String {
        precondition(Self.digits.contains(digits), "digits must be 6 to 10")
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[7 - index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        let symmetricKey = SymmetricKey(data: key)
        let mac: [UInt8] =
            switch algorithm {
            case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetricKey))
            case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetricKey))
            case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: symmetricKey))
            }
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt64(mac[offset] & 0x7f) << 24) | (UInt64(mac[offset + 1]) << 16) | (UInt64(mac[offset + 2]) << 8)
            | UInt64(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        let code = String(binary % modulus)
        return String(repeating: "0", count: digits - code.count) + code
    }

    /// The TOTP time step of `milliseconds` since the Unix epoch, with periods of
    /// `periodMilliseconds` counted from T0 = 0.
    public static func timeStep(milliseconds: Int, periodMilliseconds: Int) -> Int {
        precondition(periodMilliseconds > 0)
        return milliseconds >= 0
            ? milliseconds / periodMilliseconds : -((-milliseconds + periodMilliseconds - 1) / periodMilliseconds)
    }

    /// The bytes of a base32 secret (RFC 4648: `A`–`Z` and `2`–`7`), read as authenticator apps
    /// read it: any case, spaces and `-` between groups ignored, `=` padding optional. Nil for
    /// anything else, or for a secret that decodes to nothing.
    public static func base32Decode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var padding = false
        for scalar in text.unicodeScalars {
            let value: UInt32
            switch scalar {
            case "A"..."Z": value = scalar.value - 65
            case "a"..."z": value = scalar.value - 97
            case "2"..."7": value = scalar.value - 50 + 26
            case " ", "-": continue
            case "=":
                padding = true
                continue
            default: return nil
            }
            if padding { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// Why a secret is not one base32 can carry, or nil when it is.
    static func secretProblem(_ value: Value) -> String? {
        guard case .string(let text) = value.revealed else { return nil }
        return base32Decode(text) == nil
            ? "must be a base32 secret (letters A to Z and digits 2 to 7, as in an otpauth:// URI)" : nil
    }

    /// Why an algorithm's name is not one of those allowed, or nil when it is.
    static func algorithmProblem(_ value: Value) -> String? {
        guard case .string(let text) = value.revealed else { return nil }
        return Algorithm(rawValue: text) == nil
            ? "must be \(Algorithm.allCases.map(\.rawValue).joined(separator: ", ")), found '\(text)'" : nil
    }
}
