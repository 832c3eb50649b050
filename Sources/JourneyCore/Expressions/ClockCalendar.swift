/// What a journey reads of the clock as a calendar (``Expression/calendar``): the time of day
/// or of the hour (`device.now % 86400`), the day or the hour (`device.now / 86400`), whether a
/// date has come (`device.now >= 1767312000`). The explorer keeps times only as far from one
/// another as the journey can tell, which would make 23:00 and noon, or the days before and
/// after a cut-off date, one state: what a journey reads this way is kept in the state
/// (``StateEncoder``), and the clock jumps that reach the times it tells are played.
public struct ClockCalendar: Sendable, Hashable {
    /// Each `N` of a `device.now % N`, in seconds, ascending.
    private(set) var remainders: [Int] = []
    /// Each `N` of a `device.now / N`, in seconds, ascending.
    private(set) var quotients: [Int] = []
    /// Each date (seconds since 1970) the clock is compared with, ascending.
    private(set) var cutoffs: [Int] = []
    /// The other ints written beside a `% N` and below `N`, in seconds: the times of day it
    /// tells (82800 in `device.now % 86400 >= 82800`, 23:00), each a jump from midnight.
    private var told: [Int] = []

    public init() {}

    var isEmpty: Bool { remainders.isEmpty && quotients.isEmpty && cutoffs.isEmpty }

    /// The longest clock jump a calendar gives: a year (a longer one reaches nothing a path of a
    /// journey would wait for).
    static let longestJump = 366 * 86_400

    /// Whether an int reads as a date, as `device.now` gives one (seconds since 1970, from 2001
    /// to 2286): as ``StateEncoder`` takes stored times.
    static func readsAsDate(_ n: Int) -> Bool { (1_000_000_000...9_999_999_999).contains(n) }

    mutating func add(remainder: Int, telling times: [Int]) {
        remainders = Self.adding([remainder], to: remainders)
        told = Self.adding(times, to: told)
    }

    mutating func add(quotient: Int) { quotients = Self.adding([quotient], to: quotients) }

    mutating func add(cutoff: Int) { cutoffs = Self.adding([cutoff], to: cutoffs) }

    /// Both calendars' reads.
    func merged(_ other: ClockCalendar) -> ClockCalendar {
        var merged = self
        merged.remainders = Self.adding(other.remainders, to: remainders)
        merged.quotients = Self.adding(other.quotients, to: quotients)
        merged.cutoffs = Self.adding(other.cutoffs, to: cutoffs)
        merged.told = Self.adding(other.told, to: told)
        return merged
    }

    /// The clock jumps (milliseconds, ascending) that reach what the calendar tells from a device
    /// whose clock reads `clock` (milliseconds): each time of day told beside a `% N`, each `N`
    /// of a `/ N` (the next day), and the time until each date yet to come; none longer than a
    /// year.
    func jumps(from clock: Int) -> [Int] {
        let now = clock / 1000
        let seconds = told + quotients + cutoffs.compactMap { $0 > now ? $0 - now : nil }
        return Self.adding(seconds.filter { $0 > 0 && $0 <= Self.longestJump }, to: []).map { $0 * 1000 }
    }

    /// What the calendar keeps of a clock (milliseconds), written by `write`: each time of day,
    /// each day, whether each date has come.
    func write(clock: Int, _ write: (Int) -> Void) {
        let seconds = clock / 1000
        for period in remainders { write(seconds % period) }
        for length in quotients { write(seconds / length) }
        for date in cutoffs { write(seconds >= date ? 1 : 0) }
    }

    private static func adding(_ items: [Int], to list: [Int]) -> [Int] { Array(Set(list + items)).sorted() }
}
