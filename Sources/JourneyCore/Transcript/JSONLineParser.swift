/// A JSON value read from one transcript line, with the byte offset in the line where it
/// starts, so that a decoding problem can name its column.
struct JSONNode {
    enum Kind {
        /// Members in the order written (a transcript's fields keep their order), each with
        /// the offset of its key.
        case object([(name: String, keyOffset: Int, node: JSONNode)])
        case array([JSONNode])
        case string(String)
        case int(Int)
        case bool(Bool)
        case null
        /// A number with a fraction or an exponent, as written; only where the parser is told
        /// to take them (``JSONLineParser/parse(_:fractions:)``).
        case fraction(String)
    }

    var kind: Kind
    var offset: Int

    /// How messages name the kind of value found.
    var what: String {
        switch kind {
        case .object: "an object"
        case .array: "a list"
        case .string(let text): JSONLinesEncoder.quoted(text.count > 40 ? text.prefix(39) + "…" : text)
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .fraction(let text): text
        }
    }
}

/// Why a line is not a transcript event, and where: a byte offset into the line.
struct JSONLineError: Error {
    var offset: Int
    var message: String
}

/// Parses one line of JSON: objects, lists, strings, integers, booleans and null (transcripts
/// hold no floating point). Nesting is bounded, so no line can exhaust the stack.
struct JSONLineParser {
    static let maximumNesting = 64

    private let bytes: [UInt8]
    private var position = 0
    private var nesting = 0
    private let fractions: Bool
    /// What a line holds, for messages: a transcript's event, or a handler program's message.
    private let subject: String

    private init(_ bytes: [UInt8], fractions: Bool, subject: String) {
        self.bytes = bytes
        self.fractions = fractions
        self.subject = subject
    }

    /// The line's one value; anything but whitespace after it is an error. Numbers with a
    /// fraction or an exponent are an error too, unless `fractions` (they are then kept as
    /// written). `subject` names what a line is in messages: a transcript's `event` unless told.
    static func parse(
        _ line: [UInt8], fractions: Bool = false, subject: String = "event"
    ) throws(JSONLineError) -> JSONNode {
        var parser = JSONLineParser(line, fractions: fractions, subject: subject)
        parser.skipWhitespace()
        let node = try parser.value()
        parser.skipWhitespace()
        guard parser.position == line.count else {
            throw JSONLineError(
                offset: parser.position, message: "unexpected text after the \(subject)'s closing brace")
        }
        return node
    }

    private var atEnd: Bool { position >= bytes.count }

    private func fail(_ message: String, at offset: Int? = nil) -> JSONLineError {
        JSONLineError(offset: offset ?? position, message: message)
    }

    private var endOfLine: JSONLineError {
        fail(
            "the line ends in the middle of the \(subject)"
                + (subject == "event" ? " (a truncated or hand-edited line?)" : ""))
    }

    private mutating func skipWhitespace() {
        while !atEnd, [0x20, 0x09, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONLineError) {
        skipWhitespace()
        guard !atEnd else { throw endOfLine }
        guard bytes[position] == byte else { throw fail("expected \(what)") }
        position += 1
    }

    private mutating func value() throws(JSONLineError) -> JSONNode {
        skipWhitespace()
        guard !atEnd else { throw endOfLine }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"): return JSONNode(kind: try object(), offset: start)
        case UInt8(ascii: "["): return JSONNode(kind: try array(), offset: start)
        case UInt8(ascii: "\""): return JSONNode(kind: .string(try string()), offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(kind: try number(), offset: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(kind: .bool(true), offset: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(kind: .bool(false), offset: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(kind: .null, offset: start)
        default: throw fail("expected a JSON value")
        }
    }

    private mutating func nest() throws(JSONLineError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw fail(
                "values nest more than \(Self.maximumNesting) deep"
                    + (subject == "event" ? ", more than any transcript does" : ""))
        }
    }

    private mutating func object() throws(JSONLineError) -> JSONNode.Kind {
        var members: [(name: String, keyOffset: Int, node: JSONNode)] = []
        try elements(closedBy: "}") { parser throws(JSONLineError) in
            parser.skipWhitespace()
            guard !parser.atEnd else { throw parser.endOfLine }
            guard parser.bytes[parser.position] == UInt8(ascii: "\"") else {
                throw parser.fail("expected a quoted key")
            }
            let keyStart = parser.position
            let name = try parser.string()
            if members.contains(where: { $0.name == name }) {
                throw parser.fail("the key \(JSONLinesEncoder.quoted(name)) appears twice", at: keyStart)
            }
            try parser.expect(UInt8(ascii: ":"), "':' after a key")
            members.append((name, keyStart, try parser.value()))
        }
        return .object(members)
    }

    private mutating func array() throws(JSONLineError) -> JSONNode.Kind {
        var items: [JSONNode] = []
        try elements(closedBy: "]") { parser throws(JSONLineError) in items.append(try parser.value()) }
        return .array(items)
    }

    /// The elements of an object or a list, from its opening bracket to `closing`, each read by
    /// `element` and separated by commas.
    private mutating func elements(
        closedBy closing: Unicode.Scalar, _ element: (inout JSONLineParser) throws(JSONLineError) -> Void
    ) throws(JSONLineError) {
        try nest()
        position += 1
        skipWhitespace()
        if !atEnd, bytes[position] == UInt8(ascii: closing) {
            position += 1
            nesting -= 1
            return
        }
        while true {
            try element(&self)
            skipWhitespace()
            guard !atEnd else { throw endOfLine }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: closing) else { throw fail("expected ',' or '\(closing)'") }
            position += 1
            nesting -= 1
            return
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONLineError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count,
            bytes[position..<(position + expected.count)].elementsEqual(expected)
        else { throw fail("expected a JSON value") }
        position += expected.count
    }

    private mutating func number() throws(JSONLineError) -> JSONNode.Kind {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        let digits = position - digitsStart
        guard digits > 0 else { throw fail("expected digits", at: digitsStart) }
        guard digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else {
            throw fail("a number with a leading zero is not JSON", at: start)
        }
        if !atEnd, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) {
            if fractions { return try fraction(from: start) }
            throw fail("a number with a fraction or an exponent; transcripts hold whole numbers only", at: start)
        }
        guard let number = Int(String(decoding: bytes[start..<position], as: UTF8.self)) else {
            throw fail("the number is too large", at: start)
        }
        return .int(number)
    }

    /// The rest of a number after its whole part: `.digits`, then `e`, a sign and digits.
    private mutating func fraction(from start: Int) throws(JSONLineError) -> JSONNode.Kind {
        func digits() throws(JSONLineError) {
            let first = position
            while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > first else { throw fail("expected digits", at: first) }
        }
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            try digits()
        }
        if !atEnd, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            try digits()
        }
        return .fraction(String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func string() throws(JSONLineError) -> String {
        let start = position
        position += 1
        var text: [UInt8] = []
        while true {
            guard !atEnd else { throw endOfLine }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                let string = String(decoding: text, as: UTF8.self)
                guard string.utf8.elementsEqual(text) else { throw fail("the text is not valid UTF-8", at: start) }
                return string
            case UInt8(ascii: "\\"):
                position += 1
                try escape(into: &text)
            case 0..<0x20:
                throw fail("a control character in a string must be escaped")
            default:
                text.append(byte)
                position += 1
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(JSONLineError) {
        guard !atEnd else { throw endOfLine }
        let escapeStart = position - 1
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A surrogate pair: the low half must follow as its own escape.
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw fail("an unpaired surrogate escape", at: escapeStart) }
                position += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw fail("an unpaired surrogate escape", at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw fail("an unpaired surrogate escape", at: escapeStart)
            }
            text.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw fail("an unknown escape", at: escapeStart)
        }
    }

    private mutating func hex4() throws(JSONLineError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw endOfLine }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
