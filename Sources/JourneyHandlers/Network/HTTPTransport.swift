import Foundation
import JourneyCore

/// Real HTTP for journeys, with a per-request timeout, no cookie jar, and redirects *not*
/// followed — an OAuth client must see the 302 and where it points — sent with SwiftNIO
/// (``TLSClient``).
///
/// Over https the server's certificate chain is judged (``ServerTrust``) before a byte of the
/// request is sent: up to the system's roots and the CAs the device trusts besides them, and,
/// for a pinned request, through a pinned key. A pinned request for a URL that is not https is
/// not sent at all. (swift-corelibs-foundation's URLSession lets no one judge a server's
/// certificate on Linux, and traps — the whole process gone — when a task is cancelled or
/// times out while its redirect callback is on its way: a run stopped mid-request must never
/// crash.)
public final class HTTPTransport: NetworkTransport, Sendable {
    private let timeout: TimeInterval

    /// - Parameter timeout: seconds before a request gives up (no response counts as offline).
    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url), url.scheme == "http" || url.scheme == "https" else {
            throw NetworkError.failed("not an http(s) URL: \(URLRedaction.redact(request.displayURL ?? request.url))")
        }
        let server = url.port.map { "\(url.host ?? ""):\($0)" } ?? url.host ?? "the server"
        if !request.pins.isEmpty && url.scheme != "https" {
            throw NetworkError.pinMismatch("pinned, and \(server) is not https; nothing was sent")
        }
        let trust =
            url.scheme == "https"
            ? ServerTrust(host: url.host ?? "", trustedCAs: Set(request.trustedCAs), pins: Set(request.pins)) : nil
        do throws(TLSClient.Failure) {
            return try await TLSClient.send(request, trust: trust, timeout: timeout)
        } catch .pinMismatch {
            throw NetworkError.pinMismatch(
                "the certificate chain of \(server) holds none of the pinned keys; nothing was sent")
        } catch .tooLarge {
            throw NetworkError.failed(
                "the response of \(server) is longer than \(TLSClient.largestResponse >> 20) MiB; it was not read on")
        } catch .untrusted {
            throw NetworkError.failed("the certificate of \(server) is not trusted; nothing was sent")
        } catch {
            throw NetworkError.failed("no response from \(url.host ?? "the server")")
        }
    }
}
