/// Redacts the values in a URL's query and fragment, where authorization codes, tokens and
/// `state` travel, keeping the rest readable: `app://cb?code=abc&state=x` becomes
/// `app://cb?code=•••&state=•••`.
public enum URLRedaction {
    public static func redact(_ url: String) -> String {
        guard let start = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        var result = String(url[..<start])
        var part = ""
        var separator: Character = url[start]
        func flush() {
            guard !part.isEmpty else { return }
            if let eq = part.firstIndex(of: "=") {
                result += part[...eq] + Value.redacted
            } else {
                result += Value.redacted
            }
            part = ""
        }
        result.append(separator)
        for c in url[url.index(after: start)...] {
            if c == "&" || c == ";" || (c == "#" && separator == "?") {
                flush()
                separator = c
                result.append(c)
            } else {
                part.append(c)
            }
        }
        flush()
        return result
    }
}
