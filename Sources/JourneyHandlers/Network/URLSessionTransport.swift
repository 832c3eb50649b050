import Foundation
import JourneyCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real HTTP for journeys, with a per-request timeout, no cookie jar, and redirects *not*
/// followed — an OAuth client must see the 302 and where it points. Plain HTTP is sent with
/// SwiftNIO (``TLSClient`` without TLS); HTTPS with URLSession.
///
/// A request with pins, or from a device that trusts CAs of its own, is sent by ``TLSClient``
/// instead, which judges the server's certificate chain (``ServerTrust``) before it sends a
/// byte: URLSession on Linux lets no one judge a server's certificate. A pinned request for a
/// URL that is not https is not sent at all.
public final class URLSessionTransport: NetworkTransport, @unchecked Sendable {
    private let timeout: TimeInterval
    private let delegate = NoRedirects()
    private let lock = NSLock()
    private var made: URLSession?

    /// - Parameter timeout: seconds before a request gives up (no response counts as offline).
    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    /// The session, made on the first request: most runs never send one, and a URLSession
    /// costs threads and file-system lookups to set up.
    private var session: URLSession {
        lock.withLock {
            if let made { return made }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            // No shared cookie jar: runs stay independent; handlers that need a session cookie
            // (the headless user agent) carry it themselves.
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            made = session
            return session
        }
    }

    deinit { made?.invalidateAndCancel() }

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url), url.scheme == "http" || url.scheme == "https" else {
            throw NetworkError.failed("not an http(s) URL: \(URLRedaction.redact(request.displayURL ?? request.url))")
        }
        let server = url.port.map { "\(url.host ?? ""):\($0)" } ?? url.host ?? "the server"
        if !request.pins.isEmpty && url.scheme != "https" {
            throw NetworkError.pinMismatch("pinned, and \(server) is not https; nothing was sent")
        }
        if url.scheme == "https" && !(request.pins.isEmpty && request.trustedCAs.isEmpty) {
            let trust = ServerTrust(
                host: url.host ?? "", trustedCAs: Set(request.trustedCAs), pins: Set(request.pins))
            do throws(TLSClient.Failure) {
                return try await TLSClient.send(request, trust: trust, timeout: timeout)
            } catch .pinMismatch {
                throw NetworkError.pinMismatch(
                    "the certificate chain of \(server) holds none of the pinned keys; nothing was sent")
            } catch .untrusted {
                throw NetworkError.failed("the certificate of \(server) is not trusted; nothing was sent")
            } catch {
                throw NetworkError.failed("no response from \(url.host ?? "the server")")
            }
        }
        // Plain HTTP goes through SwiftNIO too: swift-corelibs-foundation's URLSession traps
        // (a fatal error, the whole process gone) when a task is cancelled or times out while
        // its redirect callback is on its way, and a run stopped mid-request must never crash.
        if url.scheme == "http" {
            do throws(TLSClient.Failure) {
                return try await TLSClient.send(request, trust: nil, timeout: timeout)
            } catch {
                throw NetworkError.failed("no response from \(url.host ?? "the server")")
            }
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body.utf8) }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw NetworkError.failed("no response from \(url.host ?? "the server") (\((error as NSError).code))")
        }
        guard let http = response as? HTTPURLResponse else { throw NetworkError.failed("not an HTTP response") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, body: String(decoding: data, as: UTF8.self), headers: headers)
    }

    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}
