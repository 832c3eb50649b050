/// Reads transcripts back from the JSON Lines ``JSONLinesEncoder`` writes, so that a golden
/// transcript is data: compared event by event, walked through by the docs.
///
/// It inverts the encoding: encoding a decoded record gives the same line again, and decoding
/// an encoded record gives the record back, except for what JSON Lines never keep. A secret,
/// written `•••`, reads back as ``Value/unknownSecret`` (secret, its text never known); a
/// duration, written as its text (`"1.5s"`), reads back as that text; a screen field's checks
/// (required, pattern, lengths) and the device's key-derivation rounds (the header's settings
/// show them) are not written at all. Keys may come in any order; an unknown or missing key, a
/// value of the wrong kind, or a line that is not JSON is a ``TranscriptDecodingError`` naming
/// its line and column.
public struct JSONLinesDecoder: Sendable {
    /// Sub-journeys nest far less deep than this; a deeper record is not one a run wrote.
    static let maximumDepth = 1000

    /// The events a line may hold besides the header.
    static let knownEvents: Set<String> = [
        "journey.start", "journey.end", "subjourney.enter", "subjourney.exit", "step.enter", "screen", "screen.updated",
        "input",
        "input.refused",
        "handler.call", "handler.error", "outcome", "attempt", "state.set", "transition", "restart", "session",
        "clock.advance", "network", "http", "failure",
    ]

    public init() {}

    /// Every record of a transcript, one per line. The last line's newline may be missing; an
    /// empty transcript has no records.
    public func decode(_ transcript: String) throws(TranscriptDecodingError) -> [TranscriptRecord] {
        var records: [TranscriptRecord] = []
        var lineNumber = 0
        var bytes = Array(transcript.utf8)
        if bytes.last == 0x0A { bytes.removeLast() }
        guard !bytes.isEmpty else { return [] }
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            records.append(try decode(Array(line), lineNumber: lineNumber))
        }
        return records
    }

    /// One record from one line (without its newline).
    public func decode(line: String) throws(TranscriptDecodingError) -> TranscriptRecord {
        var bytes = Array(line.utf8)
        if bytes.last == 0x0A { bytes.removeLast() }
        return try decode(bytes, lineNumber: 1)
    }

    private func decode(_ line: [UInt8], lineNumber: Int) throws(TranscriptDecodingError) -> TranscriptRecord {
        do throws(JSONLineError) {
            guard !line.isEmpty else {
                throw JSONLineError(offset: 0, message: "an empty line; each line of a transcript is one event")
            }
            return try Self.record(JSONLineParser.parse(line))
        } catch {
            // The column counts characters, as an editor does, not bytes.
            let column = String(decoding: line[..<min(error.offset, line.count)], as: UTF8.self).count + 1
            throw TranscriptDecodingError(line: lineNumber, column: column, message: error.message)
        }
    }

    static func record(_ node: JSONNode) throws(JSONLineError) -> TranscriptRecord {
        var line = try EventReader(node, "the line")
        let name = try line.string("event")
        if name == "transcript" {
            let header = try Self.header(&line)
            try line.finish()
            return TranscriptRecord(time: 0, depth: 0, event: .header(header))
        }
        guard knownEvents.contains(name) else {
            throw JSONLineError(
                offset: try line.node("event").offset,
                message: "\(JSONLinesEncoder.quoted(name)) is not a transcript event")
        }
        line.what = "the \(JSONLinesEncoder.quoted(name)) event"
        let time = try line.int("t")
        let depthNode = try line.node("depth")
        let depth = try line.int("depth")
        guard (0...maximumDepth).contains(depth) else {
            throw JSONLineError(
                offset: depthNode.offset, message: "'depth' of \(line.what): \(depth) is not from 0 to \(maximumDepth)")
        }
        let event = try Self.event(name, &line)
        try line.finish()
        return TranscriptRecord(time: time, depth: depth, event: event)
    }

    static func event(_ name: String, _ line: inout EventReader) throws(JSONLineError) -> TranscriptEvent {
        switch name {
        case "journey.start":
            return .journeyStart(journey: try line.string("journey"), params: try line.fields("params"))
        case "journey.end":
            return .journeyEnd(
                journey: try line.string("journey"), end: try line.string("end"), kind: try line.choice("kind"),
                steps: try line.int("steps"))
        case "subjourney.enter":
            return .subjourneyEnter(
                journey: try line.string("journey"), step: try line.string("step"), params: try line.fields("params"))
        case "subjourney.exit":
            return .subjourneyExit(
                journey: try line.string("journey"), end: try line.string("end"), kind: try line.choice("kind"),
                outputs: try line.fields("outputs"))
        case "step.enter":
            return .stepEnter(step: try line.string("step"), handler: try line.string("handler"))
        case "screen":
            return .screen(step: try line.string("step"), screen: try screen(&line))
        case "screen.updated":
            return .screenUpdated(step: try line.string("step"), screen: try screen(&line))
        case "input":
            return .input(step: try line.string("step"), values: try line.fields("values"))
        case "input.refused":
            return .inputRefused(
                step: try line.string("step"), values: try line.fields("values"), reason: try line.string("reason"))
        case "handler.call":
            return .handlerCall(
                step: try line.string("step"), handler: try line.string("handler"), params: try line.fields("params"))
        case "handler.error":
            return .handlerError(
                step: try line.string("step"), handler: try line.string("handler"), message: try line.string("error"))
        case "outcome":
            return .outcome(
                step: try line.string("step"), outcome: try line.string("outcome"), data: try line.fields("data"))
        case "attempt":
            return .attempt(
                step: try line.string("step"), limit: try line.string("limit"), action: try line.choice("action"),
                count: try line.int("count"), max: try line.int("max"))
        case "state.set":
            return .stateSet(variable: try line.string("variable"), value: try line.value("value"))
        case "transition":
            return .transition(
                from: try line.string("from"), outcome: try line.string("outcome"), branch: try line.string("branch"),
                to: try line.string("to"))
        case "restart":
            return .restart
        case "session":
            return .session(number: try line.int("session"))
        case "clock.advance":
            return .clockAdvance(milliseconds: try line.int("by"), reason: try line.string("reason"))
        case "network":
            return .network(online: try line.bool("online"))
        case "http":
            return .http(
                step: try line.string("step"), method: try line.string("method"), url: try line.string("url"),
                status: try line.optional("status", EventReader.int),
                error: try line.optional("error", EventReader.string))
        case "failure":
            return .failure(step: try line.optional("step", EventReader.string), message: try line.string("message"))
        default:
            throw JSONLineError(offset: 0, message: "\(JSONLinesEncoder.quoted(name)) is not a transcript event")
        }
    }

    static func header(_ line: inout EventReader) throws(JSONLineError) -> TranscriptEvent.Header {
        line.what = "the header"
        let formatNode = try line.node("format")
        let format = try line.int("format")
        guard format == 1 else {
            throw JSONLineError(
                offset: formatNode.offset, message: "transcript format \(format) is not one this version reads (1)")
        }
        let journey = try line.string("journey")
        let scenario = try line.optional("scenario", EventReader.string)
        let locale = try line.string("locale")
        var device = try EventReader(try line.node("device"), "the header's device")
        let profile = DeviceProfile(
            biometry: try device.choice("biometry"), biometryEnrolled: try device.bool("enrolled"),
            online: try device.bool("online"), apps: try device.strings("apps"),
            opensLinks: try device.optional("opensLinks", EventReader.bool) ?? true,
            trustedCAs: try device.optional("trustedCAs", EventReader.strings) ?? [])
        try device.finish()
        return TranscriptEvent.Header(
            journey: journey, scenario: scenario, locale: locale, device: profile, clock: try line.int("clock"),
            store: try line.fields("store"), settings: try line.optional("settings", EventReader.fields) ?? [])
    }

    static func screen(_ line: inout EventReader) throws(JSONLineError) -> RenderedScreen {
        RenderedScreen(
            title: try line.optional("title", EventReader.string), text: try line.optional("text", EventReader.string),
            actions: try line.optional("actions") { node throws(JSONLineError) in try EventReader.list(node, action) }
                ?? [],
            fields: try line.optional("fields") { node throws(JSONLineError) in try EventReader.list(node, field) }
                ?? [])
    }

    static func action(_ node: JSONNode) throws(JSONLineError) -> RenderedScreen.Action {
        var action = try EventReader(node, "an action")
        let decoded = RenderedScreen.Action(
            id: try action.string("id"), label: try action.string("label"),
            enabled: try action.optional("enabled", EventReader.bool) ?? true)
        try action.finish()
        return decoded
    }

    /// What a field accepts is not written; it reads back as the loader's defaults.
    static func field(_ node: JSONNode) throws(JSONLineError) -> RenderedScreen.Field {
        var field = try EventReader(node, "a field")
        let decoded = RenderedScreen.Field(
            name: try field.string("name"), label: try field.optional("label", EventReader.string),
            kind: try field.choice("kind"), required: true, pattern: nil, minLength: nil, maxLength: nil,
            secret: try field.optional("secret", EventReader.bool) ?? false)
        try field.finish()
        return decoded
    }
}

/// Why a transcript line does not decode, and where (1-based line and column).
public struct TranscriptDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `LINE:COLUMN: message`, to follow a path.
    public var description: String { "\(line):\(column): \(message)" }
}

/// Reads the members of one JSON object, each at most once, and reports a missing key, a value
/// of the wrong kind, or a key left over, at its column.
struct EventReader {
    private let members: [(name: String, keyOffset: Int, node: JSONNode)]
    private let offset: Int
    private var used: Set<String> = []
    /// How messages name the object: "the header", "the \"screen\" event", "an action".
    var what: String

    init(_ node: JSONNode, _ what: String) throws(JSONLineError) {
        guard case .object(let members) = node.kind else {
            throw JSONLineError(offset: node.offset, message: "expected \(what) as an object, found \(node.what)")
        }
        self.members = members
        self.offset = node.offset
        self.what = what
    }

    mutating func node(_ key: String) throws(JSONLineError) -> JSONNode {
        guard let member = members.first(where: { $0.name == key }) else {
            throw JSONLineError(offset: offset, message: "\(what) has no '\(key)'")
        }
        used.insert(key)
        return member.node
    }

    /// Fails on the first key no read asked for.
    func finish() throws(JSONLineError) {
        if let extra = members.first(where: { !used.contains($0.name) }) {
            throw JSONLineError(offset: extra.keyOffset, message: "\(what) has an unknown key '\(extra.name)'")
        }
    }

    /// The value of `key` read by `read`; a problem inside it names the key.
    mutating func read<T>(_ key: String, _ read: (JSONNode) throws(JSONLineError) -> T) throws(JSONLineError) -> T {
        let found = try node(key)
        do throws(JSONLineError) {
            return try read(found)
        } catch {
            throw JSONLineError(offset: error.offset, message: "'\(key)' of \(what): \(error.message)")
        }
    }

    mutating func optional<T>(
        _ key: String, _ read: (JSONNode) throws(JSONLineError) -> T
    ) throws(JSONLineError) -> T? {
        guard members.contains(where: { $0.name == key }) else { return nil }
        return try self.read(key, read)
    }

    mutating func string(_ key: String) throws(JSONLineError) -> String { try read(key, Self.string) }
    mutating func int(_ key: String) throws(JSONLineError) -> Int { try read(key, Self.int) }
    mutating func bool(_ key: String) throws(JSONLineError) -> Bool { try read(key, Self.bool) }
    mutating func strings(_ key: String) throws(JSONLineError) -> [String] { try read(key, Self.strings) }
    mutating func fields(_ key: String) throws(JSONLineError) -> TranscriptEvent.Fields { try read(key, Self.fields) }
    mutating func value(_ key: String) throws(JSONLineError) -> Value { try read(key, Self.value) }

    /// A string that must be one of an enumeration's raw values.
    mutating func choice<T: RawRepresentable & CaseIterable>(
        _ key: String
    ) throws(JSONLineError) -> T where T.RawValue == String {
        try read(key) { node throws(JSONLineError) in
            let text = try Self.string(node)
            guard let choice = T(rawValue: text) else {
                let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
                throw JSONLineError(offset: node.offset, message: "\(node.what) is not one of \(allowed)")
            }
            return choice
        }
    }

    static func string(_ node: JSONNode) throws(JSONLineError) -> String {
        guard case .string(let text) = node.kind else { throw mismatch(node, "text") }
        return text
    }

    static func int(_ node: JSONNode) throws(JSONLineError) -> Int {
        guard case .int(let number) = node.kind else { throw mismatch(node, "a whole number") }
        return number
    }

    static func bool(_ node: JSONNode) throws(JSONLineError) -> Bool {
        guard case .bool(let flag) = node.kind else { throw mismatch(node, "true or false") }
        return flag
    }

    static func list<T>(_ node: JSONNode, _ read: (JSONNode) throws(JSONLineError) -> T) throws(JSONLineError) -> [T] {
        guard case .array(let items) = node.kind else { throw mismatch(node, "a list") }
        var result: [T] = []
        for item in items { result.append(try read(item)) }
        return result
    }

    static func strings(_ node: JSONNode) throws(JSONLineError) -> [String] { try list(node, string) }

    static func fields(_ node: JSONNode) throws(JSONLineError) -> TranscriptEvent.Fields {
        guard case .object(let members) = node.kind else { throw mismatch(node, "an object of names and values") }
        var fields: TranscriptEvent.Fields = []
        for member in members { fields.append(.init(member.name, try value(member.node))) }
        return fields
    }

    /// A value as ``JSONWriter`` writes it: `•••` is a secret whose text is never known.
    static func value(_ node: JSONNode) throws(JSONLineError) -> Value {
        switch node.kind {
        case .string(let text): return text == Value.redacted ? Value.unknownSecret : .string(text)
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .array(let items):
            var values: [Value] = []
            for item in items { values.append(try value(item)) }
            return .list(values)
        case .object, .null, .fraction:
            throw mismatch(node, "a value (text, a whole number, true or false, or a list)")
        }
    }

    static func mismatch(_ node: JSONNode, _ expected: String) -> JSONLineError {
        JSONLineError(offset: node.offset, message: "expected \(expected), found \(node.what)")
    }
}
