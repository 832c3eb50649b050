import JourneyCore

/// A journey as a Graphviz DOT graph, the same picture as the Mermaid diagram.
public enum DotRenderer {
    public static func render(_ doc: JourneyDoc) -> String {
        var lines = [
            "digraph \(quote(doc.id)) {",
            "  graph [rankdir=TB, fontname=\"Helvetica\", label=\(quote(doc.title)), labelloc=t];",
            "  node [fontname=\"Helvetica\", fontsize=11, shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", color=\"#4a6fa5\"];",
            "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];",
            "  start [shape=circle, label=\"start\", fillcolor=\"#ffffff\"];",
            "  start -> \(quote(doc.start));",
        ]
        for step in doc.steps {
            var label = step.id
            if let title = step.title { label += "\n" + title.replacingOccurrences(of: "\n", with: " ") }
            label += "\n" + (step.calls.map { "calls \($0)" } ?? step.handler)
            let shape = step.calls == nil ? "" : ", shape=component, URL=\(quote("\(step.calls!).html"))"
            lines.append("  \(quote(step.id)) [label=\(quote(label))\(shape)];")
        }
        let colours: [EndKind: String] = [.success: "#d9f2e3", .failure: "#fbe0e0", .cancel: "#ececec"]
        for end in doc.ends {
            lines.append(
                "  \(quote(end.id)) [shape=ellipse, fillcolor=\(quote(colours[end.kind]!)), label=\(quote("\(end.id)\n\(end.kind.rawValue)"))];"
            )
        }
        for step in doc.steps {
            for edge in step.edges {
                var label = edge.outcome
                if let condition = edge.condition { label += "\nif " + Guards.words(condition) }
                if edge.branch == "else" { label += "\notherwise" }
                let style = edge.branch == "limit" ? ", style=dashed, color=\"#a32121\"" : ""
                lines.append("  \(quote(edge.from)) -> \(quote(edge.to)) [label=\(quote(label))\(style)];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static func quote(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
