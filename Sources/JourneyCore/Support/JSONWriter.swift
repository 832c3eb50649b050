/// A minimal JSON writer into a byte buffer: objects, arrays, strings, integers, booleans.
struct JSONWriter {
    var buffer: [UInt8]
    /// One bit per open container (bit 0 the outermost level): whether its next member needs
    /// a comma first. Transcript events nest only a few levels deep.
    private var commas: UInt64 = 0
    private var depth = 0
    /// True right after `name(_:)`: the next value completes that member.
    private var afterName = false

    init() {
        self.buffer = []
    }

    /// The JSON written so far, as text.
    var output: String { String(decoding: buffer, as: UTF8.self) }

    mutating func newline() { buffer.append(0x0A) }

    mutating func beginValue() {
        if afterName {
            afterName = false
            return
        }
        let bit: UInt64 = 1 << UInt64(depth)
        if commas & bit != 0 { buffer.append(UInt8(ascii: ",")) }
        commas |= bit
    }

    private mutating func push() {
        depth += 1
        commas &= ~(1 << UInt64(depth))
    }

    private mutating func pop() {
        depth -= 1
    }

    mutating func open() {
        beginValue()
        buffer.append(UInt8(ascii: "{"))
        push()
    }

    mutating func close() {
        buffer.append(UInt8(ascii: "}"))
        pop()
    }

    mutating func openArray() {
        beginValue()
        buffer.append(UInt8(ascii: "["))
        push()
    }

    mutating func closeArray() {
        buffer.append(UInt8(ascii: "]"))
        pop()
    }

    /// Writes `"name":`; the value written next completes the member.
    mutating func name(_ name: String) {
        beginValue()
        writeString(name)
        buffer.append(UInt8(ascii: ":"))
        afterName = true
    }

    /// Writes `"name":` for a name fixed in the source, which never needs escaping.
    mutating func name(_ name: StaticString) {
        beginValue()
        buffer.append(UInt8(ascii: "\""))
        buffer.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        buffer.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        afterName = true
    }

    mutating func key(_ name: StaticString, string: String) {
        self.name(name)
        beginValue()
        writeString(string)
    }

    mutating func key(_ name: StaticString, int: Int) {
        self.name(name)
        beginValue()
        writeInt(int)
    }

    mutating func key(_ name: StaticString, bool: Bool) {
        self.name(name)
        beginValue()
        buffer.append(contentsOf: bool ? "true".utf8 : "false".utf8)
    }

    mutating func value(_ value: Value) {
        beginValue()
        writeValue(value)
    }

    /// Writes already-encoded JSON (a number, `true`, `null`) as the next value.
    mutating func raw(_ json: String) {
        beginValue()
        buffer.append(contentsOf: json.utf8)
    }

    private mutating func writeValue(_ value: Value) {
        switch value {
        case .string(let s): writeString(s)
        case .int(let i): writeInt(i)
        case .bool(let b): buffer.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .duration: writeString(value.displayText)
        case .secret: writeString(Value.redacted)
        case .list(let items):
            buffer.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { buffer.append(UInt8(ascii: ",")) }
                writeValue(item)
            }
            buffer.append(UInt8(ascii: "]"))
        }
    }

    mutating func writeInt(_ value: Int) {
        Self.appendInt(value, to: &buffer)
    }

    /// Appends text fixed in the source to `buffer`.
    static func append(_ text: StaticString, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends an integer's decimal digits to `buffer`.
    static func appendInt(_ value: Int, to buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) = (
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while magnitude > 0 {
                raw[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { raw in buffer.append(contentsOf: raw[(20 - count)...]) }
    }

    /// Writes a JSON string. Only ASCII bytes ever need escaping, so the UTF-8 is copied as it
    /// is and escapes are spliced in where a byte asks for one.
    mutating func writeString(_ s: String) {
        buffer.append(UInt8(ascii: "\""))
        let written: Void? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            appendEscaped(utf8)
        }
        if written == nil {
            let bytes = Array(s.utf8)
            bytes.withUnsafeBufferPointer { appendEscaped($0) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            switch byte {
            case 0x22: buffer.append(contentsOf: "\\\"".utf8)
            case 0x5C: buffer.append(contentsOf: "\\\\".utf8)
            case 0x0A: buffer.append(contentsOf: "\\n".utf8)
            case 0x0D: buffer.append(contentsOf: "\\r".utf8)
            case 0x09: buffer.append(contentsOf: "\\t".utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: "\\u00".utf8)
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 0x0F)])
            }
            start = index + 1
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
}
