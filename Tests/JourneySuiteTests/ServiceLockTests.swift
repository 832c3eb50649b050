import Foundation
import JourneyCore
import JourneyTestSupport
import Testing

@testable import JourneySuite

/// Scenarios that need live servers hold a lock per server, so two never use one together.
@Suite("Service locks")
struct ServiceLockTests {
    /// Who is inside a locked section, per server.
    final class Occupancy: @unchecked Sendable {
        private let lock = NSLock()
        private var inside: [String: Int] = [:]
        private(set) var overlaps = 0

        func enter(_ servers: [String]) {
            lock.withLock {
                for server in servers {
                    inside[server, default: 0] += 1
                    if inside[server]! > 1 { overlaps += 1 }
                }
            }
        }

        func leave(_ servers: [String]) {
            lock.withLock { for server in servers { inside[server]! -= 1 } }
        }
    }

    /// The tasks wait on their own thread: this process's two cooperative threads can be held
    /// by tests waiting on subprocesses, and a lock holder that cannot resume would make the
    /// others give up.
    static let executor = DedicatedThreadExecutor()

    @Test func everyNeededServerIsLockedAndOpposedOrdersDoNotDeadlock() async {
        await withTaskExecutorPreference(Self.executor) { await Self.contend() }
    }

    static func contend() async {
        let id = UUID().uuidString.lowercased()
        let a = "http://lock-a-\(id).invalid/api/oidc", b = "http://lock-b-\(id).invalid/api"
        let occupancy = Occupancy()
        // Each task names its servers in a different order; one needs only the second server.
        let plans = [[a, b], [b, a], [b + "/other"], [a, b], [b, a]]
        await withTaskGroup(of: Void.self) { group in
            for plan in plans {
                group.addTask {
                    let servers = plan.map { URLOrigin.of($0) ?? $0 }
                    let result = await ServiceLock.withLocks(for: plan, timeout: 60) {
                        occupancy.enter(servers)
                        try? await Task.sleep(nanoseconds: 20_000_000)
                        occupancy.leave(servers)
                    }
                    #expect((try? result.get()) != nil, "no task gave up waiting")
                }
            }
        }
        #expect(occupancy.overlaps == 0)
    }

    @Test func aServerKeptBusyFailsTheWaitInsteadOfRunningUnlocked() async {
        let server = "http://lock-busy-\(UUID().uuidString.lowercased()).invalid"
        let result = await withTaskExecutorPreference(Self.executor) {
            await ServiceLock.withLocks(for: [server], timeout: 30) {
                await ServiceLock.withLocks(for: [server + "/api"], timeout: 0.2) { "ran" }
            }
        }
        // The lock is the server's (its origin, port included), whichever path names it.
        #expect(result == .success(.failure(ServiceLock.Busy(server: server + ":80", seconds: 0.2))))
    }
}
