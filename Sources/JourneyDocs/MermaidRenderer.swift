import JourneyCore

/// A journey as a Mermaid flowchart, which GitHub renders in Markdown: steps as boxes
/// (sub-journey calls as subroutines linking to their page), outcomes on the edges with
/// guards in words, exceeded limits dashed, ends coloured by kind.
public enum MermaidRenderer {
    public static func render(_ doc: JourneyDoc, link: (String) -> String) -> String {
        var ids: [String: String] = [:]
        for (index, step) in doc.steps.enumerated() { ids[step.id] = "s\(index)" }
        for (index, end) in doc.ends.enumerated() { ids[end.id] = "e\(index)" }
        var lines = ["flowchart TD", "    start((start)) --> \(ids[doc.start] ?? "start")"]
        for step in doc.steps {
            let id = ids[step.id]!
            var label = "<b>\(escape(step.id))</b>"
            if let title = step.title { label += "<br/>\(escape(oneLine(title)))" }
            if let calls = step.calls {
                lines.append("    \(id)[[\"\(label)<br/><i>calls \(escape(calls))</i>\"]]")
                lines.append("    click \(id) \"\(link(calls))\"")
            } else {
                lines.append("    \(id)[\"\(label)<br/><i>\(escape(step.handler))</i>\"]")
            }
        }
        for (index, end) in doc.ends.enumerated() {
            lines.append("    e\(index)([\"\(escape(end.id))\"]):::\(end.kind.rawValue)")
        }
        for step in doc.steps {
            for edge in step.edges {
                guard let from = ids[edge.from], let to = ids[edge.to] else { continue }
                var label = edge.outcome
                if let condition = edge.condition { label += " · if \(Guards.words(condition))" }
                if edge.branch == "else" { label += " · otherwise" }
                let arrow = edge.limit != nil ? "-.->" : "-->"
                lines.append("    \(from) \(arrow)|\"\(escape(label))\"| \(to)")
            }
        }
        lines += [
            "    classDef success fill:#d9f2e3,stroke:#1f7a3f,color:#0b3d1e",
            "    classDef failure fill:#fbe0e0,stroke:#a32121,color:#4d0b0b",
            "    classDef cancel fill:#ececec,stroke:#6b6b6b,color:#2b2b2b",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The journeys and which call which.
    public static func callGraph(_ docs: [JourneyDoc], link: (String) -> String) -> String {
        var lines = ["flowchart LR"]
        var ids: [String: String] = [:]
        for (index, doc) in docs.enumerated() {
            ids[doc.id] = "j\(index)"
            lines.append("    j\(index)[\"\(escape(doc.id))\"]")
            lines.append("    click j\(index) \"\(link(doc.id))\"")
        }
        for doc in docs {
            for callee in doc.calls {
                if let from = ids[doc.id], let to = ids[callee] { lines.append("    \(from) --> \(to)") }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label's text as Mermaid reads it back: `#` first (every entity begins with one, so a
    /// `#…;` the author wrote stays text), then quotes, angle brackets, bars and `%` (two of
    /// which, `%%`, would begin a comment or a directive such as `%%{init: …}%%`).
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "#", with: "#35;").replacingOccurrences(of: "\"", with: "#quot;")
            .replacingOccurrences(of: "<", with: "#lt;").replacingOccurrences(of: ">", with: "#gt;")
            .replacingOccurrences(of: "|", with: "#124;").replacingOccurrences(of: "%", with: "#37;")
    }

    static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ")
    }
}
