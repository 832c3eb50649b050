import JourneyCore

/// Path arithmetic on plain strings. (Foundation's `NSString` path methods trap on Linux for
/// one-character paths such as `.` or `a`, so the CLI does not use them.)
enum Path {
    /// `path` as one word of a shell command, for a command a message suggests: as it is when
    /// it needs no quoting, else in single quotes.
    static func shellWord(_ path: String) -> String {
        let plain =
            !path.isEmpty && path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-/".contains($0)) }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The last component: `a/b.yaml` → `b.yaml`, `a/b/` → `b`, `/` → `/`.
    static func lastComponent(_ path: String) -> String {
        let trimmed = trimTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The folder holding `path`: `a/b.yaml` → `a`, `b.yaml` → `.`, `/b` → `/`, `.` → `..`.
    static func parent(_ path: String) -> String {
        let trimmed = trimTrailingSlashes(path)
        if trimmed.isEmpty || trimmed == "." { return ".." }
        if trimmed == "/" { return "/" }
        if trimmed == ".." || trimmed.hasSuffix("/..") { return trimmed + "/.." }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// `a` + `b` → `a/b`.
    static func join(_ base: String, _ component: String) -> String {
        if base.isEmpty || base == "." { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// The components of the absolute form of `path`, with `.` and `..` resolved.
    static func absoluteComponents(_ path: String, cwd: String) -> [String] {
        PathText.absoluteComponents(path, from: cwd)
    }

    /// The absolute form of `path`, with `.` and `..` resolved.
    static func absolute(_ path: String, cwd: String) -> String {
        "/" + absoluteComponents(path, cwd: cwd).joined(separator: "/")
    }

    /// The components of `path` below the folder `root`, however each is written (`.`,
    /// `./journeys/`, `../app`, absolute; both from `cwd`): none when `path` is `root`, nil
    /// when it is not inside it.
    static func components(of path: String, below root: String, cwd: String) -> ArraySlice<String>? {
        let base = absoluteComponents(root, cwd: cwd)
        let full = absoluteComponents(path, cwd: cwd)
        guard full.count >= base.count, full.prefix(base.count).elementsEqual(base) else { return nil }
        return full.dropFirst(base.count)
    }

    /// `name` without the first matching suffix.
    static func removingSuffix(_ name: String, _ suffixes: [String]) -> String {
        for suffix in suffixes where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
        return name
    }

    static func trimTrailingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return String(result)
    }
}
