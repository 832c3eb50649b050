import Dispatch

/// Work over independent items spread across the machine's cores, with results in the
/// items' order, so what runs in parallel still gives the same output as a serial run.
package enum Parallel {
    /// `transform` applied to every item, concurrently when `parallel` is true (the caller
    /// judges whether the work is worth waking other threads for) and there is more than one.
    package static func map<Item, Mapped>(
        _ items: [Item], parallel: Bool = true, _ transform: (Item) -> Mapped
    ) -> [Mapped] {
        guard parallel, items.count > 1 else { return items.map(transform) }
        var results = [Mapped?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { buffer in
            // Each iteration writes only its own slot.
            nonisolated(unsafe) let slots = buffer
            withoutActuallyEscaping(transform) { transform in
                nonisolated(unsafe) let transform = transform
                items.withUnsafeBufferPointer { items in
                    nonisolated(unsafe) let items = items
                    DispatchQueue.concurrentPerform(iterations: items.count) { i in
                        slots[i] = transform(items[i])
                    }
                }
            }
        }
        return results.map { $0! }
    }
}
