import Testing

@testable import JourneyCore

/// The explorer's state keys (``StateEncoder``) and the table that keeps them (``StateTable``).
@Suite("Explorer state keys")
struct StateKeyTests {
    static let now = JourneyMachineTimeTests.now

    static let resend = JourneyMachineTimeTests.resend

    /// The key of the resend journey waiting at its first step, on a device whose clock is
    /// `clock` seconds and whose store keeps `sentAt`, told apart within `horizon` seconds.
    func key(
        sentAt: Int, clock: Int = now, horizon: Int = 120, profile: DeviceProfile = DeviceProfile()
    ) throws
        -> [UInt8]
    {
        let (library, diagnostics) = compile([Self.resend])
        let lib = try #require(library, "\(diagnostics)")
        let device = DeviceState(profile: profile, store: ["sentAt": .int(sentAt)], clock: clock * 1000)
        var machine = JourneyMachine(library: lib, journey: try #require(lib["t.j"]), device: device)
        _ = machine.handle(.start)
        var encoder = StateEncoder(defaults: ["sentAt": .int(0)], horizon: horizon)
        return encoder.key(machine, restarts: 0).bytes
    }

    @Test("a time the journey keeps is written as how far it is from the clock, held within the horizon")
    func timesAreRelative() throws {
        // The same wait, a day apart: one state.
        #expect(try key(sentAt: Self.now - 30) == key(sentAt: Self.now - 30 + 86_400, clock: Self.now + 86_400))
        // Waits the journey can tell apart: two.
        #expect(try key(sentAt: Self.now - 30) != key(sentAt: Self.now - 90))
        // Past the horizon, no deadline the journey writes lies between them: one.
        #expect(try key(sentAt: Self.now - 500) == key(sentAt: Self.now - 5000))
        // A time to come is told from one gone by.
        #expect(try key(sentAt: Self.now - 30) != key(sentAt: Self.now + 30))
    }

    @Test("the time of day, the day and a date come are kept when the journey reads them; jumps reach them")
    func calendar() throws {
        func calendar(_ source: String) throws -> ClockCalendar {
            try Expression.parse(source).get().calendar
        }
        let midnight = Self.now * 1000  // 2026-01-01T00:00:00Z
        let night = try calendar("device.now % 86400 >= 82800")
        #expect(night.jumps(from: midnight) == [82_800_000])
        let daily = try calendar("device.now / 86400 != stored.day")
        #expect(daily.jumps(from: midnight) == [86_400_000])
        let cutoff = try calendar("device.now >= 1767312000")
        #expect(cutoff.jumps(from: midnight) == [86_400_000])
        #expect(cutoff.jumps(from: midnight + 2 * 86_400_000).isEmpty, "a date gone by needs no jump")
        #expect(try calendar("until(1767312000) == 0s").jumps(from: midnight) == [86_400_000])
        #expect(try calendar("since(1767312000) > 1h").jumps(from: midnight) == [86_400_000])
        // Times compared with one another are kept relative already: no calendar.
        #expect(try calendar("device.now >= stored.until").isEmpty)
        #expect(try calendar("since(state.sentAt) >= 5m").isEmpty)
        #expect(try calendar("device.now - state.sentAt > 300").isEmpty)

        // The same machine at midnight and at 23:00: one state unless the journey reads the hour.
        let (library, diagnostics) = compile([Self.resend])
        let lib = try #require(library, "\(diagnostics)")
        func key(hours: Int, _ calendar: ClockCalendar) throws -> [UInt8] {
            let device = DeviceState(store: ["sentAt": .int(0)], clock: (Self.now + hours * 3600) * 1000)
            var machine = JourneyMachine(library: lib, journey: try #require(lib["t.j"]), device: device)
            _ = machine.handle(.start)
            var encoder = StateEncoder(defaults: ["sentAt": .int(0)], horizon: 120, calendar: calendar)
            return encoder.key(machine, restarts: 0).bytes
        }
        #expect(try key(hours: 0, ClockCalendar()) == key(hours: 23, ClockCalendar()))
        #expect(try key(hours: 0, night) != key(hours: 23, night))
        #expect(try key(hours: 0, night) == key(hours: 24, night), "midnight the next day is the same time of day")
        #expect(try key(hours: 0, daily) != key(hours: 24, daily))
        #expect(try key(hours: 0, cutoff) == key(hours: 23, cutoff))
        #expect(try key(hours: 0, cutoff) != key(hours: 24, cutoff))
    }

    @Test("every field of the device profile tells states apart")
    func everyProfileField() throws {
        // A field added to DeviceProfile must be written by StateEncoder.writeProfile, and a
        // change to it given below.
        #expect(Mirror(reflecting: DeviceProfile()).children.count == 7)
        let changes: [(String, (inout DeviceProfile) -> Void)] = [
            ("biometry", { $0.biometry = .touchID }),
            ("biometryEnrolled", { $0.biometryEnrolled = true }),
            ("online", { $0.online = false }),
            ("apps", { $0.apps = ["bankid"] }),
            ("opensLinks", { $0.opensLinks = false }),
            ("kdfRounds", { $0.kdfRounds = 1 }),
            ("trustedCAs", { $0.trustedCAs = ["sha256/AAAA"] }),
        ]
        #expect(Set(changes.map(\.0)) == Set(Mirror(reflecting: DeviceProfile()).children.compactMap(\.label)))
        let plain = try key(sentAt: 0)
        var seen: Set<[UInt8]> = [plain]
        for (field, change) in changes {
            var profile = DeviceProfile()
            change(&profile)
            let changed = try key(sentAt: 0, profile: profile)
            #expect(seen.insert(changed).inserted, "a change of \(field) gives a key of its own")
        }
        #expect(
            try key(sentAt: 0, profile: DeviceProfile(kdfRounds: 1))
                != key(sentAt: 0, profile: DeviceProfile(kdfRounds: 2)))
        #expect(
            try key(sentAt: 0, profile: DeviceProfile(apps: ["a", "b"]))
                != key(sentAt: 0, profile: DeviceProfile(apps: ["ab"])))
    }

    @Test("the table numbers keys in the order found, finds each again, and keeps them all as it grows")
    func table() {
        var table = StateTable()
        let keys = (0..<5000).map { n in StateKey(bytes: Array("state \(n)".utf8) + (n % 3 == 0 ? [0] : [])) }
        for (n, key) in keys.enumerated() {
            let (index, new) = table.insert(key)
            #expect(index == n && new)
        }
        #expect(table.count == 5000)
        for (n, key) in keys.enumerated() {
            let (index, new) = table.insert(key)
            #expect(index == n && !new)
            #expect(key.bytes.withUnsafeBytes { table.contains($0, hash: key.hash) })
        }
        // A key that is a prefix of others, or a key's bytes under another hash, is not found.
        let prefix = StateKey(bytes: Array("state ".utf8))
        #expect(!prefix.bytes.withUnsafeBytes { table.contains($0, hash: prefix.hash) })
        #expect(!keys[1].bytes.withUnsafeBytes { table.contains($0, hash: keys[1].hash &+ 1) })
        #expect(table.count == 5000)
    }
}
