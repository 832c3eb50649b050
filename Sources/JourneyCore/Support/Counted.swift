/// `n` and the noun, plural unless `n` is 1 ("1 journey", "3 scenarios"): what every count
/// the commands and the docs print says.
public func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
