import Foundation
import HostedCore

/// Reads of a verification that is polled over and over decode its row once per change: the
/// decoded value is kept with the cells it came from (`ReadMemo`), and a read whose cells are
/// the same, value for value, takes it as it is.
///
/// `@unchecked Sendable`: `layouts` is only touched while holding `lock`.
final class VerificationDecoding: @unchecked Sendable {
    struct Decoded: Sendable {
        let cells: [SQLValue]
        let verification: Verification
        /// For a poll's read: `Database.localCommits` before it ran, and when
        /// (`VerificationStore.recentlyPolled`).
        var asOf: LocalRead?
    }

    /// Which verification a repeated create's read found open, and when.
    struct OpenRead: Sendable {
        let id: ObjectID
        let asOf: LocalRead
    }

    let memo: ReadMemo<Decoded>
    /// Which verification a repeated create's read found open for an account, user and workflow,
    /// and when (`VerificationStore.recentlyOpen`).
    let open: ReadMemo<OpenRead>
    /// Which memos are on (`VerificationStore.Memos`).
    let memos: VerificationStore.Memos
    private let lock = NSLock()
    /// Result layouts seen, and where `VerificationStore.columns` start in each (nil: they are not
    /// there in that order). Held strongly, so an identity is never that of a freed layout.
    private var layouts: [(layout: ResultColumns, start: Int?)] = []

    init(_ memos: VerificationStore.Memos) {
        self.memos = memos
        memo = ReadMemo()
        open = ReadMemo(capacity: memos.openReads ? 1024 : 0)
    }

    /// Where the verification's columns start in `layout`, checked once per layout by name.
    func start(of layout: ResultColumns) -> Int? {
        lock.lock()
        if let known = layouts.first(where: { $0.layout === layout }) {
            lock.unlock()
            return known.start
        }
        lock.unlock()
        let names = VerificationStore.columnNames
        var start = layout.position(of: "id")
        if let first = start, !layout.names.dropFirst(first).starts(with: names) { start = nil }
        lock.lock()
        // A layout lives as long as its connection: a few per connection, replaced when one is.
        if layouts.count >= 256 { layouts.removeAll() }
        layouts.append((layout, start))
        lock.unlock()
        return start
    }
}
