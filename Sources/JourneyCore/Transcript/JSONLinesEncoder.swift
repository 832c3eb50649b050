/// Writes transcript records as JSON Lines with a fixed key order and no floating point,
/// so that the same run always gives the same bytes. Secrets are written as `"•••"`.
public struct JSONLinesEncoder: Sendable {
    public init() {}

    /// One record as one line of JSON, with its trailing newline.
    public func encode(_ record: TranscriptRecord) -> String {
        var bytes: [UInt8] = []
        encode(record, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one record as one line of JSON (with its newline) to `bytes`; the fast path
    /// for sinks that write or count bytes.
    public func encode(_ record: TranscriptRecord, into bytes: inout [UInt8]) {
        if let encoded = record.encodedEvent {
            // `{"t":T,"depth":D,` and the event's prepared JSON.
            JSONWriter.append(#"{"t":"#, to: &bytes)
            JSONWriter.appendInt(record.time, to: &bytes)
            JSONWriter.append(#","depth":"#, to: &bytes)
            JSONWriter.appendInt(record.depth, to: &bytes)
            bytes.append(0x2C)
            encoded.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
            return
        }
        // The writer borrows the caller's buffer (swapped, never copied) and hands it back.
        var w = JSONWriter()
        swap(&w.buffer, &bytes)
        defer { swap(&w.buffer, &bytes) }
        w.open()
        switch record.event {
        case .header(let h):
            w.name("event")
            w.writeEventName(record.event)
            w.key("format", int: 1)
            w.key("journey", string: h.journey)
            if let scenario = h.scenario { w.key("scenario", string: scenario) }
            w.key("locale", string: h.locale)
            w.name("device")
            w.open()
            w.key("biometry", string: h.device.biometry.rawValue)
            w.key("enrolled", bool: h.device.biometryEnrolled)
            w.key("online", bool: h.device.online)
            w.name("apps")
            w.value(.list(h.device.apps.map(Value.string)))
            if !h.device.opensLinks { w.key("opensLinks", bool: false) }
            if !h.device.trustedCAs.isEmpty {
                w.name("trustedCAs")
                w.value(.list(h.device.trustedCAs.map(Value.string)))
            }
            w.close()
            w.key("clock", int: h.clock)
            w.name("store")
            w.fields(h.store)
            if !h.settings.isEmpty {
                w.name("settings")
                w.fields(h.settings)
            }
            w.close()
            w.newline()
            return
        default:
            w.key("t", int: record.time)
            w.key("depth", int: record.depth)
            w.name("event")
            w.writeEventName(record.event)
        }
        switch record.event {
        case .header: break
        case .journeyStart(let journey, let params):
            w.key("journey", string: journey)
            w.name("params")
            w.fields(params)
        case .journeyEnd(let journey, let end, let kind, let steps):
            w.key("journey", string: journey)
            w.key("end", string: end)
            w.key("kind", string: kind.rawValue)
            w.key("steps", int: steps)
        case .subjourneyEnter(let journey, let step, let params):
            w.key("journey", string: journey)
            w.key("step", string: step)
            w.name("params")
            w.fields(params)
        case .subjourneyExit(let journey, let end, let kind, let outputs):
            w.key("journey", string: journey)
            w.key("end", string: end)
            w.key("kind", string: kind.rawValue)
            w.name("outputs")
            w.fields(outputs)
        case .stepEnter(let step, let handler):
            w.key("step", string: step)
            w.key("handler", string: handler)
        case .screen(let step, let screen), .screenUpdated(let step, let screen):
            w.key("step", string: step)
            if let title = screen.title { w.key("title", string: title) }
            if let text = screen.text { w.key("text", string: text) }
            if !screen.actions.isEmpty {
                w.name("actions")
                w.openArray()
                for action in screen.actions {
                    w.open()
                    w.key("id", string: action.id)
                    w.key("label", string: action.label)
                    if !action.enabled { w.key("enabled", bool: false) }
                    w.close()
                }
                w.closeArray()
            }
            if !screen.fields.isEmpty {
                w.name("fields")
                w.openArray()
                for field in screen.fields {
                    w.open()
                    w.key("name", string: field.name)
                    if let label = field.label { w.key("label", string: label) }
                    w.key("kind", string: field.kind.rawValue)
                    if field.secret { w.key("secret", bool: true) }
                    w.close()
                }
                w.closeArray()
            }
        case .input(let step, let values):
            w.key("step", string: step)
            w.name("values")
            w.fields(values)
        case .inputRefused(let step, let values, let reason):
            w.key("step", string: step)
            w.name("values")
            w.fields(values)
            w.key("reason", string: reason)
        case .handlerCall(let step, let handler, let params):
            w.key("step", string: step)
            w.key("handler", string: handler)
            w.name("params")
            w.fields(params)
        case .handlerError(let step, let handler, let message):
            w.key("step", string: step)
            w.key("handler", string: handler)
            w.key("error", string: message)
        case .outcome(let step, let outcome, let data):
            w.key("step", string: step)
            w.key("outcome", string: outcome)
            w.name("data")
            w.fields(data)
        case .attempt(let step, let limit, let action, let count, let max):
            w.key("step", string: step)
            w.key("limit", string: limit)
            w.key("action", string: action.rawValue)
            w.key("count", int: count)
            w.key("max", int: max)
        case .stateSet(let variable, let value):
            w.key("variable", string: variable)
            w.name("value")
            w.value(value)
        case .transition(let from, let outcome, let branch, let to):
            w.key("from", string: from)
            w.key("outcome", string: outcome)
            w.key("branch", string: branch)
            w.key("to", string: to)
        case .restart:
            break
        case .session(let number):
            w.key("session", int: number)
        case .http(let step, let method, let url, let status, let error):
            w.key("step", string: step)
            w.key("method", string: method)
            w.key("url", string: url)
            if let status { w.key("status", int: status) }
            if let error { w.key("error", string: error) }
        case .clockAdvance(let ms, let reason):
            w.key("by", int: ms)
            w.key("reason", string: reason)
        case .network(let online):
            w.key("online", bool: online)
        case .failure(let step, let message):
            if let step { w.key("step", string: step) }
            w.key("message", string: message)
        }
        w.close()
        w.newline()
    }
}

extension JSONLinesEncoder {
    /// `text` as a JSON string literal, quotes included, escaped as transcripts escape it.
    public static func quoted(_ text: String) -> String {
        var w = JSONWriter()
        w.writeString(text)
        return w.output
    }

    /// The JSON of `event` after `"depth":N,`, newline included: what a record carries as
    /// its ``TranscriptRecord/encodedEvent`` for events prepared ahead of a run.
    static func encodedEvent(_ event: TranscriptEvent) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONLinesEncoder().encode(TranscriptRecord(time: 0, depth: 0, event: event), into: &bytes)
        let prefix = Array(#"{"t":0,"depth":0,"#.utf8)
        precondition(bytes.starts(with: prefix), "a prepared event starts with its time and depth")
        return Array(bytes[prefix.count...])
    }
}

extension JSONWriter {
    /// Writes an event's fields as an object, in their order.
    mutating func fields(_ pairs: TranscriptEvent.Fields) {
        open()
        for pair in pairs {
            name(pair.name)
            value(pair.value)
        }
        close()
    }

    /// Writes the event's name (always plain ASCII) as the next value.
    mutating func writeEventName(_ event: TranscriptEvent) {
        beginValue()
        buffer.append(UInt8(ascii: "\""))
        buffer.append(contentsOf: event.name.utf8)
        buffer.append(UInt8(ascii: "\""))
    }
}

extension TranscriptEvent {
    /// Whether `body` is true of a text the event's JSON line holds in one of its strings, as
    /// ``JSONLinesEncoder`` writes them before escaping: the names and values of its fields, its
    /// steps, handlers and outcomes, a screen's texts and ids, a message, a URL. A secret is the
    /// `"•••"` the line writes for it; numbers and booleans are not texts. The keys and the event
    /// name that every line of its kind writes are left out: no run chose them. Stops at the
    /// first text `body` is true of.
    func containsText(where body: (String) -> Bool) -> Bool {
        func holds(_ value: Value) -> Bool {
            switch value {
            case .string(let text): body(text)
            case .duration: body(value.displayText)
            case .secret: body(Value.redacted)
            case .list(let items): items.contains(where: holds)
            case .int, .bool: false
            }
        }
        func fields(_ pairs: Fields) -> Bool {
            pairs.contains { body($0.name) || holds($0.value) }
        }
        switch self {
        case .header(let h):
            return body(h.journey) || (h.scenario.map(body) ?? false) || body(h.locale)
                || body(h.device.biometry.rawValue) || h.device.apps.contains(where: body)
                || h.device.trustedCAs.contains(where: body) || fields(h.store) || fields(h.settings)
        case .journeyStart(let journey, let params): return body(journey) || fields(params)
        case .journeyEnd(let journey, let end, let kind, _): return body(journey) || body(end) || body(kind.rawValue)
        case .subjourneyEnter(let journey, let step, let params): return body(journey) || body(step) || fields(params)
        case .subjourneyExit(let journey, let end, let kind, let outputs):
            return body(journey) || body(end) || body(kind.rawValue) || fields(outputs)
        case .stepEnter(let step, let handler): return body(step) || body(handler)
        case .screen(let step, let screen), .screenUpdated(let step, let screen):
            return body(step) || (screen.title.map(body) ?? false) || (screen.text.map(body) ?? false)
                || screen.actions.contains { body($0.id) || body($0.label) }
                || screen.fields.contains { body($0.name) || ($0.label.map(body) ?? false) || body($0.kind.rawValue) }
        case .input(let step, let values): return body(step) || fields(values)
        case .inputRefused(let step, let values, let reason): return body(step) || fields(values) || body(reason)
        case .handlerCall(let step, let handler, let params): return body(step) || body(handler) || fields(params)
        case .handlerError(let step, let handler, let message): return body(step) || body(handler) || body(message)
        case .outcome(let step, let outcome, let data): return body(step) || body(outcome) || fields(data)
        case .attempt(let step, let limit, let action, _, _): return body(step) || body(limit) || body(action.rawValue)
        case .stateSet(let variable, let stored): return body(variable) || holds(stored)
        case .transition(let from, let outcome, let branch, let to):
            return body(from) || body(outcome) || body(branch) || body(to)
        case .restart, .session, .network: return false
        case .http(let step, let method, let url, _, let error):
            return body(step) || body(method) || body(url) || (error.map(body) ?? false)
        case .clockAdvance(_, let reason): return body(reason)
        case .failure(let step, let message): return (step.map(body) ?? false) || body(message)
        }
    }
}
