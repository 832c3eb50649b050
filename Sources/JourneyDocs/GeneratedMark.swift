/// How a file written by `journey docs` says so, and how the command recognises its own files
/// among others in the output folder: only they are ever replaced or removed.
public enum GeneratedMark {
    /// The exact line each format carries near its top (`md`, `html`, `dot`).
    public static func line(forExtension ext: String) -> String? {
        switch ext {
        case "md": MarkdownRenderer.generatedNote
        case "html": HTMLRenderer.generatorMeta
        case "dot": DotRenderer.generatedComment
        default: nil
        }
    }

    /// Whether `content`, a file with extension `ext`, was written by `journey docs`: one of its
    /// first lines is exactly the mark. A hand-written file that merely mentions the command,
    /// or any other DOT graph, is not.
    public static func isGenerated(_ content: String, extension ext: String) -> Bool {
        guard let mark = line(forExtension: ext) else { return false }
        return content.lines.prefix(8)
            .contains { $0 == mark }
    }
}
