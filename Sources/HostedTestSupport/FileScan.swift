import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which of some texts stand in clear anywhere in the files under a directory (a database
/// server's data directory, a base backup): every regular file read whole, searched with
/// `memchr` and `memcmp`. Files that vanish or cannot be read while the scan runs are skipped.
public enum FileScan {
    public static func find(_ needles: [String], under directory: String) throws -> Set<String> {
        var found = Set<String>()
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return found }
        for case let relative as String in walker {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path), !data.isEmpty
            else { continue }
            data.withUnsafeBytes { haystack in
                for needle in needles where !found.contains(needle) {
                    let bytes = Array(needle.utf8)
                    if contains(haystack, bytes) { found.insert(needle) }
                }
            }
            if found.count == needles.count { break }
        }
        return found
    }

    /// Whether `needle` stands in `haystack`: each place its first byte is (`memchr`), compared whole.
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else { return false }
        var offset = 0
        let last = haystack.count - needle.count
        while offset <= last {
            guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
            let position = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + position, needle, needle.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }
}
