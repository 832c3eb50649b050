import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM caught while a long computation of this process runs (an exploration),
/// for it to see at its next check and stop with what it has: the first signal is kept, and
/// its default action put back, so that a second one ends the process at once.
enum Interruption {
    /// The signal caught, 0 while none is.
    private static let caught = Atomic<Int32>(0)

    /// The actions ``catchSignals()`` replaced, put back by ``release()``.
    nonisolated(unsafe) private static var replaced: [(Int32, sighandler_t?)] = []

    /// Catches SIGINT and SIGTERM until ``release()``.
    static func catchSignals() {
        // Touched here, so that the handler never starts the property's lazy set-up.
        _ = caught.load(ordering: .relaxed)
        replaced = [SIGINT, SIGTERM].map { number in
            let previous = signal(number) { number in
                // Only what a signal handler may do: a lock-free store, and `signal`.
                Interruption.caught.store(number, ordering: .relaxed)
                signal(number, SIG_DFL)
            }
            return (number, previous)
        }
    }

    /// Puts back the actions ``catchSignals()`` replaced (by default, a signal ends the process).
    static func release() {
        for (number, previous) in replaced { signal(number, previous ?? SIG_DFL) }
        replaced = []
    }

    /// Whether a signal was caught since ``catchSignals()``.
    static var isRequested: Bool { caught.load(ordering: .relaxed) != 0 }

    /// The signal caught, by name (``SignalPipe/name(_:)``); nil while none is.
    static var signalName: String? {
        let number = caught.load(ordering: .relaxed)
        return number == 0 ? nil : SignalPipe.name(number)
    }

    /// The exit status of a command a signal stopped, by the signal's name: 143 for SIGTERM,
    /// 130 for SIGINT.
    static func exitStatus(_ signal: String) -> Int32 { signal == "SIGTERM" ? 143 : 130 }
}
