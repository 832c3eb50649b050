import Foundation

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
    static func withLock<T>(for service: String, timeout: Double = 120, _ body: () async -> T) async -> T {
        // One lock per server (scheme, host, port), whichever of its paths a scenario names.
        let server = RoutingNetwork.origin(service) ?? service
        let name = server.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" }
        let path = NSTemporaryDirectory() + "/journeykit-service-" + String(name.prefix(80)) + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return await body() }
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 && Date() < deadline {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return await body()
    }
}
