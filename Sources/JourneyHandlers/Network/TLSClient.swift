import Foundation
import JourneyCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// HTTP/1.1 for journeys (``HTTPTransport``): over TLS with a server that must pass a
/// ``ServerTrust`` (the system's roots, the CAs the device trusts besides them, and pins), or
/// plain. swift-corelibs-foundation's URLSession, on Linux, gives its delegate no server-trust
/// challenge (an untrusted server's certificate only fails the task) and marks
/// `URLProtectionSpace.serverTrust` unavailable, so requests go through SwiftNIO and BoringSSL.
///
/// The chain is judged inside the handshake, and the request is written only once the
/// handshake has completed: a server that fails the judgement sees a handshake abort and never
/// a byte of the request — no URL, header, token or body.
enum TLSClient {
    /// Why a request got no response, for the transport to turn into a ``NetworkError``.
    enum Failure: Error, Equatable {
        /// The server's chain does not verify up to a root the device trusts.
        case untrusted
        /// The chain verifies but holds no pinned key.
        case pinMismatch
        /// No connection, no complete response, or none in time.
        case noResponse
        /// The response is longer than ``largestResponse``: it was not read to its end.
        case tooLarge
    }

    /// The longest response read, in bytes: what an authorization server or an app's API
    /// answers a sign-in with is a few kilobytes; a server that sends more than this is not
    /// read on (a hostile one could send until the device's memory runs out).
    static let largestResponse = 8 << 20

    /// The TLS context of every secure request. Its configuration never changes (the chain is
    /// judged by ``ServerTrust`` in the handshake's callback), and building one reads the
    /// system's CA bundle, which costs more than the rest of a request to a nearby server; so it
    /// is built once, at the first `https:` request, and shared (a context is thread-safe).
    private static let context = Result<NIOSSLContext, any Error> {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }

    /// Sends `request` and gives its response. With `trust` nil the connection is plain HTTP
    /// (an `http:` URL): no TLS, and the request is written as soon as it is connected.
    static func send(
        _ request: HTTPRequest, trust: ServerTrust?, timeout: TimeInterval
    ) async throws(Failure)
        -> HTTPResponse
    {
        guard let components = URLComponents(string: request.url), let host = components.host else {
            throw .noResponse
        }
        let port = components.port ?? (trust == nil ? 80 : 443)
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        var headers = HTTPHeaders()
        let authority = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: components.port.map { "\(authority):\($0)" } ?? authority)
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        let body = request.body.map { Array($0.utf8) }
        if let body { headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: path, headers: headers)

        let verdict = NIOLockedValueBox<ServerTrust.Verdict?>(nil)
        let milliseconds = Int64(max(1, timeout * 1000))
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: HTTPResponse.self)
        do {
            let context = try trust.map { _ in try Self.context.get() }
            let serverName = ServerTrust.isAddress(host) ? nil : host
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(milliseconds))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard let trust, let context else {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(
                                Exchange(head: head, body: body, promise: promise, secure: false))
                            return
                        }
                        let tls = try NIOSSLClientHandler(
                            context: context, serverHostname: serverName,
                            customVerificationCallback: { certificates, result in
                                let chain = certificates.map { (try? $0.toDERBytes()) ?? [] }
                                result.completeWithTask {
                                    let judged = await trust.evaluate(chain)
                                    verdict.withLockedValue { $0 = judged }
                                    return judged == .trusted ? .certificateVerified : .failed
                                }
                            })
                        try channel.pipeline.syncOperations.addHandler(tls)
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            Exchange(head: head, body: body, promise: promise, secure: true))
                    }
                }
                .connect(host: host, port: port).get()
            let deadline = loop.scheduleTask(in: .milliseconds(milliseconds)) {
                promise.fail(Failure.noResponse)
                channel.close(promise: nil)
            }
            defer { deadline.cancel() }
            do {
                return try await promise.futureResult.get()
            } catch {
                channel.close(promise: nil)
                throw error
            }
        } catch {
            promise.fail(Failure.noResponse)
            if error as? Failure == .tooLarge { throw .tooLarge }
            switch verdict.withLockedValue({ $0 }) {
            case .untrusted?: throw .untrusted
            case .pinMismatch?: throw .pinMismatch
            default: throw .noResponse
            }
        }
    }

    /// Sends the request once the handshake has completed (over plain HTTP, once connected),
    /// then collects the response.
    final class Exchange: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        let head: HTTPRequestHead
        let body: [UInt8]?
        let promise: EventLoopPromise<HTTPResponse>
        /// Whether the request waits for a TLS handshake.
        let secure: Bool
        private var status = 0
        private var headers: [String: String] = [:]
        private var received = ByteBuffer()

        init(head: HTTPRequestHead, body: [UInt8]?, promise: EventLoopPromise<HTTPResponse>, secure: Bool) {
            self.head = head
            self.body = body
            self.promise = promise
            self.secure = secure
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if !secure, context.channel.isActive { write(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            if !secure { write(context) }
            context.fireChannelActive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if secure, case .handshakeCompleted? = event as? TLSUserEvent { write(context) }
            context.fireUserInboundEventTriggered(event)
        }

        private var written = false

        private func write(_ context: ChannelHandlerContext) {
            guard !written else { return }
            written = true
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if let body {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        /// Set once the response ran past ``TLSClient/largestResponse``: what follows is dropped.
        private var overflowed = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !overflowed else { return }
            switch unwrapInboundIn(data) {
            case .head(let response):
                status = Int(response.status.code)
                for (name, value) in response.headers {
                    let key = name.lowercased()
                    headers[key] = headers[key].map { $0 + ", " + value } ?? value
                }
            case .body(var part):
                guard received.readableBytes + part.readableBytes <= TLSClient.largestResponse else {
                    overflowed = true
                    received.clear()
                    promise.fail(Failure.tooLarge)
                    context.close(promise: nil)
                    return
                }
                received.writeBuffer(&part)
            case .end:
                let text = String(decoding: received.readableBytesView, as: UTF8.self)
                promise.succeed(HTTPResponse(status: status, body: text, headers: headers))
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure.noResponse)
            context.fireChannelInactive()
        }
    }
}
