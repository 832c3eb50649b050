/// Text from a user's files made safe to print on one line: control characters, line breaks
/// and the invisible characters that reorder or hide text (bidirectional overrides and
/// isolates, zero-width characters) are written as escapes, so a message can neither break
/// into two lines nor show something other than what the file holds ("Trojan Source").
public enum PrintableText {
    /// `text` with every character that would not print as itself escaped: `\n`, `\r`, `\t`,
    /// and `\u{202E}`-style escapes for the others.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// Whether a character must be escaped to print as what it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0 and C1 controls, DEL
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        case 0x200B...0x200D, 0x2060, 0xFEFF: true  // zero-width characters
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}

extension StringProtocol {
    /// The text's lines, split at `\n` and at `\r\n` (which Swift reads as one character, so
    /// splitting at `"\n"` alone would keep a CRLF file in one piece).
    public var lines: [SubSequence] {
        split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }
}
