/// Path arithmetic on plain strings, for the tools around the core (the core itself never
/// touches files): Foundation's `NSString` path methods trap on Linux for one-character paths
/// such as `.` or `a`.
public enum PathText {
    /// The components of the absolute form of `path`, with `.` and `..` resolved; a relative
    /// `path` starts from `folder` (itself absolute).
    public static func absoluteComponents(_ path: String, from folder: String) -> [String] {
        let full = path.hasPrefix("/") ? path : folder + "/" + path
        var parts: [String] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(String(part))
            }
        }
        return parts
    }
}
