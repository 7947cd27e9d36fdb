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

extension VerificationStore {
    /// Which read memos a store builds on: all of them, unless turned off to measure what each
    /// buys (`HOSTED_DISABLE_MEMOS`, docs/performance.md). Off, answers are the same.
    public struct Memos: Sendable {
        /// A row read again with the same cells is not decoded again.
        public var decodedRows = true
        /// SQLite: a poll or a repeated create's read answered from the last read while this
        /// process committed nothing (off: `localRead()` is nil, as on PostgreSQL).
        public var localReads = true
        /// SQLite: which verification a repeated create's read found open.
        public var openReads = true

        public init() {}
    }

    /// The names in `columns`, in order.
    static let columnNames: [String] = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Before a read of verification `id` (nil: found by something else), for `decoded`.
    func readTicket(for id: ObjectID?) -> ReadMemo<VerificationDecoding.Decoded>.Ticket {
        decoding.memo.ticket(for: id?.rawValue)
    }

    /// `row`'s verification: the one decoded before from the same cells, else decoded now (and
    /// kept, unless the verification changed since `ticket`). `asOf`: the read was a poll's, at
    /// that count of local commits, and is kept with it.
    func decoded(_ row: Row, ticket: ReadMemo<VerificationDecoding.Decoded>.Ticket,
                 asOf: LocalRead? = nil) throws -> Verification {
        let count = Self.columnNames.count
        guard let start = decoding.start(of: row.layout), row.values.count >= start + count,
              case .text(let id) = row.values[start]
        else { return try verification(from: row) }
        let cells = row.values[start..<start + count]
        // With `decodedRows` off the row is decoded every time, and still kept for `localReads`.
        if decoding.memos.decodedRows, var known = decoding.memo.value(for: id, where: { $0.cells.elementsEqual(cells) }) {
            if let asOf {
                known.asOf = asOf
                decoding.memo.remember(known, for: id, ticket: ticket)
            }
            return known.verification
        }
        let verification = try self.verification(from: row)
        decoding.memo.remember(VerificationDecoding.Decoded(cells: Array(cells), verification: verification, asOf: asOf),
                               for: id, ticket: ticket)
        return verification
    }

    /// How long a poll takes the verification the last poll read, without reading it again,
    /// while this process has committed nothing since (`Database.localCommits`, SQLite only):
    /// the longest a change made by another process (an operator's `sqlite3` shell) stays unseen.
    static let recentPollLifetime: TimeInterval = 1

    /// Where this process stands now, for a read that may be kept and taken again: the count of
    /// its commits and the time (nil on PostgreSQL, where every read asks the database).
    public func localRead() -> LocalRead? {
        guard decoding.memos.localReads else { return nil }
        return database.localCommits.map { LocalRead(commits: $0, time: clock.now()) }
    }

    /// The verification `id` of `accountID` as a poll read it, if no change this process made can
    /// have reached it since: that read saw the count of commits `now` has, and it is younger
    /// than `recentPollLifetime`. Any change through any connection of this process moves the count.
    func recentlyPolled(accountID: ObjectID, id: ObjectID, now: LocalRead) -> FoundVerification? {
        let known = decoding.memo.value(for: id.rawValue) { known in
            known.asOf?.isRecent(now) == true && known.verification.accountID == accountID
        }
        return known.map { FoundVerification(verification: $0.verification, asOf: $0.asOf) }
    }

    /// The same for a repeated create: the open verification of this account, user and workflow
    /// (`openKey`) that the last such read found, under the same conditions, as of the older of
    /// the two reads it takes.
    func recentlyOpen(accountID: ObjectID, userID: String, workflowKey: String, key: String,
                      now: LocalRead) -> FoundVerification? {
        guard let found = decoding.open.value(for: key, where: { $0.asOf.isRecent(now) }),
              let open = recentlyPolled(accountID: accountID, id: found.id, now: now),
              open.verification.userID == userID, open.verification.workflowKey == workflowKey,
              let polled = open.asOf
        else { return nil }
        return FoundVerification(verification: open.verification, asOf: polled.time < found.asOf.time ? polled : found.asOf)
    }

    static func openKey(_ accountID: ObjectID, _ userID: String, _ workflowKey: String) -> String {
        // A user id has no control character, so the last \u{1} ends the workflow key and two
        // triples never share a key (`recentlyOpen` compares the fields anyway).
        "\(accountID.rawValue)\u{1}\(workflowKey)\u{1}\(userID)"
    }
}

/// A verification a read found, and where this process stood when that read ran (nil on
/// PostgreSQL): something made from it may be kept and used again while `asOf` is recent.
public struct FoundVerification: Sendable {
    public let verification: Verification
    public let asOf: LocalRead?
}

/// When a read ran, by the clock and by the count of changes this process had committed
/// (`Database.localCommits`): what a result kept from that read is checked against before it is
/// taken again.
public struct LocalRead: Sendable {
    public let commits: UInt64
    public let time: Date

    /// Nothing was committed here between this read and `now`, and it is younger than
    /// `VerificationStore.recentPollLifetime`.
    public func isRecent(_ now: Self) -> Bool {
        let age = now.time.timeIntervalSince(time)
        return commits == now.commits && age >= 0 && age < VerificationStore.recentPollLifetime
    }
}
