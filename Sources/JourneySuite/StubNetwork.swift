import JourneyCore

/// The network of a scenario: canned responses for servers that cannot run here. Stubs are
/// tried in order; a stub with `times` answers that many requests, then steps aside. A
/// request no stub answers fails the step, naming the request (query values redacted).
public final class StubNetwork: CountingNetwork {
    private var stubs: [NetworkStub]
    private var used: [Int]

    /// `answered`: how many answers each stub has given already (a server that has been asked
    /// before); none by default.
    public init(stubs: [NetworkStub], answered: [Int] = []) {
        self.stubs = stubs
        self.used = answered.count == stubs.count ? answered : Array(repeating: 0, count: stubs.count)
    }

    /// The answers given by the stubs that give a number of `times` (the others answer alike
    /// however often they are asked, so their count tells nothing).
    public var answered: [Int] { zip(stubs, used).map { $0.times == nil ? 0 : $1 } }

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // The first stub whose method, URL and match hold, and which has answers left. Of the
        // others, the first whose method and URL hold is the closest: the failure names it and
        // what differed (by name, never by value).
        var closest: (stub: NetworkStub, difference: String)?
        for (index, stub) in stubs.enumerated() where stub.matchesLine(request) {
            if let times = stub.times, used[index] >= times {
                if closest == nil { closest = (stub, "no more answers (times: \(times))") }
                continue
            }
            if let match = stub.match, let difference = RequestMatcher.difference(request, match) {
                if closest == nil { closest = (stub, "wants \(difference)") }
                continue
            }
            used[index] += 1
            return HTTPResponse(status: stub.status, body: stub.body)
        }
        let shown = "\(request.method) \(URLRedaction.redact(request.displayURL ?? request.url))"
        guard let closest else { throw NetworkError.unstubbed("the scenario's network has no stub for \(shown)") }
        throw NetworkError.unstubbed(
            "no stub of the scenario's network answers \(shown): the closest, at \(closest.stub.location), \(closest.difference)"
        )
    }
}

/// The network of a scenario that has stubs and also `needs` live services: requests to a
/// needed service's origin (scheme, host and port) go to the real network, the rest to the
/// stubs. An OAuth journey can so sign in at a real provider while an API that cannot run
/// here answers from the scenario.
public final class RoutingNetwork: CountingNetwork {
    private let live: any NetworkTransport
    private let stubs: StubNetwork
    private let origins: [String]

    public init(live: any NetworkTransport, stubs: StubNetwork, liveServices: [String]) {
        self.live = live
        self.stubs = stubs
        self.origins = liveServices.compactMap(URLOrigin.of)
    }

    /// What the stubs have answered: the live services keep their own state.
    public var answered: [Int] { stubs.answered }

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let origin = URLOrigin.of(request.url), origins.contains(origin) { return try await live.send(request) }
        return try await stubs.send(request)
    }
}
