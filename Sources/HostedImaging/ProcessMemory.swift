import CVips
import Foundation

/// How the process's allocator is held in for large decodes.
public enum ProcessMemory {
    /// Caps glibc's arenas at two per core (at least two), before the server's threads start:
    /// with its default of eight per core, eight heavy uploads at once left 40 to 70 MiB of
    /// freed decode buffers spread over arenas that `malloc_trim` could not give back
    /// (`tests/e2e/test_decode_limits.py`); with the cap they are returned. More threads then
    /// share an arena, which costs a little lock contention in malloc, on a server whose threads
    /// are few.
    public static func limitAllocatorArenas(cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        hosted_limit_malloc_arenas(Int32(max(2, 2 * cores)))
    }
}
