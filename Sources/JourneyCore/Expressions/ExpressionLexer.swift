/// Splits expression source into tokens. Offsets count Unicode scalars.
struct ExpressionLexer {
    enum Symbol: String, Sendable {
        case leftParen = "("
        case rightParen = ")"
        case leftBracket = "["
        case rightBracket = "]"
        case comma = ","
        case dot = "."
        case question = "?"
        case colon = ":"
        case plus = "+"
        case minus = "-"
        case star = "*"
        case slash = "/"
        case percent = "%"
        case bang = "!"
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessEqual = "<="
        case greater = ">"
        case greaterEqual = ">="
        case and = "&&"
        case or = "||"
    }

    enum Kind: Equatable, Sendable {
        /// The digits of a decimal integer, converted by the parser (so `-9223372036854775808` works).
        case integer(String)
        /// A duration literal such as `60s` or `1h30m`, in milliseconds.
        case duration(Int)
        /// A string literal, escapes already decoded.
        case string(String)
        case identifier(String)
        case symbol(Symbol)
        case end
    }

    struct Token: Sendable {
        var kind: Kind
        var offset: Int

        /// How the token reads in an error message.
        var quoted: String {
            switch kind {
            case .integer(let digits): "'\(digits)'"
            case .duration(let ms): "'\(Duration.format(milliseconds: ms))'"
            case .string: "a string"
            case .identifier(let name): "'\(name)'"
            case .symbol(let symbol): "'\(symbol.rawValue)'"
            case .end: "the end of the expression"
            }
        }
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    mutating func next() throws(ExpressionError) -> Token {
        while let c = peek(), c == " " || c == "\t" || c == "\n" || c == "\r" { position += 1 }
        let start = position
        guard let c = peek() else { return Token(kind: .end, offset: start) }

        if Self.isIdentifierStart(c) {
            while let d = peek(), Self.isIdentifierPart(d) { position += 1 }
            return Token(kind: .identifier(text(from: start)), offset: start)
        }
        if Self.isDigit(c) { return try number(from: start) }
        if c == "'" || c == "\"" { return try string(from: start, quote: c) }

        position += 1
        let twoChar: Symbol?
        switch (c, peek()) {
        case ("=", "="): twoChar = .equal
        case ("!", "="): twoChar = .notEqual
        case ("<", "="): twoChar = .lessEqual
        case (">", "="): twoChar = .greaterEqual
        case ("&", "&"): twoChar = .and
        case ("|", "|"): twoChar = .or
        default: twoChar = nil
        }
        if let twoChar {
            position += 1
            return Token(kind: .symbol(twoChar), offset: start)
        }
        if let symbol = Symbol(rawValue: String(Character(c))) {
            return Token(kind: .symbol(symbol), offset: start)
        }
        switch c {
        case "=": throw .syntax("unexpected '='; use '==' to compare", at: start)
        case "&": throw .syntax("unexpected '&'; use '&&' or 'and'", at: start)
        case "|": throw .syntax("unexpected '|'; use '||' or 'or'", at: start)
        case "$" where peek() == "{":
            throw .syntax("unexpected '${' inside an expression", at: start)
        default:
            throw .syntax("unexpected character '\(Character(c))'", at: start)
        }
    }

    private mutating func number(from start: Int) throws(ExpressionError) -> Token {
        while let d = peek(), Self.isDigit(d) { position += 1 }
        let digits = text(from: start)
        if let next = peek(), Self.isIdentifierPart(next) || next == "." {
            let rest = position
            while let d = peek(), Self.isIdentifierPart(d) || d == "." { position += 1 }
            // A number with units is a duration literal: `60s`, `1.5s`, `1h30m`.
            let written = text(from: start)
            switch Duration.read(written) {
            case .success(let ms): return Token(kind: .duration(ms), offset: start)
            case .failure(let problem) where problem.tooLong || Self.hasUnit(written):
                throw .syntax(problem.text, at: start)
            case .failure:
                throw .syntax("unexpected '\(text(from: rest))' after the number \(digits)", at: rest)
            }
        }
        if digits.count > 1 && digits.hasPrefix("0") {
            throw .syntax("a number may not start with 0: '\(digits)'", at: start)
        }
        return Token(kind: .integer(digits), offset: start)
    }

    private mutating func string(
        from start: Int, quote: Unicode.Scalar
    ) throws(ExpressionError)
        -> Token
    {
        position += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let c = peek() else { throw .syntax("unterminated string", at: start) }
            position += 1
            if c == quote { return Token(kind: .string(String(value)), offset: start) }
            guard c == "\\" else {
                value.append(c)
                continue
            }
            guard let escaped = peek() else { throw .syntax("unterminated string", at: start) }
            switch escaped {
            case "\\", "'", "\"": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            default:
                throw .syntax(
                    "unknown escape '\\\(Character(escaped))' in a string; use \\\\ \\' \\\" \\n or \\t",
                    at: position - 1)
            }
            position += 1
        }
    }

    private func text(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<position])
        return String(view)
    }

    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_"
    }

    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || isDigit(c)
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    /// Whether `text` (a number and what follows it) uses a duration's unit, so that its
    /// problem is told as a duration's.
    private static func hasUnit(_ text: String) -> Bool {
        let letters = String(text.unicodeScalars.filter { isIdentifierStart($0) })
        return !letters.isEmpty && letters.allSatisfy { "dhms".contains($0) }
    }
}

extension ExpressionLexer {
    /// `text` (an expression, or a template holding some) with the text of every string and
    /// number literal shown as `•••`: how a diagnostic quotes an expression that reads a
    /// secret, whose literals may be what it is compared with (`startsWith(outcome.pin, '48')`).
    /// Names, durations and operators are kept; an unclosed string is masked to the end.
    /// With `keepingEmpty`, an empty string (`''`, a test for nothing there) is kept too.
    static func maskingLiterals(_ text: String, keepingEmpty: Bool = false) -> String {
        var masked = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var previous: Unicode.Scalar?
        while index < scalars.count {
            let c = scalars[index]
            if c == "'" || c == "\"" {
                // The literal's text, escapes included, up to its closing quote.
                var end = index + 1
                while end < scalars.count, scalars[end] != c { end += scalars[end] == "\\" ? 2 : 1 }
                masked.append(c)
                if !(keepingEmpty && end == index + 1) { masked.append(contentsOf: "•••".unicodeScalars) }
                if end < scalars.count { masked.append(c) }
                index = end + 1
                previous = c
                continue
            }
            let inName =
                previous.map { $0 == "_" || $0 == "." || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                ?? false
            if ("0"..."9").contains(c), !inName {
                var end = index
                while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
                // A duration (`5m`, `1h30m`) says how long, not a secret: kept.
                if end < scalars.count, scalars[end].properties.isAlphabetic {
                    masked.append(contentsOf: scalars[index..<end])
                } else {
                    masked.append(contentsOf: "•••".unicodeScalars)
                }
                previous = scalars[end - 1]
                index = end
                continue
            }
            masked.append(c)
            previous = c
            index += 1
        }
        return String(masked)
    }
}
