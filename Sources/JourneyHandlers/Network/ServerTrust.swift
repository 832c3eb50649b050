import Crypto
import Foundation
import JourneyCore
import SwiftASN1
import X509

/// Judges a TLS server's certificate chain the way iOS judges it for an app that pins its
/// servers (`NSAppTransportSecurity` → `NSPinnedDomains`): the chain must verify — signatures,
/// validity dates, the host name or IP address — up to a root the device trusts, and, when
/// the request has pins, hold a certificate whose public key is pinned.
///
/// The roots the device trusts are the system's and the CAs of ``trustedCAs`` (a profile
/// installed on a test phone), which a server is trusted through when it presents that CA's
/// certificate in its chain. A pin may name any certificate of the verified chain: the
/// server's own, an intermediate or the root — iOS's `NSPinnedLeafIdentities` and
/// `NSPinnedCAIdentities` together.
struct ServerTrust: Sendable {
    /// The host the request is for: a name, or an IP address.
    var host: String
    /// Key pins (``KeyPin``) of the CAs the device trusts besides the system's.
    var trustedCAs: Set<String>
    /// Key pins of which the verified chain must hold one; none means no pinning.
    var pins: Set<String>

    enum Verdict: Equatable, Sendable {
        case trusted
        /// The chain does not verify up to a root the device trusts.
        case untrusted
        /// The chain verifies, but holds none of the pinned keys.
        case pinMismatch
    }

    /// The verdict on a chain as the server presented it (DER certificates, its own first), at
    /// the real time: certificates expire on the wall clock, not on a scenario's.
    func evaluate(_ chain: [[UInt8]]) async -> Verdict {
        let certificates = chain.compactMap { try? Certificate(derEncoded: $0) }
        guard let leaf = certificates.first, certificates.count == chain.count else { return .untrusted }
        let anchors = certificates.filter { trustedCAs.contains(Self.pin(of: $0)) }
        let roots = CertificateStore.systemTrustRoots.appending(contentsOf: anchors)
        let intermediates = CertificateStore(certificates.dropFirst())
        let address = Self.isAddress(host)
        let identity = ServerIdentityPolicy(serverHostname: address ? nil : host, serverIP: address ? host : nil)
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            identity
        }
        guard case .validCertificate = await verifier.validate(leaf: leaf, intermediates: intermediates) else {
            return .untrusted
        }
        guard !pins.isEmpty else { return .trusted }
        // Build the chains again, now only those through a pinned key: a server may have more
        // than one path to a trusted root, and one pinned path is enough.
        var pinned = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            identity
            PinPolicy(pins: pins)
        }
        guard case .validCertificate = await pinned.validate(leaf: leaf, intermediates: intermediates) else {
            return .pinMismatch
        }
        return .trusted
    }

    /// A certificate's key pin: SHA-256 of its DER SubjectPublicKeyInfo, in base64.
    static func pin(of certificate: Certificate) -> String {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate.publicKey)) != nil else { return "" }
        return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    /// Whether a URL's host is an IP address (v4, or v6 with or without brackets).
    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") })
    }

    /// Accepts a candidate chain only when one of its certificates has a pinned key.
    struct PinPolicy: VerifierPolicy {
        let pins: Set<String>
        let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

        mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
            chain.contains { pins.contains(ServerTrust.pin(of: $0)) }
                ? .meetsPolicy : .failsToMeetPolicy(reason: "no certificate of the chain has a pinned key")
        }
    }
}
