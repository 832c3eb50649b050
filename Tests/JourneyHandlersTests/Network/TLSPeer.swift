import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SwiftASN1
import X509

@testable import JourneyHandlers

/// Certificates made in the test: a CA and a certificate for 127.0.0.1 it signs.
struct TestPKI {
    let caKey = P256.Signing.PrivateKey()
    let serverKey = P256.Signing.PrivateKey()
    let ca: Certificate
    let server: Certificate

    init(
        serverName: String = "127.0.0.1",
        validFor interval: ClosedRange<Date> = Date().addingTimeInterval(-3600)...Date().addingTimeInterval(3600)
    ) throws {
        let caName = try DistinguishedName { CommonName("JourneyKit test CA \(UUID().uuidString)") }
        ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-7200), notValidAfter: Date().addingTimeInterval(7200),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }, issuerPrivateKey: .init(caKey))
        let address = serverName.split(separator: ".").compactMap { UInt8($0) }
        let name: GeneralName =
            address.count == 4 ? .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) : .dnsName(serverName)
        server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: interval.lowerBound, notValidAfter: interval.upperBound, issuer: caName,
            subject: try DistinguishedName { CommonName(serverName) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([name])
            }, issuerPrivateKey: .init(caKey))
    }

    var caPin: String { ServerTrust.pin(of: ca) }
    var serverPin: String { ServerTrust.pin(of: server) }

    /// The chain as a server presents it: its own certificate, then the CA's.
    var chain: [[UInt8]] { [Self.der(server), Self.der(ca)] }

    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// A TLS server on 127.0.0.1 that the test controls: it presents a ``TestPKI`` chain, answers
/// any request with `200 ok`, and counts every byte of application data it receives — what a
/// client sends after the handshake.
final class TLSPeer: Sendable {
    let port: Int
    private let channel: Channel
    private let state = NIOLockedValueBox<(bytes: [UInt8], connections: Int, closed: Int)>(([], 0, 0))

    init(_ pki: TestPKI) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try pki.chain.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(pki.serverKey.derRepresentation), format: .der)))
        configuration.minimumTLSVersion = .tlsv12
        let context = try NIOSSLContext(configuration: configuration)
        let state = self.state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    state.withLockedValue { $0.connections += 1 }
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Recorder(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Every byte of application data received so far.
    var received: [UInt8] { state.withLockedValue { $0.bytes } }
    var connections: Int { state.withLockedValue { $0.connections } }

    /// Waits until every connection the peer accepted has closed.
    func settle() async throws {
        for _ in 0..<200 {
            let (connections, closed) = state.withLockedValue { ($0.connections, $0.closed) }
            if connections == closed { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    func close() async throws { try await channel.close() }

    final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let state: NIOLockedValueBox<(bytes: [UInt8], connections: Int, closed: Int)>

        init(state: NIOLockedValueBox<(bytes: [UInt8], connections: Int, closed: Int)>) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let all = state.withLockedValue {
                $0.bytes += bytes
                return $0.bytes
            }
            if String(decoding: all, as: UTF8.self).contains("\r\n\r\n") {
                let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLockedValue { $0.closed += 1 }
            context.fireChannelInactive()
        }
    }
}
