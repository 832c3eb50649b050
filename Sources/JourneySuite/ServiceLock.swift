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
    static func withLocks<T>(
        for services: [String], timeout: Double = 120, _ body: () async -> T
    ) async -> Result<T, Busy> {
        // One lock per server (scheme, host, port), whichever of its paths a scenario names.
        let servers = Set(services.map { URLOrigin.of($0) ?? $0 }).sorted()
        return await withLocks(servers[...], timeout: timeout, body)
    }

    private static func withLocks<T>(
        _ servers: ArraySlice<String>, timeout: Double, _ body: () async -> T
    ) async -> Result<T, Busy> {
        guard let server = servers.first else { return .success(await body()) }
        return await withLock(server: server, timeout: timeout) {
            await withLocks(servers.dropFirst(), timeout: timeout, body)
        }
    }

    private static func withLock<T>(
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
