import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much memory an exploration may take: once the process holds that much, the exploration
/// stops as the state bound stops it, and says so (``JourneyExplorer/memoryFull``). A space
/// with no end, explored with a large `--states`, would otherwise grow until the system killed
/// the process, and nothing it found would be said.
struct MemoryBound: Sendable, Equatable, CustomStringConvertible {
    var bytes: UInt64

    /// The bound an exploration is held to: `given` (`--memory`, checked already), else the
    /// project file's `defaults.explore.memory`, else the standard one.
    static func chosen(_ given: String?, _ defaults: ProjectSettings.ExploreDefaults) -> MemoryBound {
        given.flatMap(MemoryBound.init) ?? defaults.memory.map(MemoryBound.init(bytes:)) ?? .standard
    }

    /// Three quarters of the memory the process may use (``available``).
    static var standard: MemoryBound { MemoryBound(bytes: available / 4 * 3) }

    /// The memory the process may use: the machine's, or less where the control group it runs
    /// in (a container's limit) says so.
    static var available: UInt64 {
        var found = ProcessInfo.processInfo.physicalMemory
        // cgroup v2, then v1; "max" (v2) or a huge number (v1) when there is no limit.
        for file in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8),
                let limit = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
            else { continue }
            found = min(found, limit)
        }
        return found
    }

    /// The memory the process holds now (its resident set), or nil where it cannot be read.
    static func resident() -> UInt64? {
        #if canImport(Glibc)
        // The second field of /proc/self/statm: resident pages.
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
        #elseif canImport(Darwin)
        var info = mach_task_basic_info()
        var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
        let status = withUnsafeMutablePointer(to: &info) {
            $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
            }
        }
        return status == KERN_SUCCESS ? UInt64(info.resident_size) : nil
        #else
        return nil
        #endif
    }

    /// The bound as an explorer checks it, against the process's resident memory.
    var check: JourneyExplorer.MemoryCheck { JourneyExplorer.MemoryCheck(bytes: bytes, held: { Self.resident() }) }

    /// Gives what an exploration freed back to the system, so that the next one is measured by
    /// what it takes itself, not by what the last one left in the allocator's free lists: when
    /// the process holds half the bound or more (a trim walks the heap, and most explorations
    /// are small).
    func release() {
        #if canImport(Glibc)
        if let held = Self.resident(), held >= bytes / 2 { _ = Self.trim?(0) }
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim`, which its module does not export: looked up once.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif

    /// A size as `--memory` takes it (``MemorySize``).
    init?(_ text: String) {
        guard let bytes = MemorySize.parse(text) else { return nil }
        self.bytes = bytes
    }

    init(bytes: UInt64) { self.bytes = bytes }

    /// The size in the largest binary unit it reaches, with one decimal: `18.0 GiB`, `512.0 MiB`.
    var description: String { MemorySize.format(bytes) }
}
