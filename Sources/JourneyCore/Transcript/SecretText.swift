import Foundation

/// How JourneyKit looks for a secret's text in what it shows: as a whole, so that a PIN is not
/// found inside a longer number nor a word inside a longer word, and only a text long enough not
/// to be found by chance. The explorer's `explore.no-secret-leak` and the check of a golden
/// transcript against its scenario's secrets both look this way.
public enum SecretText {
    /// Texts shorter than this many bytes are not looked for: they would be found by chance.
    public static let shortest = 4

    /// The text of a secret worth looking for: a secret's string, or its whole number, of
    /// ``shortest`` characters or more.
    public static func of(_ value: Value) -> String? {
        let text: String
        switch value.revealed {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        default: return nil
        }
        return text.utf8.count >= shortest ? text : nil
    }

    /// Whether one of `secrets` shows in `text`, written as it is or escaped as
    /// ``redacting(_:in:)`` reads escapes; anywhere, not only as a whole.
    public static func shows(_ secrets: some Collection<String>, in text: String) -> Bool {
        if secrets.contains(where: { !$0.isEmpty && text.contains($0) }) { return true }
        return text.contains("\\") && redacting(secrets, in: text) != text
    }

    /// Whether `secret` occurs in `text` as a whole: no letter or digit adjoins it.
    public static func occurs(_ secret: String, in text: String) -> Bool {
        var secret = secret
        var text = text
        return secret.withUTF8 { needle in
            text.withUTF8 { haystack in JourneyExplorer.SecretSearch.occurs(needle, in: haystack) }
        }
    }
}

extension SecretText {
    /// `text` with each of `secrets` replaced by `•••` wherever it shows, written as it is or
    /// as a JSON encoder escapes it (`\u0142` for `ł`, in either case of hex, a surrogate pair
    /// for a character beyond the BMP, `\"`, `\\`, `\/`, `\n` and the other short escapes, in
    /// any mixture), or as a language's string literal or shell quoting does (Python's `repr`
    /// and `%r`: `\'`, `\xe9`, `\U0001f511`, and of bytes `\xc3\xa4` for `ä`; a backslash
    /// before any other punctuation or a space): what a program prints of its input is often JSON or a quoted string. Runs of
    /// replaced text next to each other become one `•••`.
    /// The forms other than itself that `secret` takes where a program writes it into a URL,
    /// a form body or a header: percent-encoded (`%20` or `+` for a space, `/` kept or not, hex
    /// digits in either case) and Base64 (standard and URL-safe, with and without padding).
    public static func encodings(of secret: String) -> Set<String> {
        let bytes = Array(secret.utf8)
        var found = Set<String>()
        for (space, keepsSlash) in [("%20", false), ("+", false), ("%20", true), ("+", true)] {
            for digits in ["0123456789ABCDEF", "0123456789abcdef"].map(Array.init) {
                var text = ""
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                        UInt8(ascii: "_"), UInt8(ascii: "~"):
                        text.unicodeScalars.append(Unicode.Scalar(byte))
                    case UInt8(ascii: " "): text += space
                    case UInt8(ascii: "/") where keepsSlash: text += "/"
                    default:
                        text += "%"
                        text.append(digits[Int(byte >> 4)])
                        text.append(digits[Int(byte & 0x0F)])
                    }
                }
                found.insert(text)
            }
        }
        let base64 = Data(bytes).base64EncodedString()
        let unpadded = String(base64.reversed().drop { $0 == "=" }.reversed())
        let safe = String(unpadded.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        found.formUnion([base64, unpadded, safe])
        found.remove(secret)
        return found
    }

    public static func redacting(_ secrets: some Collection<String>, in text: String) -> String {
        let wanted = secrets.filter { !$0.isEmpty }.map { Array($0.unicodeScalars) }
        guard !wanted.isEmpty else { return text }
        let scalars = Array(text.unicodeScalars)
        // The text as a JSON decoder reads its escapes, each character with where it was written.
        var decoded: [Unicode.Scalar] = []
        var origin: [Range<Int>] = []
        decoded.reserveCapacity(scalars.count)
        origin.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\\", let (scalar, length) = escape(in: scalars, at: index) {
                decoded.append(scalar)
                origin.append(index..<(index + length))
                index += length
            } else {
                decoded.append(scalars[index])
                origin.append(index..<(index + 1))
                index += 1
            }
        }
        var covered = [Bool](repeating: false, count: scalars.count)
        var found = false
        for secret in wanted where secret.count <= decoded.count {
            var start = 0
            while start + secret.count <= decoded.count {
                if decoded[start] == secret[0], Array(decoded[start..<(start + secret.count)]) == secret {
                    for position in origin[start].lowerBound..<origin[start + secret.count - 1].upperBound {
                        covered[position] = true
                    }
                    found = true
                }
                start += 1
            }
        }
        guard found else { return text }
        var result = String.UnicodeScalarView()
        var position = 0
        while position < scalars.count {
            if covered[position] {
                result.append(contentsOf: Value.redacted.unicodeScalars)
                while position < scalars.count, covered[position] { position += 1 }
            } else {
                result.append(scalars[position])
                position += 1
            }
        }
        return String(result)
    }

    /// The character an escape at `index` (a backslash) stands for, and how many scalars it
    /// takes; nil where no escape starts. JSON's escapes, and those string literals and shells
    /// add: `\xNN`, `\UNNNNNNNN`, and a backslash before punctuation or a space (`\'`, `\$`).
    private static func escape(in scalars: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
        guard index + 1 < scalars.count else { return nil }
        let next = scalars[index + 1]
        switch next {
        case "\"", "\\", "/": return (next, 2)
        case "x":
            guard let value = hex(scalars, at: index + 2, digits: 2) else { return nil }
            // Python's repr of bytes writes a character beyond ASCII as its UTF-8 bytes, each
            // `\xNN`: read as one character when they make one.
            if let (scalar, count) = utf8Character(scalars, at: index, first: UInt8(value)) {
                return (scalar, 4 * count)
            }
            return Unicode.Scalar(value).map { ($0, 4) }
        case "U":
            guard let value = hex(scalars, at: index + 2, digits: 8) else { return nil }
            return Unicode.Scalar(value).map { ($0, 10) }
        case "n": return ("\n", 2)
        case "t": return ("\t", 2)
        case "r": return ("\r", 2)
        case "b": return (Unicode.Scalar(8), 2)
        case "f": return (Unicode.Scalar(12), 2)
        case "u":
            guard let unit = hex(scalars, at: index + 2) else { return nil }
            if (0xD800..<0xDC00).contains(unit), index + 11 < scalars.count, scalars[index + 6] == "\\",
                scalars[index + 7] == "u", let low = hex(scalars, at: index + 8), (0xDC00..<0xE000).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            {
                return (scalar, 12)
            }
            return Unicode.Scalar(unit).map { ($0, 6) }
        default:
            // A backslash that quotes the character after it (`\'` in Python's repr, `\ ` in a shell).
            return quotable.unicodeScalars.contains(next) ? (next, 2) : nil
        }
    }

    /// The character that `\xNN` escapes from `index` on write as UTF-8 (`\xc3\xa4` for `ä`),
    /// `first` being the first one's byte, and how many escapes it takes; nil when they do not
    /// make one character of two to four bytes.
    private static func utf8Character(
        _ scalars: [Unicode.Scalar], at index: Int, first: UInt8
    ) -> (Unicode.Scalar, Int)? {
        let count =
            switch first {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard count > 0 else { return nil }
        var bytes = [first]
        for position in 1..<count {
            let at = index + 4 * position
            guard at + 3 < scalars.count, scalars[at] == "\\", scalars[at + 1] == "x",
                let value = hex(scalars, at: at + 2, digits: 2), (0x80...0xBF).contains(value)
            else { return nil }
            bytes.append(UInt8(value))
        }
        let decoded = String(decoding: bytes, as: UTF8.self).unicodeScalars
        guard decoded.count == 1, let scalar = decoded.first, scalar != "\u{FFFD}" else { return nil }
        return (scalar, count)
    }

    /// What a backslash may quote: ASCII's punctuation and symbols, and a space.
    private static let quotable = ##" !"#$%&'()*+,-.:;<=>?@[]^_`{|}~"##

    /// The `digits` hex digits at `index` (four unless said), as a number.
    private static func hex(_ scalars: [Unicode.Scalar], at index: Int, digits: Int = 4) -> UInt32? {
        guard index + digits <= scalars.count else { return nil }
        var value: UInt32 = 0
        for scalar in scalars[index..<(index + digits)] {
            guard let digit = Int(String(scalar), radix: 16) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// How much longer than itself a secret can be written with the escapes read: each
    /// character at most 12 scalars (a JSON surrogate pair).
    public static let longestEscape = 12
}

extension TranscriptEvent {
    /// Whether `secret` occurs as a whole in one of the texts the event's JSON line holds
    /// (``containsText(where:)``): a value the event should have written as `•••`.
    public func shows(secret: String) -> Bool {
        containsText { SecretText.occurs(secret, in: $0) }
    }
}
