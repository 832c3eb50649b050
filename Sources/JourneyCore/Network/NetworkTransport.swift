/// An HTTP request a handler sends. JourneyCore only describes requests; a transport sends
/// them (scenario stubs in tests, a real client in an app or in JourneyHandlers).
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: String
    public var headers: [Header]
    public var body: String?
    /// What transcripts show as the URL: by default the URL itself (its query values are
    /// always redacted); handlers pass a form with secrets masked when the path holds one.
    public var displayURL: String?
    /// Public-key pins (``KeyPin``): when given, the request is sent only over TLS to a server
    /// whose verified certificate chain holds one of these keys, as iOS's `NSPinnedDomains`
    /// asks; otherwise nothing is sent and the transport throws ``NetworkError/pinMismatch(_:)``.
    public var pins: [String] = []
    /// Certificate authorities the device trusts besides the system's, by their ``KeyPin``
    /// (a profile installed on a test phone); the run sets them from the device.
    public var trustedCAs: [String] = []

    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(method: String, url: String, headers: [Header] = [], body: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var body: String
    /// Response headers with lowercased names (a redirect's `location`, say). Never recorded.
    public var headers: [String: String]

    public init(status: Int, body: String = "", headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }
}

/// Sends requests for handlers. Implementations decide what "the network" is. `send` runs on
/// its caller's executor, as the handler that calls it does.
public protocol NetworkTransport: AnyObject {
    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// A network whose next answer depends on the answers it gave before (a scenario's stubs, each
/// answering a number of `times`): `journey explore` carries what it has answered as part of
/// every explored situation, so that a path sees the server its own requests made.
public protocol CountingNetwork: NetworkTransport {
    /// How many of its limited answers each of its answers has given, in a fixed order.
    var answered: [Int] { get }
}

/// Why a request got no response.
public enum NetworkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The simulated device is offline.
    case offline
    /// No transport was given to the run.
    case noTransport
    /// The transport could not deliver the request (refused, timed out).
    case failed(String)
    /// The scenario's stubs have no answer for the request: a mistake in the scenario, not
    /// a state of the network, so the run fails the step instead of a handler seeing it.
    case unstubbed(String)
    /// The request has pins and the server's certificate chain holds none of their keys (or the
    /// URL is not https): the connection was dropped after the handshake, before the request.
    case pinMismatch(String)

    public var description: String {
        switch self {
        case .offline: "the device is offline"
        case .noTransport: "this run has no network"
        case .failed(let message), .unstubbed(let message), .pinMismatch(let message): message
        }
    }
}
