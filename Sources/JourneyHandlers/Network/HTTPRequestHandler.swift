import Foundation
import JourneyCore

/// `http.request`: one HTTP call. 2xx gives `ok`, other statuses `failed`, and no network
/// `offline`. `captures` pick values out of a JSON response by path (`a.b`, `items[0].id`,
/// `banks[*].name` for a list; a trailing `?` makes it optional, giving "" when absent),
/// readable as `outcome.NAME`; `outcome.status` is the status. A capture written
/// `{ path, type, secret }` has its declared type: a response holding another JSON type there
/// fails the step, naming the capture, the path and both types.
public struct HTTPRequestHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "http.request",
        summary: "An HTTP call: `ok` (2xx), `failed` (other status) or `offline`; `captures` read the JSON response.",
        parameters: [
            ParameterSpec(
                name: "method", kind: .value(TypeInfo(.string)), defaultValue: .string("GET"), summary: "the method"),
            ParameterSpec(
                name: "url", kind: .value(TypeInfo(.string)), required: true,
                summary: "the URL; parts computed from secrets are shown as •••", mayBeSecret: true),
            ParameterSpec(
                name: "headers", kind: .value(TypeInfo(.list, secret: true)), defaultValue: .list([]),
                summary: "headers as `Name: value` texts; transcripts show their names only, never a value",
                shown: { .list(HTTPRequestHandler.headerNames($0).map(Value.string)) }),
            ParameterSpec(
                name: "body", kind: .value(TypeInfo(.string, secret: true)),
                summary: "the request body; transcripts show its size only, never its content",
                shown: { body in
                    guard case .string(let text) = body.revealed else { return .string(Value.redacted) }
                    return .string("\(text.utf8.count) bytes")
                }),
            ParameterSpec(
                name: "captures", kind: .captures,
                summary:
                    "outcome name → JSON path in the response (`processId`, `items[0].id`, `banks[*].name`; a trailing `?` makes it optional), or `{ path, type, secret }` with a type of string, int, bool or list that `journey check` types `outcome.NAME` by",
                keys: .id),
            ParameterSpec(
                name: "secret", kind: .value(TypeInfo(.list)), defaultValue: .list([]),
                summary: "capture names whose values are secret (tokens, codes)"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "ok", summary: "a 2xx response, with `outcome.status` and each capture as `outcome.NAME`",
                data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(
                name: "failed", summary: "any other status", data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(name: "offline", summary: "no response: the device is offline or the server unreachable"),
        ],
        // The captures only add data to `ok`.
        refinedOutcomes: [],
        refine: { shape, contract in
            let secrets: Set<String> =
                if case .list(let items)? = shape.constants["secret"] {
                    Set(items.compactMap { if case .string(let s) = $0 { s } else { nil } })
                } else { [] }
            let captures = (shape.captures["captures"] ?? []).map {
                DataSpec(
                    name: $0.name, type: TypeInfo($0.typeInfo.type, secret: $0.secret || secrets.contains($0.name)))
            }
            if let i = contract.outcomes.firstIndex(where: { $0.name == "ok" }) {
                contract.outcomes[i].data += captures
            }
        })

    /// The names of headers written `Name: value`; what transcripts show of them.
    static func headerNames(_ headers: Value) -> [String] {
        guard case .list(let items) = headers.revealed else { return [] }
        return items.map { item in
            guard case .string(let line) = item.revealed, let colon = line.firstIndex(of: ":") else {
                return Value.redacted
            }
            return line[..<colon].trimmingCharacters(in: .whitespaces)
        }
    }

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let url = try invocation.text("url")
        let method = (try? invocation.text("method")) ?? "GET"
        var headers: [HTTPRequest.Header] = []
        if case .list(let items)? = invocation[parameter: "headers"]?.revealed {
            for case .string(let line) in items {
                guard let colon = line.firstIndex(of: ":") else {
                    throw HandlerError("a header of step '\(invocation.step)' is not 'Name: value'")
                }
                headers.append(
                    .init(
                        String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        let body: String? = if case .string(let b)? = invocation[parameter: "body"]?.revealed { b } else { nil }
        let response: HTTPResponse
        do {
            var request = HTTPRequest(method: method, url: url, headers: headers, body: body)
            request.displayURL =
                invocation.displays["url"] ?? (invocation[parameter: "url"]?.isSecret == true ? "•••" : nil)
            response = try await context.send(request)
        } catch is NetworkError {
            return HandlerResult("offline")
        }
        guard (200..<300).contains(response.status) else {
            return HandlerResult("failed", data: ["status": .int(response.status)])
        }
        var data: [String: Value] = ["status": .int(response.status)]
        let captures = invocation.captures["captures"] ?? []
        if !captures.isEmpty {
            guard
                let json = try? JSONSerialization.jsonObject(
                    with: Data(response.body.utf8), options: [.fragmentsAllowed])
            else { throw HandlerError("the response to step '\(invocation.step)' is not JSON") }
            for capture in captures {
                switch capture.read(from: json) {
                case .value(let value): data[capture.name] = value
                case .failure(let reason):
                    throw HandlerError("the response to step '\(invocation.step)' \(reason)")
                }
            }
        }
        return HandlerResult("ok", data: data)
    }
}
