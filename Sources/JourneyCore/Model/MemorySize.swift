/// A size of memory as `journey explore --memory` and a project file's `defaults.explore.memory`
/// take it: a number with a binary unit (`512MiB`, `4GiB`, `1.5G`, `800M`, `2T`; `K`, `M`, `G`,
/// `T`, with or without `iB` or `B`), from 1 MiB to 16 TiB.
public enum MemorySize {
    /// What a size must be, as a refusal says it.
    public static let rule = "a size from 1MiB to 16TiB with its unit, like 512MiB, 4GiB or 1.5G"

    /// The bytes `text` stands for; nil when it is no size, or out of range. Units count in
    /// 1 024s whether written `M`, `MB` or `MiB`, as `docker --memory` and Java's `-Xmx` do.
    public static func parse(_ text: String) -> UInt64? {
        let units: [(String, Double)] = [("K", 0x400), ("M", 0x10_0000), ("G", 0x4000_0000), ("T", 0x100_0000_0000)]
        var number = Substring(text)
        if number.hasSuffix("iB") {
            number = number.dropLast(2)
        } else if number.hasSuffix("B") {
            number = number.dropLast()
        }
        guard let unit = units.first(where: { number.hasSuffix($0.0) }) else { return nil }
        // Digits with at most one decimal point and a digit after it, as the schema's pattern has
        // it: not an exponent, a sign or a hexadecimal number, which `Double` would also read.
        let digits = number.dropLast()
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.last?.isEmpty == false,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let value = Double(digits), value > 0
        else { return nil }
        let bytes = value * unit.1
        guard bytes >= 0x10_0000, bytes <= 0x1000_0000_0000 else { return nil }
        return UInt64(bytes)
    }

    /// `bytes` in the largest binary unit it reaches, with one decimal: `18.0 GiB`, `512.0 MiB`.
    public static func format(_ bytes: UInt64) -> String {
        let units: [(String, UInt64)] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        let (name, size) = units.first { bytes >= $0.1 } ?? ("KiB", 1 << 10)
        let tenths = (bytes * 10 + size / 2) / size
        return "\(tenths / 10).\(tenths % 10) \(name)"
    }
}
