import Foundation

/// Renders transcript records as text for people and for code review: one line per event,
/// the virtual time first, sub-journeys indented. Secrets print as `•••`.
public struct TranscriptTextRenderer: Sendable {
    public init() {}

    public func render(_ record: TranscriptRecord) -> String {
        if case .header(let h) = record.event {
            var lines = ["# transcript \(h.journey)"]
            if let scenario = h.scenario { lines[0] += " · scenario \(scenario)" }
            lines[0] += " · locale \(h.locale)"
            let d = h.device
            let biometry =
                d.biometry == .none
                ? "none" : "\(d.biometry.rawValue) (\(d.biometryEnrolled ? "enrolled" : "not enrolled"))"
            let apps = d.apps.isEmpty ? "none" : d.apps.joined(separator: ", ")
            let links = d.opensLinks ? "" : " · links refused"
            let trust = d.trustedCAs.isEmpty ? "" : " · trusts CA \(d.trustedCAs.joined(separator: ", "))"
            lines.append(
                "# device: biometry \(biometry) · \(d.online ? "online" : "offline") · apps: \(apps)\(links)\(trust) · clock \(Self.isoDate(h.clock))"
            )
            lines.append("# store: \(Self.fields(h.store))")
            if !h.settings.isEmpty { lines.append("# settings: \(Self.fields(h.settings))") }
            return lines.joined(separator: "\n") + "\n"
        }
        // A call without parameters says nothing the step line does not; JSON Lines keep it.
        if case .handlerCall(_, _, let params) = record.event, params.isEmpty { return "" }
        let prefix = Self.time(record.time) + " " + String(repeating: "  ", count: record.depth)
        return prefix + body(record.event) + "\n"
    }

    func body(_ event: TranscriptEvent) -> String {
        switch event {
        case .header: return ""
        case .journeyStart(let journey, let params):
            return "▶ start \(journey) \(Self.fields(params))"
        case .journeyEnd(let journey, let end, let kind, let steps):
            return "■ end \(journey) → \(end) (\(kind.rawValue)) after \(steps) step\(steps == 1 ? "" : "s")"
        case .subjourneyEnter(let journey, let step, let params):
            return "↳ call \(journey) from \(step) \(Self.fields(params))"
        case .subjourneyExit(let journey, let end, let kind, let outputs):
            return "↲ return from \(journey): \(end) (\(kind.rawValue)) \(Self.fields(outputs))"
        case .stepEnter(let step, let handler):
            return "→ \(step) [\(handler)]"
        case .screen(_, let screen), .screenUpdated(_, let screen):
            var parts: [String] = []
            let name = event.name == "screen" ? "screen" : "screen updated"
            if let title = screen.title { parts.append("\(name) \(Self.quote(title))") } else { parts.append(name) }
            if let text = screen.text { parts.append("text \(Self.quote(text))") }
            if !screen.actions.isEmpty {
                let actions = screen.actions.map {
                    "\($0.id) \(Self.quote($0.label))\($0.enabled ? "" : " (disabled)")"
                }
                parts.append("actions " + actions.joined(separator: " | "))
            }
            if !screen.fields.isEmpty {
                parts.append("fields " + screen.fields.map { "\($0.name):\($0.kind.rawValue)" }.joined(separator: ", "))
            }
            return "  " + parts.joined(separator: " · ")
        case .input(_, let values):
            return "  input " + values.map { "\($0.name)=\(Self.display($0.value))" }.joined(separator: " ")
        case .inputRefused(_, let values, let reason):
            return "  input refused "
                + values.map { "\($0.name)=\(Self.display($0.value))" }.joined(separator: " ")
                + ": \(PrintableText.escaped(reason))"
        case .handlerCall(_, let handler, let params):
            return "  call \(handler) \(Self.fields(params))"
        case .handlerError(_, let handler, let message):
            return "  ✗ \(handler) failed: \(PrintableText.escaped(message))"
        case .outcome(_, let outcome, let data):
            return data.isEmpty ? "  outcome \(outcome)" : "  outcome \(outcome) \(Self.fields(data))"
        case .attempt(_, let limit, let action, let count, let max):
            return "  attempt \(limit) \(action.rawValue) \(count)/\(max)"
        case .stateSet(let variable, let value):
            return "  set \(variable) = \(Self.display(value))"
        case .transition(let from, let outcome, let branch, let to):
            let via = branch == "always" ? "" : " [\(branch)]"
            return "  \(from) --\(outcome)\(via)--> \(to)"
        case .restart:
            return "⟳ app restarted"
        case .session(let number):
            return "⟳ session \(number): the app is launched again (device store and clock kept)"
        case .http(_, let method, let url, let status, let error):
            let result = status.map(String.init) ?? error.map(PrintableText.escaped) ?? "no response"
            return "  http \(method) \(PrintableText.escaped(url)) → \(result)"
        case .network(let online):
            return online ? "⇄ network back" : "⇄ network gone"
        case .clockAdvance(let ms, let reason):
            return "⏱ +\(Duration.format(milliseconds: ms)) (\(PrintableText.escaped(reason)))"
        case .failure(let step, let message):
            return "✗ failed\(step.map { " at \($0)" } ?? ""): \(PrintableText.escaped(message))"
        }
    }

    static func time(_ ms: Int) -> String {
        let hours = ms / 3_600_000, minutes = (ms / 60_000) % 60, seconds = (ms / 1000) % 60, millis = ms % 1000
        let core = pad(minutes, 2) + ":" + pad(seconds, 2) + "." + pad(millis, 3)
        return hours > 0 ? "\(hours):" + core : core
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func fields(_ pairs: TranscriptEvent.Fields) -> String {
        "{" + pairs.map { "\($0.name): \(display($0.value))" }.joined(separator: ", ") + "}"
    }

    static func display(_ value: Value) -> String {
        switch value {
        case .string(let s): quote(s)
        case .list(let items): "[" + items.map(display).joined(separator: ", ") + "]"
        default: value.displayText
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            default:
                // Controls, and the invisible characters that reorder or hide text.
                if scalar.value < 0x20 || scalar.value == 0x7F || PrintableText.needsEscape(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// An ISO 8601 UTC timestamp for an epoch in milliseconds: `2026-01-01T09:00:00Z`, with
    /// `.SSS` when the time has milliseconds. Computed directly (proleptic Gregorian calendar),
    /// so rendering a transcript never loads a date formatter.
    public static func isoDate(_ ms: Int) -> String {
        let (seconds, millis) = floorDivMod(ms, 1000)
        let (days, secondOfDay) = floorDivMod(seconds, 86_400)
        // Days since 1970-01-01 to year, month, day (Hinnant's civil_from_days).
        let z = days + 719_468
        let era = floorDivMod(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n.magnitude)
            return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if millis != 0 { text += ".\(pad(millis, 3))" }
        return text + "Z"
    }

    private static func floorDivMod(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
