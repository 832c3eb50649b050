import Yams

/// What libyaml's terse messages mean in a hand-written journey, scenario or project file,
/// where the text shows it: a quote never closed, a key indented out of line with its
/// mapping, a key without its colon, a line indented under a key that already has a value.
/// Each is said where it is put right, which is not always where libyaml stopped reading.
extension SafeYAML {
    struct SyntaxHint: Equatable {
        var message: String
        var line: Int
        var column: Int
    }

    /// The hint for libyaml's `problem` at `mark` (while reading what `context` says) in `text`;
    /// nil when the text shows nothing more than the message says.
    static func syntaxHint(problem: String, context: YamlError.Context?, mark: Mark, text: String) -> SyntaxHint? {
        let lines = text.lines
        guard mark.line >= 1, mark.line <= lines.count + 1 else { return nil }
        // A quote that is never closed: libyaml says so where the file ends.
        if let context, context.text.contains("quoted scalar"), problem.contains("end of stream") {
            let quote = character(at: context.mark, in: lines) ?? "\""
            return SyntaxHint(
                message: "the text quoted here is never closed: end it with \(quote) on its line",
                line: context.mark.line, column: context.mark.column)
        }
        let first = max(1, min(context?.mark.line ?? 1, mark.line))
        if problem.contains("did not find expected key") || problem.contains("mapping values are not allowed")
            || problem.contains("did not find expected '-' indicator")
        {
            // A quote left open on an earlier line swallows the lines after it, and libyaml
            // stops lines later.
            if let open = unclosedQuote(in: lines, from: first, before: mark.line) {
                return SyntaxHint(
                    message:
                        "the text quoted here is not closed on its line, so the lines after it are read as part of it; end it with \(open.quote)",
                    line: open.line, column: open.column)
            }
        }
        guard mark.line <= lines.count else { return nil }
        let here = lines[mark.line - 1]
        let indent = column(of: here)
        if problem.contains("did not find expected key"), let context, context.text.contains("block mapping"),
            indent != context.mark.column
        {
            return SyntaxHint(
                message:
                    "line \(mark.line) starts at column \(indent), but the keys of the mapping that begins at line \(context.mark.line) start at column \(context.mark.column): indent it as the keys it belongs with",
                line: mark.line, column: indent)
        }
        guard problem.contains("mapping values are not allowed") else { return nil }
        if let above = previousContentLine(in: lines, before: mark.line) {
            let prior = lines[above - 1]
            let content = prior.drop { $0 == " " }
            // `pinEntry` and the line under it are read as one plain text, whose ': ' is a key.
            if !content.hasPrefix("-"), !content.contains(":"), !content.hasPrefix("\""), !content.hasPrefix("'") {
                let word = content.split(separator: " #").first.map { $0.trimmingTrailingSpaces } ?? Substring(content)
                return SyntaxHint(
                    message:
                        "line \(above) has no ':' after '\(word)', so it is read as text with this line: write '\(word):'",
                    line: above, column: column(of: prior) + word.count)
            }
            if indent > column(of: prior), let colon = keyColon(in: prior), hasValue(after: colon, in: prior) {
                return SyntaxHint(
                    message:
                        "line \(mark.line) is indented deeper than line \(above), whose key already has its value: line it up with that key (column \(column(of: prior))), or give the key no value on its line",
                    line: mark.line, column: indent)
            }
        }
        if let colon = keyColon(in: here), mark.column - 1 > here.distance(from: here.startIndex, to: colon) {
            return SyntaxHint(
                message: "this value holds ': ', which reads as another key: write the value in quotes",
                line: mark.line, column: mark.column)
        }
        return nil
    }

    /// The column (from 1) of the line's first character that is not a space.
    private static func column(of line: Substring) -> Int {
        line.prefix { $0 == " " }.count + 1
    }

    private static func character(at mark: Mark, in lines: [Substring]) -> Character? {
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        let line = lines[mark.line - 1]
        guard mark.column >= 1, mark.column <= line.count else { return nil }
        return line[line.index(line.startIndex, offsetBy: mark.column - 1)]
    }

    /// The line before `line` with something on it besides a comment.
    private static func previousContentLine(in lines: [Substring], before line: Int) -> Int? {
        var index = line - 1
        while index >= 1 {
            let content = lines[index - 1].drop { $0 == " " }
            if !content.isEmpty && !content.hasPrefix("#") { return index }
            index -= 1
        }
        return nil
    }

    /// The colon that ends a line's key (`name:` followed by a space or the line's end), outside quotes.
    private static func keyColon(in line: Substring) -> Substring.Index? {
        var index = line.startIndex
        var quote: Character?
        while index < line.endIndex {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", index > line.startIndex, line[line.index(before: index)] == " " {
                return nil
            } else if character == ":" {
                let next = line.index(after: index)
                if next == line.endIndex || line[next] == " " { return index }
            }
            index = line.index(after: index)
        }
        return nil
    }

    /// Whether a value follows the key's colon on its line (not a comment, nor `|` or `>`).
    private static func hasValue(after colon: Substring.Index, in line: Substring) -> Bool {
        let rest = line[line.index(after: colon)...].drop { $0 == " " }
        return !rest.isEmpty && !rest.hasPrefix("#") && !rest.hasPrefix("|") && !rest.hasPrefix(">")
    }

    /// The first quote from line `from` up to `before` that opens a scalar (at a value's start:
    /// after `: `, `- `, `[`, `{` or `, `, or first on its line) and is not closed on its line.
    static func unclosedQuote(
        in lines: [Substring], from: Int, before: Int
    ) -> (line: Int, column: Int, quote: Character)? {
        guard from >= 1 else { return nil }
        for number in from..<min(before, lines.count + 1) {
            let line = Array(lines[number - 1])
            var index = 0
            var previous: Character = " "
            var atValueStart = true
            while index < line.count {
                let character = line[index]
                if character == "#" && previous == " " { break }
                if (character == "\"" || character == "'") && atValueStart {
                    // Scan to its close: `\"` escapes in double quotes, `''` in single ones.
                    var close = index + 1
                    var closed = false
                    while close < line.count {
                        if character == "\"" && line[close] == "\\" {
                            close += 2
                            continue
                        }
                        if line[close] == character {
                            if character == "'" && close + 1 < line.count && line[close + 1] == "'" {
                                close += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        close += 1
                    }
                    if !closed { return (number, index + 1, character) }
                    index = close + 1
                    previous = character
                    atValueStart = false
                    continue
                }
                if character != " " {
                    atValueStart =
                        character == "[" || character == "{" || character == ","
                        || ((character == ":" || character == "-")
                            && (index + 1 == line.count || line[index + 1] == " "))
                }
                previous = character
                index += 1
            }
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingTrailingSpaces: Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return self[startIndex..<end]
    }
}
