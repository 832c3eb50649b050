import JourneyCore

/// A static site that works offline: one page per journey and an index, styles inline, the
/// diagram as inline SVG (rendered by Graphviz beforehand), no scripts and no network.
public enum HTMLRenderer {
    /// A journey's page; `link` turns a source file's path (as the docs name it) into a link
    /// from the folder the pages are written to, as ``MarkdownRenderer/page(_:link:)`` does.
    public static func page(_ doc: JourneyDoc, svg: String, link: SourceLink = .init()) -> String {
        var body =
            "<p class=\"meta\"><code>\(e(doc.id))</code> · <a href=\"\(href(link(doc.file)))\">\(e(doc.file))</a> · texts in <code>\(e(doc.locale))</code></p>\n"
        if let summary = doc.summary { body += "<p>\(e(summary))</p>\n" }
        body += "<h2>Flow</h2>\n<div class=\"diagram\">\(stripXMLProlog(svg))</div>\n"
        body += params(doc) + steps(doc) + ends(doc) + holdsItselfTo(doc) + scenarios(doc, link: link)
        return shell(
            title: doc.title,
            body: "<p><a href=\"index.html\">← all journeys</a></p>\n<h1>\(e(doc.title))</h1>\n" + body)
    }

    /// The journey's params, with their types and defaults (a secret's as •••).
    static func params(_ doc: JourneyDoc) -> String {
        guard !doc.params.isEmpty else { return "" }
        var body = "<h2>Params</h2>\n<table><tr><th>param</th><th>type</th><th>default</th><th></th></tr>\n"
        for param in doc.params {
            body +=
                "<tr><td><code>\(e(param.name))</code></td><td>\(e(param.type))</td><td>\(e(param.defaultValue ?? "required"))</td><td>\(e(param.description ?? ""))</td></tr>\n"
        }
        return body + "</table>\n"
    }

    /// Each step: what the user sees, its handler or the journey it calls, and where each
    /// outcome leads.
    static func steps(_ doc: JourneyDoc) -> String {
        var body =
            "<h2>Steps</h2>\n<table><tr><th>step</th><th>what the user sees</th><th>handler</th><th>outcome → next</th></tr>\n"
        for step in doc.steps {
            var sees = [String]()
            if let title = step.title { sees.append("<b>\(e(title))</b>") }
            if let text = step.text { sees.append(e(text)) }
            if !step.fields.isEmpty { sees.append("fields: " + step.fields.map(e).joined(separator: ", ")) }
            if !step.actions.isEmpty {
                sees.append(
                    step.actions.map {
                        "<span class=\"action\">\(e($0.label))</span>"
                            + ($0.enabled.isEmpty ? "" : " <i>(\(e($0.enabled)))</i>")
                    }.joined(separator: " "))
            }
            if let note = step.note { sees.append("<i>\(e(note))</i>") }
            let handler =
                step.calls.map { "calls <a href=\"\(e($0)).html\"><code>\(e($0))</code></a>" }
                ?? "<code>\(e(step.handler))</code>"
            let outcomes = step.edges.map { edge -> String in
                var text = "<code>\(e(edge.outcome))</code>"
                if let condition = edge.condition { text += " if <code>\(e(condition))</code>" }
                if edge.branch == "else" { text += " otherwise" }
                text += " → <code>\(e(edge.to))</code>"
                if !edge.sets.isEmpty {
                    text += " (sets " + edge.sets.map { "<code>\(e($0))</code>" }.joined(separator: ", ") + ")"
                }
                return text
            }
            body +=
                "<tr><td><code>\(e(step.id))</code></td><td>\(sees.joined(separator: "<br>"))</td><td>\(handler)</td><td>\(outcomes.joined(separator: "<br>"))</td></tr>\n"
        }
        return body + "</table>\n"
    }

    /// The journey's ends, with their kinds.
    static func ends(_ doc: JourneyDoc) -> String {
        var body = "<h2>Ends</h2>\n<table><tr><th>end</th><th>kind</th><th></th></tr>\n"
        for end in doc.ends {
            body +=
                "<tr class=\"\(end.kind.rawValue)\"><td><code>\(e(end.id))</code></td><td>\(end.kind.rawValue)</td><td>\(e(end.title ?? ""))</td></tr>\n"
        }
        return body + "</table>\n"
    }

    /// What the journey holds itself to: its attempt limits, its invariants, the rules it
    /// breaks on purpose, and the state and device values it reads and writes.
    static func holdsItselfTo(_ doc: JourneyDoc) -> String {
        var body = ""
        if !doc.limits.isEmpty {
            body +=
                "<h2>Attempt limits</h2>\n<ul>" + doc.limits.map { "<li>\(markdownInline($0))</li>" }.joined()
                + "</ul>\n"
        }
        if !doc.invariants.isEmpty {
            body +=
                "<h2>Invariants</h2>\n<p>Rules the journey states about itself, checked on every path by <code>journey explore</code> and in every run:</p>\n<table><tr><th>invariant</th><th>what it protects</th><th>rule</th></tr>"
                + doc.invariants.map {
                    "<tr><td><code>\(e($0.id))</code></td><td>\(e($0.summary ?? ""))</td><td><code>\(e($0.rule))</code></td></tr>"
                }.joined() + "</table>\n"
        }
        if !doc.exceptions.isEmpty {
            body +=
                "<h2>Rules broken on purpose</h2>\n<p>The journey breaks these rules on purpose, each for the reason it gives (most often, that the app it reproduces does):</p>\n<table><tr><th>rule</th><th>what it asks</th><th>why this journey breaks it</th></tr>"
                + doc.exceptions.map {
                    "<tr><td><code>\(e($0.rule))</code></td><td>\(markdownInline($0.asks))</td><td>\(e($0.reason))</td></tr>"
                }.joined() + "</table>\n"
        }
        if !doc.reads.isEmpty || !doc.writes.isEmpty {
            body += "<h2>State and device values</h2>\n<ul>"
            if !doc.reads.isEmpty {
                body += "<li>reads: " + doc.reads.map { "<code>\(e($0))</code>" }.joined(separator: ", ") + "</li>"
            }
            if !doc.writes.isEmpty {
                body += "<li>writes: " + doc.writes.map { "<code>\(e($0))</code>" }.joined(separator: ", ") + "</li>"
            }
            body += "</ul>\n"
        }
        return body
    }

    /// Each scenario walked through, and the transitions the scenarios cover: what the Markdown
    /// page says (``MarkdownRenderer``), as HTML.
    static func scenarios(_ doc: JourneyDoc, link: SourceLink = .init()) -> String {
        var body = ""
        body += "<h2>Scenarios</h2>\n"
        if doc.walkthroughs.isEmpty { body += "<p>\(JourneyDoc.noScenario(doc))</p>\n" }
        for walk in doc.walkthroughs {
            body += "<h3>\(e(walk.scenario))</h3>\n"
            var about = [String]()
            if let title = walk.title { about.append(e(title)) }
            if !walk.tags.isEmpty {
                about.append("tags: " + walk.tags.map { "<code>\(e($0))</code>" }.joined(separator: " "))
            }
            about.append("<a href=\"\(href(link(walk.file)))\">scenario</a>")
            body += "<p>\(about.joined(separator: " · "))</p>\n"
            body +=
                "<ul>"
                + walk.lines.map { line in
                    let item = line.drop { $0 == " " }
                    return "<li>\(markdownInline(String(item.hasPrefix("- ") ? item.dropFirst(2) : item)))</li>"
                }.joined()
                + "</ul>\n"
            let end = walk.end.map { "<code>\(e($0))</code>" } ?? "none — the run failed"
            body += "<p><b>End:</b> \(end)\(walk.passed ? "" : " ✗")</p>\n"
        }
        body +=
            "<h2>Coverage</h2>\n<p>\(doc.covered.count) of \(doc.edges.count) transitions are taken by at least one scenario.</p>\n"
        if !doc.uncovered.isEmpty {
            body +=
                "<p>Not taken by any scenario:</p>\n<ul>"
                + doc.uncovered.map { edge in
                    "<li><code>\(e(edge.from))</code> — \(e(edge.outcome))"
                        + (edge.condition.map { " if <code>\(e($0))</code>" } ?? "")
                        + (edge.branch == "else" ? " otherwise" : "") + " → <code>\(e(edge.to))</code></li>"
                }.joined() + "</ul>\n"
        }
        return body
    }

    public static func index(_ docs: [JourneyDoc], callGraphSVG: String) -> String {
        var body = "<h1>Journeys</h1>\n"
        let covered = docs.reduce(0) { $0 + $1.covered.count }
        let total = docs.reduce(0) { $0 + $1.edges.count }
        let scenarios = docs.reduce(0) { $0 + $1.walkthroughs.count }
        body +=
            "<p>\(counted(docs.count, "journey")), \(counted(scenarios, "scenario")); \(covered) of \(total) transitions covered by scenarios.</p>\n"
        let groups = Dictionary(grouping: docs, by: \.group)
        for group in groups.keys.sorted() {
            body +=
                "<h2>\(e(group))</h2>\n<table><tr><th>journey</th><th></th><th>scenarios</th><th>transitions covered</th></tr>\n"
            for doc in groups[group]!.sorted(by: { $0.id < $1.id }) {
                body +=
                    "<tr><td><a href=\"\(e(doc.id)).html\"><code>\(e(doc.id))</code></a></td><td>\(e(doc.title))</td><td>\(doc.walkthroughs.count)</td><td>\(doc.covered.count) of \(doc.edges.count)</td></tr>\n"
            }
            body += "</table>\n"
        }
        body += "<h2>Which journey calls which</h2>\n<div class=\"diagram\">\(stripXMLProlog(callGraphSVG))</div>\n"
        return shell(title: "Journeys", body: body)
    }

    /// The call graph as DOT, for the index page.
    public static func callGraphDot(_ docs: [JourneyDoc]) -> String {
        var lines = [
            DotRenderer.generatedComment, "digraph journeys {", "  graph [rankdir=LR, fontname=\"Helvetica\"];",
            "  node [fontname=\"Helvetica\", shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\"];",
        ]
        for doc in docs { lines.append("  \(DotRenderer.quote(doc.id)) [URL=\(DotRenderer.quote("\(doc.id).html"))];") }
        for doc in docs {
            for callee in doc.calls { lines.append("  \(DotRenderer.quote(doc.id)) -> \(DotRenderer.quote(callee));") }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static let generatorMeta = #"<meta name="generator" content="journey docs">"#

    static func shell(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        \(generatorMeta)
        <title>\(e(title))</title>
        <style>
        body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1d1d1f; }
        h1 { border-bottom: 1px solid #ddd; padding-bottom: .3rem; }
        table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; font-size: .92rem; }
        th, td { border: 1px solid #d0d7de; padding: .35rem .5rem; vertical-align: top; text-align: left; }
        th { background: #f6f8fa; }
        code { background: #f3f3f3; padding: 0 .2rem; border-radius: 3px; }
        .diagram { overflow-x: auto; border: 1px solid #e3e3e3; border-radius: 6px; padding: .5rem; background: #fff; }
        .diagram svg { max-width: 100%; height: auto; }
        .action { border: 1px solid #4a6fa5; border-radius: 4px; padding: 0 .3rem; }
        tr.success td:nth-child(2) { background: #d9f2e3; } tr.failure td:nth-child(2) { background: #fbe0e0; } tr.cancel td:nth-child(2) { background: #ececec; }
        .meta { color: #57606a; }
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A relative path as an `href`: every byte but a letter, a digit, `-`, `.`, `_`, `~` and
    /// `/` percent-encoded, so that a `#`, a `?`, a `:` or a space in a file's name is part of
    /// the path and not a fragment, a query or a scheme.
    static func href(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
            }
        }
        return out
    }

    static func e(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The Markdown JourneyKit writes in the model's sentences (attempt limits, walkthroughs,
    /// what a rule asks) as HTML: a code span as CommonMark reads one (a run of backticks up
    /// to the next run of the same length; with none, the run is text), **bold**, *italic*, a
    /// backslash before punctuation as that character, and the entities `&lt;`, `&gt;` and
    /// `&amp;` the model writes; everything else as text. Every tag opened is closed.
    static func markdownInline(_ text: String) -> String {
        let chars = Array(text)
        var out = ""
        var open: [String] = []
        func toggle(_ tag: String) {
            if let index = open.lastIndex(of: tag) {
                for closing in open[index...].reversed() { out += "</\(closing)>" }
                open.removeSubrange(index...)
            } else {
                out += "<\(tag)>"
                open.append(tag)
            }
        }
        func starts(_ word: String, at index: Int) -> Bool {
            let word = Array(word)
            return index + word.count <= chars.count && Array(chars[index..<index + word.count]) == word
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\", i + 1 < chars.count, chars[i + 1].isASCII, chars[i + 1].isPunctuationOrSymbol {
                out += e(String(chars[i + 1]))
                i += 2
            } else if c == "&", let entity = ["&lt;", "&gt;", "&amp;"].first(where: { starts($0, at: i) }) {
                out += entity
                i += entity.count
            } else if c == "`" {
                let (run, closing) = CodeSpan.at(i, in: chars)
                guard let closing else {
                    out += String(repeating: "`", count: run)
                    i += run
                    continue
                }
                var content = String(chars[(i + run)..<closing])
                if content.hasPrefix(" "), content.hasSuffix(" "), content.contains(where: { $0 != " " }) {
                    content = String(content.dropFirst().dropLast())
                }
                out += "<code>\(e(content))</code>"
                i = closing + run
            } else if starts("**", at: i) {
                toggle("b")
                i += 2
            } else if c == "*" {
                toggle("i")
                i += 1
            } else {
                out += e(String(c))
                i += 1
            }
        }
        for tag in open.reversed() { out += "</\(tag)>" }
        return out
    }

    static func stripXMLProlog(_ svg: String) -> String {
        guard let start = svg.range(of: "<svg") else { return svg }
        return String(svg[start.lowerBound...])
    }
}
