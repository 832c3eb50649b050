import Testing

@testable import JourneyCore

/// Names read from a run's small dictionaries (``Swift/Dictionary/value(named:)``): compared
/// one by one while there are few, hashed when there are more, the same value either way.
@Suite("Values read by name")
struct ValueLookupTests {
    @Test(
        "every name gives what the dictionary holds under it, and a missing one nothing",
        arguments: [0, 1, 3, 6, 7, 40])
    func sameAsSubscript(count: Int) {
        var values: [String: Value] = [:]
        for index in 0..<count {
            // Short names and names too long to be held inline, secrets among them.
            let name = index.isMultiple(of: 2) ? "n\(index)" : "a-name-longer-than-fifteen-bytes-\(index)"
            values[name] = index.isMultiple(of: 3) ? .secret(.string("s\(index)")) : .int(index)
        }
        for name in values.keys { #expect(values.value(named: name) == values[name], "\(name)") }
        for missing in ["", "n", "n1000", "a-name-longer-than-fifteen-bytes-"] {
            #expect(values.value(named: missing) == nil, "\(missing)")
        }
    }

    @Test("a name equal by Unicode's rules but written otherwise finds the value, as the dictionary does")
    func canonicalEquivalence() {
        let values: [String: Value] = ["caf\u{E9}": .int(1)]
        #expect(values.value(named: "cafe\u{301}") == .int(1))
        #expect(values["cafe\u{301}"] == .int(1))
    }
}
