import Foundation

/// Writes where a run is as compact bytes, for the explorer to tell states apart: two machines
/// of the same root journey (an exploration's states all have one) give the same bytes exactly
/// when their snapshots without growth
/// (``JourneyMachine/snapshot(includingGrowth:)`` with `false`), with stored values at their
/// declared defaults and state no expression reads left out, are equal, the times they keep
/// are as far from the clock as the journey can tell (``writeValue(_:timesRelative:)``),
/// and their paths took the same restarts, had the same network answers and left the
/// journey's invariants remembering the same.
///
/// Each explorer thread keeps one encoder: it reuses its buffer, so a key costs no allocation
/// (an explorer copies its bytes only where it keeps them). Dictionaries are written in
/// a canonical order (a journey's declared params and state in declaration order, then any other
/// names sorted; the store sorted by key), so equal contents give equal bytes however the
/// dictionaries were built. Strings are compared by their UTF-8 bytes, which is finer than
/// Swift's canonical equivalence only for text no journey writes two ways.
struct StateEncoder {
    /// Each stored key's declared default, sorted by key: a value equal to it is as good as none.
    let defaults: [(key: String, value: Value)]
    /// State no expression reads, by journey id: left out.
    let unread: [String: Set<String>]
    /// How far apart (in seconds) times the journey keeps can be told.
    let horizon: Int
    /// What of the clock the journey reads as a calendar: written as it is.
    let calendar: ClockCalendar
    private(set) var bytes: [UInt8] = []
    /// The entries of a dictionary being written: where each goes, and where it is.
    private var order: [(position: Int, index: Dictionary<String, Value>.Index)] = []
    /// For each journey met, whether each of its declared state variables is unread: the
    /// journeys are the library's, alive while the encoder is.
    private var unreadByJourney: [ObjectIdentifier: [Bool]?] = [:]
    /// The journey ``unreadFlags(_:)`` was last asked for (one of the library's, alive while
    /// the encoder is), and its answer.
    private var lastJourney: ObjectIdentifier?
    private var lastFlags: [Bool]?
    /// The machine's clock, in seconds, while its key is written.
    private var now = 0

    init(
        defaults: [String: Value], unread: [String: Set<String>] = [:], horizon: Int = 1,
        calendar: ClockCalendar = ClockCalendar()
    ) {
        self.defaults = defaults.sorted { $0.key < $1.key }
        self.unread = unread
        self.horizon = horizon
        self.calendar = calendar
        bytes.reserveCapacity(256)
    }

    /// The hash of the last key written without its restarts (``encode(_:restarts:answered:monitor:broken:rounds:)``).
    private(set) var situationHash: UInt64 = 0

    /// The machine's key, with what its path remembers: the restarts taken, the network's
    /// answers, the invariants' bits, and the invariant it broke.
    mutating func key(
        _ machine: JourneyMachine, restarts: Int, answered: [Int] = [], monitor: [Bool]? = nil, broken: String? = nil
    ) -> StateKey {
        let hash = encode(machine, restarts: restarts, answered: answered, monitor: monitor, broken: broken)
        return StateKey(bytes: bytes, hash: hash)
    }

    /// Writes the key of ``key(_:restarts:answered:monitor:broken:)`` into ``bytes``, without
    /// making a copy of it, and answers its hash: an explorer copies the bytes only where it
    /// keeps them.
    mutating func encode(
        _ machine: borrowing JourneyMachine, restarts: Int, answered: [Int] = [], monitor: [Bool]? = nil,
        broken: String? = nil, rounds: UInt64 = 0
    ) -> UInt64 {
        bytes.removeAll(keepingCapacity: true)
        write(machine)
        // A network that has given none of its limited answers is as good as none asked.
        if answered.allSatisfy({ $0 == 0 }) {
            writeInt(0)
        } else {
            writeInt(answered.count)
            for count in answered { writeInt(count) }
        }
        // How long the step has waited, for a handler that reads it, as far as it can be told.
        if machine.currentCompiledStep?.readsTimeAtStep == true {
            writeInt(min((machine.device.clock - machine.stepEnteredAt) / 1000, horizon))
        }
        // The time of day, the day, a date come, as the journey reads them (`device.now % 86400`).
        if !calendar.isEmpty { calendar.write(clock: machine.device.clock) { writeInt($0) } }
        if let monitor {
            writeInt(monitor.count)
            for bit in monitor { bytes.append(bit ? 1 : 0) }
        } else {
            writeInt(-1)
        }
        writeString(broken ?? "")
        // The limits spent and set back on the path (``JourneyExplorer/Node/rounds``), after a
        // mark no count writes, where there are any: a key without is as it always was.
        if rounds != 0 {
            writeInt(-2)
            writeInt(Int(bitPattern: UInt(rounds)))
        }
        // Last, so that the key of a state equal but for its restarts is the same bytes
        // before these (``StateKey/restartsLength(_:)``), and its hash is theirs with the
        // restarts mixed in (``StateKey/hash(situation:restarts:)``).
        situationHash = bytes.withUnsafeBytes { StateKey.hash($0) }
        writeInt(restarts)
        return StateKey.hash(situation: situationHash, restarts: restarts)
    }

    private mutating func write(_ machine: borrowing JourneyMachine) {
        now = machine.device.clock / 1000
        switch machine.state {
        case .idle: bytes.append(0)
        case .atStep: bytes.append(1)
        case .ended(let result):
            if let end = result.end, let kind = result.kind {
                bytes.append(2)
                writeString(end)
                writeString(kind.rawValue)
            } else {
                bytes.append(3)
                writeString(result.failure ?? "")
            }
        }
        // Read in place: the run and its frames are not copied out of the machine.
        let frames = machine.run.frames
        writeInt(frames.count)
        for index in frames.indices {
            let journey = frames[index].journey
            // The first frame's journey is the root's in every key of an exploration: only
            // the sub-journeys it calls are named.
            writeString(index == 0 ? "" : journey.id)
            let step = machine.run.step(of: index)
            writeInt(journey.steps.indices.contains(step) ? step : -1)
            writeVariables(frames[index].params, declared: journey.params)
            writeVariables(
                frames[index].state, declared: journey.state, leaving: unreadFlags(journey), timesRelative: true)
        }
        writeStore(machine.run.device.store)
        writeProfile(machine.run.device.profile)
        bytes.append(machine.run.attemptCharged ? 1 : 0)
    }

    /// Whether each of `journey`'s declared state variables is one no expression reads; nil
    /// when none is.
    private mutating func unreadFlags(_ journey: CompiledJourney) -> [Bool]? {
        // A run is mostly in one journey: the last one asked for is kept at hand.
        let id = ObjectIdentifier(journey)
        if lastJourney == id { return lastFlags }
        let flags: [Bool]?
        if let known = unreadByJourney[id] {
            flags = known
        } else {
            let names = unread[journey.id] ?? []
            flags = names.isEmpty ? nil : journey.state.map { names.contains($0.name) }
            unreadByJourney[id] = .some(flags)
        }
        lastJourney = id
        lastFlags = flags
        return flags
    }

    /// The device profile, field by field (a test holds this to every field it has).
    mutating func writeProfile(_ profile: DeviceProfile) {
        bytes.append(
            UInt8(DeviceProfile.Biometry.allCases.firstIndex(of: profile.biometry) ?? 0) << 4
                | (profile.biometryEnrolled ? 1 : 0) | (profile.online ? 2 : 0) | (profile.opensLinks ? 4 : 0)
                | (profile.kdfRounds == nil ? 0 : 8))
        if let rounds = profile.kdfRounds { writeInt(rounds) }
        writeInt(profile.apps.count)
        for app in profile.apps { writeString(app) }
        writeInt(profile.trustedCAs.count)
        for ca in profile.trustedCAs { writeString(ca) }
    }

    /// A frame's params or state: the declared names in order, then any others sorted. Each
    /// name is found among the declared ones by comparing, not hashing: a journey declares few.
    private mutating func writeVariables(
        _ values: [String: Value], declared: [CompiledVariable], leaving unread: [Bool]? = nil,
        timesRelative: Bool = false
    ) {
        order.removeAll(keepingCapacity: true)
        var others = false
        for index in values.indices {
            let name = values.keys[index]
            var position = 0
            while position < declared.count && declared[position].name != name { position += 1 }
            if position < declared.count { order.append((position, index)) } else { others = true }
        }
        Self.sort(&order) { $0.position < $1.position }
        var next = 0
        for position in declared.indices {
            guard next < order.count, order[next].position == position else {
                bytes.append(0)
                continue
            }
            if let unread, unread[position] {
                bytes.append(0)
            } else {
                bytes.append(1)
                writeValue(values.values[order[next].index], timesRelative: timesRelative)
            }
            next += 1
        }
        guard others else {
            writeInt(0)
            return
        }
        order.removeAll(keepingCapacity: true)
        for index in values.indices where !declared.contains(where: { $0.name == values.keys[index] }) {
            order.append((0, index))
        }
        writeEntries(values, timesRelative: timesRelative)
    }

    /// The device store without the values equal to their declared defaults, sorted by key.
    private mutating func writeStore(_ store: [String: Value]) {
        order.removeAll(keepingCapacity: true)
        for index in store.indices {
            let value = store.values[index]
            if value.isSecret || defaultValue(of: store.keys[index]) != value { order.append((0, index)) }
        }
        writeEntries(store, timesRelative: true)
    }

    /// The entries of `values` at the indices in ``order``, sorted by name.
    private mutating func writeEntries(_ values: [String: Value], timesRelative: Bool) {
        Self.sort(&order) { values.keys[$0.index] < values.keys[$1.index] }
        writeInt(order.count)
        for entry in order {
            writeString(values.keys[entry.index])
            writeValue(values.values[entry.index], timesRelative: timesRelative)
        }
    }

    /// The declared default of a stored key, found by halving ``defaults`` (sorted by key).
    private func defaultValue(of key: String) -> Value? {
        var low = 0
        var high = defaults.count
        while low < high {
            let middle = (low + high) / 2
            if defaults[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low < defaults.count && defaults[low].key == key ? defaults[low].value : nil
    }

    /// Sorts a few entries in place, by insertion: the lists written are short.
    private static func sort<T>(_ items: inout [T], by less: (T, T) -> Bool) {
        guard items.count > 1 else { return }
        for i in 1..<items.count {
            var j = i
            while j > 0 && less(items[j], items[j - 1]) {
                items.swapAt(j, j - 1)
                j -= 1
            }
        }
    }

    /// A value; with `timesRelative`, an int that reads as seconds since 1970 (as `device.now`
    /// gives: when a code was sent, when a lockout ends) is written as how long ago it is or
    /// how long until it comes, held within `horizon`: two situations a minute apart are one
    /// state unless a deadline the journey can tell lies between them.
    private mutating func writeValue(_ value: Value, timesRelative: Bool = false) {
        switch value {
        case .string(let text):
            bytes.append(1)
            writeString(text)
        case .int(let n) where timesRelative && ClockCalendar.readsAsDate(n):
            bytes.append(8)
            writeInt(min(max(now - n, -horizon), horizon))
        case .int(let n):
            bytes.append(2)
            writeInt(n)
        case .bool(let flag): bytes.append(flag ? 4 : 3)
        case .list(let items):
            bytes.append(5)
            writeInt(items.count)
            for item in items { writeValue(item) }
        case .duration(let ms):
            bytes.append(6)
            writeInt(ms)
        case .secret(let inner):
            bytes.append(7)
            writeValue(inner, timesRelative: timesRelative)
        }
    }

    private mutating func writeString(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            writeInt(utf8.count)
            bytes.append(contentsOf: utf8)
        }
        if written == nil {
            writeInt(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// A zigzag LEB128 varint: small numbers take one byte.
    private mutating func writeInt(_ n: Int) {
        Self.appendInt(n, to: &bytes)
    }

    /// Appends `n` as a zigzag LEB128 varint.
    static func appendInt(_ n: Int, to bytes: inout [UInt8]) {
        var rest = zigzag(n)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// `n` with its sign in the lowest bit, so that small negative numbers stay small.
    static func zigzag(_ n: Int) -> UInt64 { UInt64(bitPattern: Int64((n << 1) ^ (n >> (Int.bitWidth - 1)))) }

    /// How many bytes ``appendInt(_:to:)`` writes for `n`.
    static func intLength(_ n: Int) -> Int {
        var rest = zigzag(n)
        var length = 1
        while rest >= 0x80 {
            length += 1
            rest >>= 7
        }
        return length
    }
}

/// A state's key bytes (``StateEncoder``) and their hash, computed where the state was found
/// so that the table that keeps the states only compares.
struct StateKey: Sendable {
    var bytes: [UInt8]
    var hash: UInt64

    init(bytes: [UInt8]) {
        self.bytes = bytes
        self.hash = bytes.withUnsafeBytes { StateKey.hash($0) }
    }

    init(bytes: [UInt8], hash: UInt64) {
        self.bytes = bytes
        self.hash = hash
    }

    /// How many bytes at the end of a key its restarts take: the key of a state equal but for
    /// its restarts is the same bytes before them.
    static func restartsLength(_ restarts: Int) -> Int { StateEncoder.intLength(restarts) }

    /// The hash of a state's key from the hash of its bytes before its restarts (`situation`)
    /// and the restarts: a state equal to another but for its restarts has its hash without
    /// reading its bytes again.
    static func hash(situation: UInt64, restarts: Int) -> UInt64 {
        var h = (situation ^ UInt64(bitPattern: Int64(restarts))) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }

    /// A fast 64-bit hash of bytes (eight at a time, multiplied and folded): it only places
    /// states in the table, so it needs to spread well, not to resist an adversary.
    static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        var i = 0
        while i + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }
}

/// The states an exploration keeps, numbered in the order they were found: every key's bytes
/// one after another in one buffer, and an open-addressing table of state numbers over them.
/// A state costs its key's bytes and about 20 more, with no allocation of its own.
struct StateTable: Sendable {
    private var arena: [UInt8] = []
    /// Where state i's bytes start in `arena`; one more entry than states, for the end.
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// State numbers + 1 (0: empty), by hash; a power of two in size, at most half full.
    private var slots: [Int32] = Array(repeating: 0, count: 1024)

    var count: Int { hashes.count }

    var isEmpty: Bool { hashes.isEmpty }

    /// Bytes the table holds: keys, their positions and hashes, and the slots.
    var bytesUsed: Int { arena.capacity + starts.capacity * 8 + hashes.capacity * 8 + slots.capacity * 4 }

    /// The number of the state with this key, and whether it was just added.
    mutating func insert(_ key: StateKey) -> (index: Int, new: Bool) {
        key.bytes.withUnsafeBytes { insert($0, hash: key.hash) }
    }

    /// The number of the state whose key is `keys[range]` (with this hash), and whether it was
    /// just added.
    mutating func insert(_ keys: [UInt8], _ range: Range<Int>, hash: UInt64) -> (index: Int, new: Bool) {
        keys.withUnsafeBytes { insert(UnsafeRawBufferPointer(rebasing: $0[range]), hash: hash) }
    }

    /// The number of the state whose key is `bytes` (with this hash), and whether it was just
    /// added: the bytes are copied into the table only then.
    mutating func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> (index: Int, new: Bool) {
        let (slot, found) = find(bytes, hash: hash)
        if let found { return (found, false) }
        let index = hashes.count
        arena.append(contentsOf: bytes)
        starts.append(arena.count)
        hashes.append(hash)
        slots[slot] = Int32(index + 1)
        if hashes.count * 2 > slots.count { grow() }
        return (index, true)
    }

    /// Forgets every state, keeping the storage.
    mutating func removeAll() {
        guard !hashes.isEmpty else { return }
        arena.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        starts.append(0)
        hashes.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Calls `body` with the key of state `index`.
    func withKey<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try arena.withUnsafeBytes { arena in
            try body(UnsafeRawBufferPointer(rebasing: arena[starts[index]..<starts[index + 1]]))
        }
    }

    /// Whether a state with this key is in the table.
    func contains(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
        find(bytes, hash: hash).index != nil
    }

    /// The number of the state with this key, if the table has it.
    func index(of bytes: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        find(bytes, hash: hash).index
    }

    /// The state with this key, or the empty slot where it would go.
    private func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> (slot: Int, index: Int?) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return (slot, nil) }
            if hashes[entry - 1] == hash, matches(entry - 1, bytes) { return (slot, entry - 1) }
            slot = (slot + 1) & mask
        }
    }

    private func matches(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index]
        let end = starts[index + 1]
        guard end - start == bytes.count else { return false }
        guard let base = bytes.baseAddress else { return true }
        return arena.withUnsafeBufferPointer { arena in memcmp(arena.baseAddress! + start, base, bytes.count) == 0 }
    }

    private mutating func grow() {
        let size = slots.count * 2
        let mask = size - 1
        var bigger = [Int32](repeating: 0, count: size)
        for index in hashes.indices {
            var slot = Int(truncatingIfNeeded: hashes[index]) & mask
            while bigger[slot] != 0 { slot = (slot + 1) & mask }
            bigger[slot] = Int32(index + 1)
        }
        slots = bigger
    }
}
