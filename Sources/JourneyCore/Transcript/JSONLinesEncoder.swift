/// Writes transcript records as JSON Lines with a fixed key order and no floating point,
/// so that the same run always gives the same bytes. Secrets are written as `"•••"`.
public struct JSONLinesEncoder: Sendable {
    public init() {}

    /// One record as one line of JSON, with its trailing newline.
    public func encode(_ record: TranscriptRecord) -> String {
        var w = JSONWriter()
        w.open()
        switch record.event {
        case .header(let h):
            w.key("event", string: record.event.name)
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
            w.close()
            w.key("clock", int: h.clock)
            w.name("store")
            w.fields(h.store)
            if !h.settings.isEmpty {
                w.name("settings")
                w.fields(h.settings)
            }
            w.close()
            return w.output + "\n"
        default:
            w.key("t", int: record.time)
            w.key("depth", int: record.depth)
            w.key("event", string: record.event.name)
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
        case .screen(let step, let screen):
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
        case .http(let step, let method, let url, let status, let error):
            w.key("step", string: step)
            w.key("method", string: method)
            w.key("url", string: url)
            if let status { w.key("status", int: status) }
            if let error { w.key("error", string: error) }
        case .clockAdvance(let ms, let reason):
            w.key("by", int: ms)
            w.key("reason", string: reason)
        case .failure(let step, let message):
            if let step { w.key("step", string: step) }
            w.key("message", string: message)
        }
        w.close()
        return w.output + "\n"
    }
}

/// A minimal JSON writer: objects, arrays, strings, integers, booleans.
struct JSONWriter {
    var output = ""
    /// Per open container: whether the next member needs a comma first.
    private var needsComma: [Bool] = [false]
    /// True right after `name(_:)`: the next value completes that member.
    private var afterName = false

    init() { output.reserveCapacity(128) }

    private mutating func beginValue() {
        if afterName {
            afterName = false
            return
        }
        if needsComma[needsComma.count - 1] { output.append(",") }
        needsComma[needsComma.count - 1] = true
    }

    mutating func open() {
        beginValue()
        output.append("{")
        needsComma.append(false)
    }

    mutating func close() {
        output.append("}")
        needsComma.removeLast()
    }

    mutating func openArray() {
        beginValue()
        output.append("[")
        needsComma.append(false)
    }

    mutating func closeArray() { close0("]") }

    private mutating func close0(_ bracket: String) {
        output.append(bracket)
        needsComma.removeLast()
    }

    /// Writes `"name":`; the value written next completes the member.
    mutating func name(_ name: String) {
        beginValue()
        writeString(name)
        output.append(":")
        afterName = true
    }

    mutating func key(_ name: String, string: String) {
        self.name(name)
        value(.string(string))
    }

    mutating func key(_ name: String, int: Int) {
        self.name(name)
        value(.int(int))
    }

    mutating func key(_ name: String, bool: Bool) {
        self.name(name)
        value(.bool(bool))
    }

    mutating func fields(_ pairs: TranscriptEvent.Fields) {
        open()
        for pair in pairs {
            name(pair.name)
            value(pair.value)
        }
        close()
    }

    mutating func value(_ value: Value) {
        beginValue()
        writeValue(value)
    }

    /// Writes already-encoded JSON (a number, `true`, `null`) as the next value.
    mutating func raw(_ json: String) {
        beginValue()
        output.append(json)
    }

    private mutating func writeValue(_ value: Value) {
        switch value {
        case .string(let s): writeString(s)
        case .int(let i): output.append(String(i))
        case .bool(let b): output.append(b ? "true" : "false")
        case .duration: writeString(value.displayText)
        case .secret: writeString(Value.redacted)
        case .list(let items):
            output.append("[")
            for (i, item) in items.enumerated() {
                if i > 0 { output.append(",") }
                writeValue(item)
            }
            output.append("]")
        }
    }

    mutating func writeString(_ s: String) {
        output.append("\"")
        var plain = true
        for u in s.utf8 where u < 0x20 || u == 0x22 || u == 0x5C {
            plain = false
            break
        }
        if plain {
            output.append(s)
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": output.append("\\\"")
                case "\\": output.append("\\\\")
                case "\n": output.append("\\n")
                case "\r": output.append("\\r")
                case "\t": output.append("\\t")
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                    } else {
                        output.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        output.append("\"")
    }
}
