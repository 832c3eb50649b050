/// Writes YAML written in a scenario (a stub's `json:`) as JSON text. Plain scalars follow
/// the YAML 1.2 core schema (`true`, `false`, `null`, integers and decimal numbers such as
/// `1.5` or `2e3`); everything else is a string — so `0012` stays the string "0012", and
/// `.inf` and `.nan`, which JSON cannot hold, stay strings too.
enum JSONText {
    /// A core-schema float (`1.5`, `-0.25`, `+1.`, `.5`, `6.02e23`) as a JSON number, written
    /// from its own digits (`+1.` → `1.0`, `.5` → `0.5`) so nothing is lost to rounding; nil
    /// for anything else, and for leading zeros (`007.5`), which stay text like `0012` does.
    static func jsonNumber(_ text: String) -> String? {
        var rest = Substring(text)
        var sign = ""
        if let first = rest.first, first == "-" || first == "+" {
            if first == "-" { sign = "-" }
            rest = rest.dropFirst()
        }
        let digits: (Character) -> Bool = { $0.isASCII && $0.isNumber }
        let whole = rest.prefix(while: digits)
        rest = rest.dropFirst(whole.count)
        var fraction: Substring?
        if rest.first == "." {
            rest = rest.dropFirst()
            fraction = rest.prefix(while: digits)
            rest = rest.dropFirst(fraction!.count)
        }
        var exponent = ""
        if let e = rest.first, e == "e" || e == "E" {
            rest = rest.dropFirst()
            var exponentSign = ""
            if let s = rest.first, s == "-" || s == "+" {
                exponentSign = String(s)
                rest = rest.dropFirst()
            }
            let power = rest.prefix(while: digits)
            guard !power.isEmpty else { return nil }
            rest = rest.dropFirst(power.count)
            exponent = "e" + exponentSign + power
        }
        guard rest.isEmpty, !whole.isEmpty || !(fraction ?? "").isEmpty, fraction != nil || !exponent.isEmpty,
            whole.count <= 1 || whole.first != "0"
        else { return nil }
        let fractionText = fraction.map { "." + ($0.isEmpty ? "0" : $0) } ?? ""
        return sign + (whole.isEmpty ? "0" : whole) + fractionText + exponent
    }

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
            } else if plain, let number = jsonNumber(text) {
                w.raw(number)
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
