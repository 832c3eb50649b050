import Foundation
import JourneyCore
import JourneyHandlers
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

    /// A transport that asks, while it answers, whether its server's lock is free.
    final class Probe: NetworkTransport, @unchecked Sendable {
        private(set) var lockFree: [String: Bool] = [:]

        nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let free = await ServiceLock.withLocks(for: [request.url], timeout: 0) { true }
            lockFree[request.url] = (try? free.get()) ?? false
            return HTTPResponse(status: 200)
        }
    }

    @Test func aPlayedRequestToANeededServerHoldsItsLockAndOthersGoStraightThrough() async throws {
        let id = UUID().uuidString.lowercased()
        let needed = "http://lock-play-\(id).invalid", other = "http://lock-other-\(id).invalid"
        let probe = Probe()
        let network = ServiceLockedNetwork(probe, services: [needed + "/api/oidc/.well-known/openid-configuration"])
        try await withTaskExecutorPreference(Self.executor) {
            _ = try await network.send(HTTPRequest(method: "POST", url: needed + "/api/oidc/token"))
            _ = try await network.send(HTTPRequest(method: "GET", url: other + "/api"))
        }
        #expect(probe.lockFree == [needed + "/api/oidc/token": false, other + "/api": true])
        // Sent, the lock is free again.
        let after = await ServiceLock.withLocks(for: [needed], timeout: 0) { true }
        #expect((try? after.get()) == true)
    }

    @Test func aPlayedRequestToAServerKeptBusyFailsWithoutBeingSent() async {
        let server = "http://lock-kept-\(UUID().uuidString.lowercased()).invalid"
        let probe = Probe()
        let network = ServiceLockedNetwork(probe, services: [server], timeout: 0.2)
        let failure = await withTaskExecutorPreference(Self.executor) {
            await ServiceLock.withLocks(for: [server], timeout: 30) { () async -> NetworkError? in
                do {
                    _ = try await network.send(HTTPRequest(method: "GET", url: server + "/api"))
                    return nil
                } catch {
                    return error as? NetworkError
                }
            }
        }
        guard case .success(.failed(let message)?) = failure else {
            Issue.record("the request must fail: \(failure)")
            return
        }
        #expect(message.contains("waited 0 s for \(server):80"), "\(message)")
        #expect(probe.lockFree.isEmpty, "the request must not be sent")
    }

    /// A person playing a scenario that needs a live service (`journey play --from`) plays on a
    /// network that takes the service's lock for each request to it; its stubs answer unlocked.
    @Test func aScenarioPlayedLiveTakesItsServicesLockPerRequest() throws {
        let journey = """
            journey: t.ping
            version: 1
            title: Ping
            start: ping
            steps:
              ping:
                handler: http.request
                with: { method: GET, url: "http://lock-live.invalid/api/ping" }
                on: { ok: done, failed: done, offline: done }
            ends:
              done: { kind: success }
            """
        let scenario = """
            scenario: s
            journey: t.ping
            needs: ["http://lock-live.invalid/api"]
            network:
              - { request: GET http://stubbed.invalid/x, response: { status: 200 } }
            script: []
            expect: { end: done }
            """
        let (compiled, library) = try compiled(journey: journey, scenario: scenario)
        let runner = ScenarioRunner(services: BuiltinHandlers.services)
        let explorer = try runner.explorer(from: compiled, in: library, bounds: .init(), live: true)
        let network = try #require(explorer.network?([]))
        #expect(network is ServiceLockedNetwork, "\(type(of: network))")
        // What it sends the service is drawn from the system's secure generator (a state, a
        // nonce, a PKCE verifier a person's play sends must not be the same every time), and
        // what it issues is checked against the real time.
        #expect(explorer.random == .system && explorer.wallClock == .system)
        // Explored (not live), a scenario that needs a service is refused, as before.
        #expect(throws: ScenarioRunner.SetupError.self) {
            try runner.explorer(from: compiled, in: library, bounds: .init())
        }
    }
}
