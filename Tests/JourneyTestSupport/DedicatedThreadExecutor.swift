import Foundation

// Live scenarios hold the provider's lock while they wait on the network. Tests that wait on
// subprocesses block the shared cooperative threads meanwhile; a scenario run in a test must
// resume on a thread of its own, or a subprocess waiting for the same lock would wait on it.

/// A task executor with one thread of its own.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    public init() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "journeykit-live-tests"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func loop() {
        while true {
            let job = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
