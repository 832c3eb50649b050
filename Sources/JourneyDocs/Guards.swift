/// Guards written for people: `outcome.pin == state.firstPin && !state.locked` reads
/// "outcome.pin is state.firstPin and not state.locked". Only operators are read as words: a
/// string literal (`'a==b'`, `"Hi!"`) is kept as written, as the expression lexer reads it
/// (a quote to the same quote, a backslash taking the character after it).
enum Guards {
    static func words(_ expression: String) -> String {
        var parts: [(text: String, literal: Bool)] = []
        var code = ""
        var chars = Array(expression)[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            guard c == "'" || c == "\"" else {
                code.append(c)
                continue
            }
            parts.append((code, false))
            code = ""
            var literal = String(c)
            while let d = chars.first {
                chars = chars.dropFirst()
                literal.append(d)
                if d == "\\", let escaped = chars.first {
                    chars = chars.dropFirst()
                    literal.append(escaped)
                } else if d == c {
                    break
                }
            }
            parts.append((literal, true))
        }
        parts.append((code, false))
        let text = parts.map { $0.literal ? $0.text : operatorsInWords($0.text) }.joined()
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// Text outside any literal with its operators as words, and its runs of spaces as one.
    private static func operatorsInWords(_ code: String) -> String {
        var text = code
        for (symbol, word) in [
            ("==", " is "), ("!=", " is not "), ("&&", " and "), ("||", " or "), (">=", " ≥ "), ("<=", " ≤ "),
        ] {
            text = text.replacingOccurrences(of: symbol, with: word)
        }
        text = text.replacingOccurrences(of: "!", with: "not ")
        while text.contains("  ") { text = text.replacingOccurrences(of: "  ", with: " ") }
        return text
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

extension Set where Element == Character {
    static let whitespaces: Set<Character> = [" ", "\t", "\n"]
}
