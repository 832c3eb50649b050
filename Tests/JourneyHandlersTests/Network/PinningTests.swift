import Crypto
import Foundation
import JourneyCore
import NIOCore
import NIOPosix
import Testing

@testable import JourneyHandlers

/// Certificate pinning as iOS's `NSPinnedDomains` does it: the server's chain must verify up to
/// a root the device trusts and hold a pinned key, or nothing is sent.
@Suite("Certificate pinning")
struct PinningTests {
    // MARK: Judging a chain

    @Test("a chain through a CA the device trusts is trusted; a pin may name the CA or the server")
    func trustedChains() async throws {
        let pki = try TestPKI()
        func verdict(pins: Set<String>) async -> ServerTrust.Verdict {
            await ServerTrust(host: "127.0.0.1", trustedCAs: [pki.caPin], pins: pins).evaluate(pki.chain)
        }
        #expect(await verdict(pins: []) == .trusted)
        #expect(await verdict(pins: [pki.caPin]) == .trusted)
        #expect(await verdict(pins: [pki.serverPin]) == .trusted)
        #expect(await verdict(pins: [try TestPKI().caPin, pki.caPin]) == .trusted, "one pin of several is enough")
    }

    @Test("a chain that verifies but holds no pinned key is a pin mismatch")
    func anotherKeyIsAMismatch() async throws {
        let pki = try TestPKI()
        let other = try TestPKI()
        let trust = ServerTrust(host: "127.0.0.1", trustedCAs: [pki.caPin], pins: [other.caPin, other.serverPin])
        #expect(await trust.evaluate(pki.chain) == .pinMismatch)
    }

    @Test("a chain that does not verify is untrusted, pinned or not")
    func untrustedChains() async throws {
        let pki = try TestPKI()
        // No one trusts the CA: a matching pin does not make it a root.
        #expect(
            await ServerTrust(host: "127.0.0.1", trustedCAs: [], pins: [pki.caPin]).evaluate(pki.chain) == .untrusted)
        // Another host than the certificate's.
        #expect(
            await ServerTrust(host: "127.0.0.2", trustedCAs: [pki.caPin], pins: [pki.caPin]).evaluate(pki.chain)
                == .untrusted)
        #expect(
            await ServerTrust(host: "op.example.org", trustedCAs: [pki.caPin], pins: []).evaluate(pki.chain)
                == .untrusted)
        // Expired.
        let expired = try TestPKI(validFor: Date().addingTimeInterval(-7200)...Date().addingTimeInterval(-3600))
        #expect(
            await ServerTrust(host: "127.0.0.1", trustedCAs: [expired.caPin], pins: []).evaluate(expired.chain)
                == .untrusted)
        // A server certificate signed by another CA than the one it sends.
        let other = try TestPKI()
        #expect(
            await ServerTrust(host: "127.0.0.1", trustedCAs: [other.caPin], pins: []).evaluate([
                TestPKI.der(pki.server), TestPKI.der(other.ca),
            ]) == .untrusted)
        #expect(
            await ServerTrust(host: "127.0.0.1", trustedCAs: [pki.caPin], pins: []).evaluate([[1, 2, 3]]) == .untrusted)
    }

    /// Tests/oidc/provider.sh derives its test CA's key from a published phrase, so that the I12
    /// scenarios can trust and pin it by a pin that never changes.
    @Test("the loopback test CA's key has the pin the I12 scenarios trust")
    func loopbackTestCAPin() throws {
        let scalar = SHA256.hash(data: Data("JourneyKit loopback test CA".utf8))
        let key = try P256.Signing.PrivateKey(rawRepresentation: Data(scalar))
        let spki = key.publicKey.derRepresentation
        #expect(Data(SHA256.hash(data: spki)).base64EncodedString() == "UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=")
        let scenarios = packageRoot.appendingPathComponent("journeys/eiam/scenarios")
        let i12 = try FileManager.default.contentsOfDirectory(atPath: scenarios.path).filter { $0.hasPrefix("i12-") }
        #expect(i12.count == 2)
        for name in i12 {
            let text = try String(contentsOf: scenarios.appendingPathComponent(name), encoding: .utf8)
            #expect(text.contains("UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ="), "\(name) trusts the test CA")
        }
    }

    @Test("key pins are 32 bytes in base64")
    func keyPinForm() {
        #expect(KeyPin.problem("UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=") == nil)
        #expect(KeyPin.problem("UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ") != nil)
        #expect(KeyPin.problem("sha256/UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=") != nil)
        #expect(KeyPin.problem("QUFBQQ==") != nil)
        #expect(KeyPin.problem(in: .list([.string("UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=")])) == nil)
        #expect(KeyPin.problem(in: .list([.int(1)])) != nil)
    }

    @Test("pinned domains cover their subdomains and nothing else")
    func pinnedDomains() {
        let eiam = ["eiam.admin.ch"]
        #expect(Pinning.covers(eiam, "https://identity-eiam-r.eiam.admin.ch/realms/bund_bk-picardapp/"))
        #expect(Pinning.covers(eiam, "https://EIAM.admin.ch:443/x"))
        #expect(!Pinning.covers(eiam, "https://eiam.admin.ch.evil.example/x"))
        #expect(!Pinning.covers(eiam, "https://xeiam.admin.ch/x"))
        #expect(!Pinning.covers(eiam, "https://evil.example/eiam.admin.ch"))
        #expect(!Pinning.covers(eiam, "https://eiam.admin.ch@evil.example/x"))
        #expect(!Pinning.covers(eiam, "http://127.0.0.1:4593/api/oidc"))
        #expect(Pinning.covers(["127.0.0.1"], "https://127.0.0.1:4594/api/oidc"))
    }

    // MARK: On the wire, against a TLS peer the test controls

    static func request(_ peer: TLSPeer, pins: [String], trusting cas: [String]) -> HTTPRequest {
        var request = HTTPRequest(
            method: "POST", url: "https://127.0.0.1:\(peer.port)/token?client=app",
            headers: [.init("Authorization", "Bearer secret-access-token")], body: "refresh_token=secret-refresh")
        request.pins = pins
        request.trustedCAs = cas
        return request
    }

    @Test("with the right pin the request is sent and answered", .timeLimit(.minutes(10)))
    func rightPinSends() async throws {
        let pki = try TestPKI()
        let peer = try await TLSPeer(pki)
        defer { Task { try? await peer.close() } }
        let response = try await HTTPTransport().send(
            Self.request(peer, pins: [pki.caPin], trusting: [pki.caPin]))
        #expect(response.status == 200 && response.body == "ok")
        let received = String(decoding: peer.received, as: UTF8.self)
        #expect(received.hasPrefix("POST /token?client=app HTTP/1.1\r\n"))
        #expect(received.contains("secret-access-token") && received.hasSuffix("refresh_token=secret-refresh"))
    }

    @Test("a pin mismatch fails at the handshake: the server receives no byte of the request", .timeLimit(.minutes(10)))
    func mismatchSendsNothing() async throws {
        let pki = try TestPKI()
        let peer = try await TLSPeer(pki)
        defer { Task { try? await peer.close() } }
        let other = try TestPKI()
        await #expect(throws: NetworkError.self) {
            _ = try await HTTPTransport().send(
                Self.request(peer, pins: [other.caPin, other.serverPin], trusting: [pki.caPin]))
        }
        do {
            _ = try await HTTPTransport().send(Self.request(peer, pins: [other.caPin], trusting: [pki.caPin]))
        } catch let error as NetworkError {
            #expect(
                error
                    == .pinMismatch(
                        "the certificate chain of 127.0.0.1:\(peer.port) holds none of the pinned keys; nothing was sent"
                    ))
        }
        try await peer.settle()
        #expect(peer.connections == 2, "the handshake happened")
        #expect(peer.received.isEmpty, "the server received \(peer.received.count) bytes after the handshake")
    }

    @Test("a server the device does not trust receives nothing either", .timeLimit(.minutes(10)))
    func untrustedSendsNothing() async throws {
        let pki = try TestPKI()
        let peer = try await TLSPeer(pki)
        defer { Task { try? await peer.close() } }
        await #expect(
            throws: NetworkError.failed("the certificate of 127.0.0.1:\(peer.port) is not trusted; nothing was sent")
        ) {
            _ = try await HTTPTransport().send(Self.request(peer, pins: [pki.caPin], trusting: []))
        }
        try await peer.settle()
        #expect(peer.received.isEmpty)
    }

    @Test(
        "without pins or CAs of its own, an https server is judged against the system's roots: one they do not vouch for receives nothing",
        .timeLimit(.minutes(10)))
    func unpinnedUntrustedSendsNothing() async throws {
        let pki = try TestPKI()
        let peer = try await TLSPeer(pki)
        defer { Task { try? await peer.close() } }
        await #expect(
            throws: NetworkError.failed("the certificate of 127.0.0.1:\(peer.port) is not trusted; nothing was sent")
        ) {
            _ = try await HTTPTransport().send(Self.request(peer, pins: [], trusting: []))
        }
        try await peer.settle()
        #expect(peer.connections == 1, "the handshake happened")
        #expect(peer.received.isEmpty, "the server received \(peer.received.count) bytes after the handshake")
        // The same server, trusted through the device's CA, answers; no pin is needed.
        let response = try await HTTPTransport().send(Self.request(peer, pins: [], trusting: [pki.caPin]))
        #expect(response.status == 200 && response.body == "ok")
    }

    @Test("a pinned request to an http URL is not sent")
    func pinnedPlainHTTPIsRefused() async throws {
        var request = HTTPRequest(method: "GET", url: "http://127.0.0.1:9/.well-known/openid-configuration")
        request.pins = ["UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ="]
        await #expect(throws: NetworkError.pinMismatch("pinned, and 127.0.0.1:9 is not https; nothing was sent")) {
            _ = try await HTTPTransport().send(request)
        }
    }

    // MARK: In the language

    static func discover(pins: String?, handles: Bool) -> String {
        """
        journey: t.pin
        version: 1
        title: Pinned discovery
        start: discover
        steps:
          discover:
            handler: oidc.discover
            with: { issuer: "https://127.0.0.1:4594/api/oidc"\(pins.map { ", pins: \($0)" } ?? "") }
            on:
              ok: done
              mismatch: other
              foreignEndpoint: other
              failed: other
              offline: other
        \(handles ? "      pinMismatch: refused" : "")
        ends:
          done: { kind: success }
          refused: { kind: failure }
          other: { kind: failure }
        """
    }

    static func diagnostics(_ files: [String]) -> [Diagnostic] {
        let sources = files.enumerated().map { SourceFile(path: "f\($0.offset).yaml", data: Data($0.element.utf8)) }
        return ProjectLoader(handlers: BuiltinHandlers.registry).load(sources).diagnostics.items.filter {
            $0.severity == .error
        }
    }

    @Test("a step that gives pins must handle pinMismatch; a step that does not, cannot")
    func pinMismatchIsDeclaredWherePinsAre() {
        let pin = "[\"UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=\"]"
        #expect(Self.diagnostics([Self.discover(pins: pin, handles: true)]).isEmpty)
        let unhandled = Self.diagnostics([Self.discover(pins: pin, handles: false)])
        #expect(unhandled.map(\.id) == ["outcome.unhandled"])
        #expect(unhandled.first?.message.contains("'pinMismatch'") == true)
        let undeclared = Self.diagnostics([Self.discover(pins: nil, handles: true)])
        #expect(undeclared.map(\.id) == ["outcome.undeclared"])
        #expect(Self.diagnostics([Self.discover(pins: nil, handles: false)]).isEmpty)
    }

    @Test("a literal that is not a key pin is reported where it is written")
    func badLiteralPin() throws {
        let found = Self.diagnostics([Self.discover(pins: "[\"sha256/abc\"]", handles: true)])
        let diagnostic = try #require(found.first)
        #expect(found.count == 1)
        #expect(diagnostic.id == "value.invalid")
        #expect(diagnostic.message.contains("'sha256/abc' is not a key pin"))
        #expect(diagnostic.location.line == 8)
    }

    @Test("a scenario's trustedCAs must be key pins")
    func badTrustedCA() throws {
        let scenario = """
            scenario: s
            journey: t.pin
            device:
              trustedCAs: ["UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=", "not-a-pin"]
            script: []
            expect: { end: done }
            """
        let found = Self.diagnostics([Self.discover(pins: nil, handles: false), scenario])
        let diagnostic = try #require(found.first)
        #expect(found.count == 1)
        #expect(diagnostic.message.contains("'not-a-pin' is not a key pin"))
        #expect(diagnostic.location.line == 4 && diagnostic.location.column == 64)
    }

    /// The whole way: a journey pins discovery, the device trusts the server's CA, and the server
    /// has another key. The step gives `pinMismatch`, the transcript records the refused
    /// request without a status, and the server received nothing.
    @Test("a pinned step against another key gives pinMismatch, recorded, with nothing sent", .timeLimit(.minutes(10)))
    func pinnedStepAgainstAnotherKey() async throws {
        let pki = try TestPKI()
        let peer = try await TLSPeer(pki)
        defer { Task { try? await peer.close() } }
        let other = try TestPKI()
        let journey = Self.discover(pins: "[\"\(other.caPin)\"]", handles: true)
            .replacingOccurrences(of: "127.0.0.1:4594", with: "127.0.0.1:\(peer.port)")
        let (report, transcript) = try await run(
            journeys: [journey],
            scenario: """
                scenario: s
                journey: t.pin
                device: { trustedCAs: ["\(pki.caPin)"] }
                script: []
                expect: { end: refused }
                """)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("· trusts CA \(pki.caPin) ·"))
        #expect(
            transcript.text.contains(
                "http GET https://127.0.0.1:\(peer.port)/api/oidc/.well-known/openid-configuration → the certificate chain of 127.0.0.1:\(peer.port) holds none of the pinned keys; nothing was sent"
            ))
        #expect(transcript.text.contains("outcome pinMismatch {origin: \"https://127.0.0.1:\(peer.port)\"}"))
        #expect(transcript.jsonl.contains(#""trustedCAs":["\#(pki.caPin)"]"#))
        try await peer.settle()
        #expect(peer.received.isEmpty)
    }
}

@Suite("A response is read up to a bound")
struct ResponseSizeTests {
    /// A plain HTTP server on 127.0.0.1 that answers every request with `size` bytes.
    final class Sender: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let size: Int
        init(size: Int) { self.size = size }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n")
            answer.writeRepeatingByte(UInt8(ascii: "a"), count: size)
            context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
        }
        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
    }

    static func get(_ size: Int) async throws -> Result<Int, NetworkError> {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Sender(size: size))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let url = "http://127.0.0.1:\(server.localAddress?.port ?? 0)/big"
        do {
            return .success(try await HTTPTransport().send(HTTPRequest(method: "GET", url: url)).body.utf8.count)
        } catch let error as NetworkError {
            return .failure(error)
        }
    }

    @Test("an answer longer than 8 MiB is not read on: the request fails, saying so; a long one under it is read")
    func bounded() async throws {
        #expect(try await Self.get(1 << 20) == .success(1 << 20))
        guard case .failure(.failed(let message)) = try await Self.get(TLSClient.largestResponse + 1) else {
            Issue.record("a response past the bound was read")
            return
        }
        #expect(message.contains("longer than 8 MiB"), "\(message)")
    }
}
