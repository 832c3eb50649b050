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

    /// What a scenario file's name ends in, without which it names the scenario's goldens (and,
    /// as a rule, its id).
    public static let scenarioSuffixes = [".scenario.yaml", ".scenario.yml", ".yaml", ".yml"]

    /// A scenario file's name without its folder and its suffix (``scenarioSuffixes``):
    /// `journeys/app/scenarios/wrong-pin.scenario.yaml` → `wrong-pin`.
    public static func scenarioName(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in scenarioSuffixes where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
        return name
    }
}
