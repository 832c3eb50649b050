/// CommonMark's code spans, as both renderers read the Markdown they write: a run of backticks
/// opens one that ends at the next run of exactly the same length; a run with none after it is
/// text (CommonMark 0.31, 6.1).
enum CodeSpan {
    /// The run of backticks that starts at `start` in `chars`: its length, and where the run
    /// that closes it starts, or nil when none does.
    static func at(_ start: Int, in chars: [Character]) -> (run: Int, closing: Int?) {
        var run = 0
        while start + run < chars.count, chars[start + run] == "`" { run += 1 }
        var end = start + run
        while end < chars.count {
            var length = 0
            while end + length < chars.count, chars[end + length] == "`" { length += 1 }
            if length == run { return (run, end) }
            end += max(length, 1)
        }
        return (run, nil)
    }
}
