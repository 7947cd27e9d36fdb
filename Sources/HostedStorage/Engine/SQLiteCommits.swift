import Foundation
import HostedCore
import Synchronization

/// How many times connections of this process committed changes to one SQLite file
/// (`Database.localCommits`): one count per file, shared by every connection and pool that
/// opened it, under whatever path (it is found by device and inode).
final class SQLiteCommits: Sendable {
    let count = Atomic<UInt64>(0)

    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let known = Guarded<[FileID: SQLiteCommits]>([:])

    /// The count of the file at `path`, nil if there is none (an in-memory database).
    static func ofFile(at path: String) -> SQLiteCommits? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let file = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return known.withLock { counts in
            if let existing = counts[file] { return existing }
            let created = SQLiteCommits()
            counts[file] = created
            return created
        }
    }
}
