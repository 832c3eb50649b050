/// Guards written for people: `outcome.pin == state.firstPin && !state.locked` reads
/// "outcome.pin is state.firstPin and not state.locked".
enum Guards {
    static func words(_ expression: String) -> String {
        var text = " " + expression + " "
        for (symbol, word) in [
            ("==", " is "), ("!=", " is not "), ("&&", " and "), ("||", " or "), (">=", " ≥ "), ("<=", " ≤ "),
        ] {
            text = text.replacingOccurrences(of: symbol, with: word)
        }
        text = text.replacingOccurrences(of: "!", with: "not ")
        while text.contains("  ") { text = text.replacingOccurrences(of: "  ", with: " ") }
        return text.trimmingCharacters(in: .whitespaces)
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
