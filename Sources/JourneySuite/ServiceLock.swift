import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One scenario at a time per needed server, across threads and processes: a local
/// provider on a single-writer database (Glewlwyd on SQLite) fails requests that arrive
/// together. An advisory `flock` on a file named after the service, polled without blocking
/// a thread.
enum ServiceLock {
    /// A server another scenario kept for longer than the wait allowed.
    struct Busy: Error, Equatable {
        let server: String
        let seconds: Double
    }

    /// Runs `body` holding the lock of every server the services are on, taken in one order
    /// (sorted) so that two scenarios needing the same servers cannot wait on each other.
    /// Gives up, without running `body`, when a server stays locked for `timeout` seconds.
    nonisolated(nonsending) static func withLocks<T>(
        for services: [String], timeout: Double = 120, _ body: () async -> T
    ) async -> Result<T, Busy> {
        // One lock per server (scheme, host, port), whichever of its paths a scenario names.
        let servers = Set(services.map { URLOrigin.of($0) ?? $0 }).sorted()
        return await withLocks(servers[...], timeout: timeout, body)
    }

    private nonisolated(nonsending) static func withLocks<T>(
        _ servers: ArraySlice<String>, timeout: Double, _ body: () async -> T
    ) async -> Result<T, Busy> {
        guard let server = servers.first else { return .success(await body()) }
        return await withLock(server: server, timeout: timeout) {
            await withLocks(servers.dropFirst(), timeout: timeout, body)
        }
    }

    private nonisolated(nonsending) static func withLock<T>(
        server: String, timeout: Double, _ body: () async -> Result<T, Busy>
    ) async -> Result<T, Busy> {
        let name = server.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" }
        let path = NSTemporaryDirectory() + "/journeykit-service-" + String(name.prefix(80)) + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // No lock file (an unwritable temporary folder): run unlocked rather than not at all.
        guard descriptor >= 0 else { return await body() }
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard Date() < deadline else { return .failure(Busy(server: server, seconds: timeout)) }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return await body()
    }
}

/// A network that holds a needed service's lock (``ServiceLock``) for each request it sends to
/// that service: for a run that is not a scenario of `journey test`, such as a person playing
/// one with `journey play --from`, which can take minutes between two requests and so cannot
/// hold the lock the whole time. A request waits while a scenario that needs the same server is
/// playing, and never reaches the server together with another one. Requests to other origins
/// (a scenario's stubs) go straight through; what the inner network has answered is its own.
public final class ServiceLockedNetwork: CountingNetwork {
    private let inner: any NetworkTransport
    private let origins: [String]
    private let timeout: Double

    /// - Parameters:
    ///   - services: the services whose requests take their server's lock (a scenario's `needs`).
    ///   - timeout: how long a request waits for a server another run keeps busy before it
    ///     fails, in seconds.
    public init(_ inner: any NetworkTransport, services: [String], timeout: Double = 120) {
        self.inner = inner
        self.origins = services.compactMap(URLOrigin.of)
        self.timeout = timeout
    }

    public var answered: [Int] { (inner as? any CountingNetwork)?.answered ?? [] }

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let origin = URLOrigin.of(request.url), origins.contains(origin) else {
            return try await inner.send(request)
        }
        let inner = inner
        let sent: Result<Result<HTTPResponse, any Error>, ServiceLock.Busy> = await ServiceLock.withLocks(
            for: [origin], timeout: timeout
        ) {
            do { return .success(try await inner.send(request)) } catch { return .failure(error) }
        }
        switch sent {
        case .success(let answer): return try answer.get()
        case .failure(let busy):
            throw NetworkError.failed(
                "waited \(Int(busy.seconds)) s for \(busy.server), which other runs kept busy; the request was not sent"
            )
        }
    }
}
