import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What SIGINT, SIGTERM or SIGHUP leaves when it ends `journey` while a file is being written:
/// nothing. A command that does not catch the signal itself dies of it, as it would without
/// this, but first removes the temporaries it is writing (``AtomicFile``), so that Ctrl-C on
/// `journey run --transcript` or `journey docs` leaves no `.NAME.journey-PID.tmp` behind; and a
/// change of several files whose journal is written (``FileTransaction``) is finished before
/// the signal is taken, so that Ctrl-C never leaves a journal for the next command to finish.
///
/// The temporaries are kept in a fixed table a signal handler may read (as
/// ``LiveProcesses``'s process groups are). A signal whose action is not the default one when
/// the first temporary is kept (a command that catches it to stop in order, a worker that
/// ignores SIGINT) is left as it is.
enum SignalCleanup {
    /// How many temporaries are kept at once; more are left for the next writer to delete.
    static let capacity = 64
    /// The longest path kept, with its terminating zero.
    static let slotSize = Int(PATH_MAX)

    /// The temporaries' paths, one zero-terminated path per slot; a slot whose first byte is 0
    /// is free. Only ``add(_:)`` and ``remove(_:)`` write it, under ``lock``.
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<CChar> = {
        let slots = UnsafeMutablePointer<CChar>.allocate(capacity: capacity * slotSize)
        slots.initialize(repeating: 0, count: capacity * slotSize)
        return slots
    }()

    /// How many file changes are between their journal and its removal (a signal then waits
    /// for them), with ``ending`` set once the process is ending: from then on no change
    /// starts. One word, so that a change starting and the process ending exclude each other.
    private static let state = Atomic<Int>(0)
    /// The bit of ``state`` set when the process is ending (``die(of:)``, ``exit(_:)``): the
    /// temporaries have been or are being removed, and a thread that makes one now removes it
    /// itself (``made(_:)``).
    private static let ending = 1 << 40
    /// The signal that arrived while a change was being made, 0 while none did.
    private static let pending = Atomic<Int32>(0)
    private static let lock = Mutex(())

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Keeps `path`, a temporary this process is writing, to be removed if a signal ends it.
    static func add(_ path: String) {
        let bytes = Array(path.utf8)
        // A path too long to keep is left, if a signal comes, for the next writer to delete.
        guard bytes.count < slotSize, !bytes.isEmpty, !bytes.contains(0) else { return }
        lock.withLock { _ in
            installWhereDefault()
            guard let slot = (0..<capacity).first(where: { slots[$0 * slotSize] == 0 }) else { return }
            let start = slots + slot * slotSize
            // The first byte last: a handler never reads a slot half written.
            for (offset, byte) in bytes.enumerated().dropFirst() { start[offset] = CChar(bitPattern: byte) }
            start[bytes.count] = 0
            start[0] = CChar(bitPattern: bytes[0])
        }
    }

    /// Says that the temporary `path`, kept with ``add(_:)``, has just been made. While the
    /// process ends on another thread, that thread may have removed the temporaries before this
    /// one existed: then it is removed here, and this thread waits for the end instead of going
    /// on to write it.
    static func made(_ path: String) {
        // A read-modify-write, not a load: with the ending thread's own, it orders the slot
        // written in ``add(_:)`` before that thread's look at the table, or this look after it.
        guard state.add(0, ordering: .sequentiallyConsistent).newValue & ending != 0 else { return }
        unlink(path)
        waitForTheEnd()
    }

    /// Forgets `path` (once, as it was kept once): renamed into place, removed, or handed to a
    /// journal.
    static func remove(_ path: String) {
        lock.withLock { _ in
            for slot in 0..<capacity where slots[slot * slotSize] != 0 {
                guard String(cString: slots + slot * slotSize) == path else { continue }
                slots[slot * slotSize] = 0
                return
            }
        }
    }

    /// Holds back SIGINT, SIGTERM and SIGHUP until ``resume()``: a file change whose journal
    /// is being written or applied is finished first. Once the process is ending, no change
    /// starts: this thread waits for the end, its staged files still kept for removal.
    static func hold() {
        var current = state.load(ordering: .sequentiallyConsistent)
        while true {
            if current & ending != 0 { waitForTheEnd() }
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current + 1, ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = original
        }
    }

    /// Ends a ``hold()``; a signal that arrived meanwhile is taken now.
    static func resume() {
        let left = state.subtract(1, ordering: .sequentiallyConsistent).newValue
        guard left == 0 else { return }
        let signal = pending.exchange(0, ordering: .sequentiallyConsistent)
        if signal != 0 { die(of: signal) }
    }

    /// Ends the process at once with `status` (`_exit`: no exit hook runs), as a signal would:
    /// a change of files under way is let finish (for a moment at most), and the temporaries
    /// are removed. For a worker whose `journey test` is gone.
    static func exit(_ status: Int32) -> Never {
        // Under the lock: no temporary is kept meanwhile.
        lock.withLock { _ in
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline {
                if state.compareExchange(expected: 0, desired: ending, ordering: .sequentiallyConsistent).exchanged {
                    break
                }
                usleep(1000)
            }
            _ = state.bitwiseOr(ending, ordering: .sequentiallyConsistent)
            removeTemporaries()
            _exit(status)
        }
    }

    /// Removes every temporary kept. Only what a signal handler may do: `unlink`.
    static func removeTemporaries() {
        for slot in 0..<capacity where slots[slot * slotSize] != 0 { unlink(slots + slot * slotSize) }
    }

    /// Removes the temporaries, then dies of `signal` as if it had no handler; while a file
    /// change is being made, leaves the signal to it (``resume()`` takes it). Only what a signal
    /// handler may do.
    static func die(of signal: Int32) {
        while true {
            let current = state.load(ordering: .sequentiallyConsistent)
            // Another thread is ending the process: it dies of its signal.
            if current & ending != 0 { waitForTheEnd() }
            if current == 0 {
                // No change under way, and none can start from here: the temporaries go.
                guard state.compareExchange(expected: 0, desired: ending, ordering: .sequentiallyConsistent).exchanged
                else { continue }
                removeTemporaries()
                SignalAction.die(of: signal)
                waitForTheEnd()
            }
            // A change is being made: the signal waits for its end.
            pending.store(signal, ordering: .sequentiallyConsistent)
            if state.load(ordering: .sequentiallyConsistent) != 0 { return }
            // It ended meanwhile. Unless its resume took the signal, take it back and end here.
            guard pending.exchange(0, ordering: .sequentiallyConsistent) != 0 else { return }
        }
    }

    /// Waits for the process to end, which another thread is making it do.
    private static func waitForTheEnd() -> Never {
        while true { pause() }
    }

    /// Installs the handler for each signal whose action is the default one now (called under
    /// ``lock``): a command that catches a signal, or ignores it, keeps its own action.
    private static func installWhereDefault() {
        // Touched here, so that the handler never starts their lazy set-up.
        _ = slots
        _ = state.load(ordering: .relaxed)
        _ = pending.load(ordering: .relaxed)
        for number in signals where SignalAction.current(number) == .standard {
            SignalAction.install(number, restarting: true) { received in SignalCleanup.handle(received) }
        }
    }

    /// The handler: dies of the signal, or, while a file change is being made, keeps it for
    /// ``resume()`` (``die(of:)``).
    private static func handle(_ signal: Int32) {
        die(of: signal)
    }
}

/// A signal's action, read and set with `sigaction` alike on Glibc and Darwin.
enum SignalAction: Equatable {
    /// The default action (SIG_DFL).
    case standard
    /// Ignored (SIG_IGN).
    case ignored
    /// A handler of the process's.
    case handled

    /// The action `number` has now.
    static func current(_ number: Int32) -> SignalAction {
        var action = sigaction()
        sigaction(number, nil, &action)
        #if canImport(Glibc)
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
        let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
        return handler == 0 ? .standard : handler == 1 ? .ignored : .handled
    }

    /// Makes `handler` the action of `number`; `restarting`, system calls it interrupts go on
    /// (SA_RESTART).
    static func install(
        _ number: Int32, restarting: Bool = false, _ handler: @convention(c) (Int32) -> Void
    ) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        if restarting { action.sa_flags = SA_RESTART }
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigaction(number, &action, nil)
    }

    /// Dies of `signal` as if the process had no handler for it: its default action put back,
    /// the signal unblocked and raised. Only what a signal handler may do.
    static func die(of signal: Int32) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, nil)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, signal)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        raise(signal)
    }
}
