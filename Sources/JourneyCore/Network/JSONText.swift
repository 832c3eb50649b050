/// Writes YAML written in a scenario (a stub's `json:`) as JSON text. Plain scalars follow
/// the YAML 1.2 core schema (`true`, `false`, `null`, decimal numbers); everything else is a
/// string — so `0012` stays the string "0012".
enum JSONText {
    static func encode(_ node: YAMLNode) -> String {
        var w = JSONWriter()
        write(node, into: &w)
        return w.output
    }

    private static func write(_ node: YAMLNode, into w: inout JSONWriter) {
        switch node.kind {
        case .scalar(let text, let plain):
            if plain, let value = LiteralParser.int(text) {
                w.raw(String(value))
            } else if plain && (text == "true" || text == "false") {
                w.raw(text)
            } else if plain && (text == "null" || text == "~" || text.isEmpty) {
                w.raw("null")
            } else {
                w.value(.string(text))
            }
        case .sequence(let items):
            w.openArray()
            for item in items { write(item, into: &w) }
            w.closeArray()
        case .mapping(let entries):
            w.open()
            for entry in entries {
                w.name(entry.key)
                write(entry.value, into: &w)
            }
            w.close()
        }
    }
}
