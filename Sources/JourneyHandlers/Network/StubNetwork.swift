import JourneyCore

/// The network of a scenario: canned responses for servers that cannot run here. Stubs are
/// tried in order; a stub with `times` answers that many requests, then steps aside. A
/// request no stub answers fails the step, naming the request (query values redacted).
public final class StubNetwork: NetworkTransport {
    private var stubs: [NetworkStub]
    private var used: [Int]

    public init(stubs: [NetworkStub]) {
        self.stubs = stubs
        self.used = Array(repeating: 0, count: stubs.count)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        for (index, stub) in stubs.enumerated() where stub.matches(request) {
            if let times = stub.times, used[index] >= times { continue }
            used[index] += 1
            return HTTPResponse(status: stub.status, body: stub.body)
        }
        throw NetworkError.failed(
            "the scenario's network has no stub for \(request.method) \(URLRedaction.redact(request.displayURL ?? request.url))"
        )
    }
}
