import Foundation
import HostedCore

/// Reads that decode a row once per change (`VerificationDecoding`), and the recent reads a poll
/// or a repeated create may take again without asking the database (SQLite only).
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
    static let columnNames: [String] = columns.split(separator: ",").map { name in name.trimmingCharacters(in: .whitespacesAndNewlines) }

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

    /// The verification `id` of `tenancy` as a poll read it, if no change this process made can
    /// have reached it since: that read saw the count of commits `now` has, and it is younger
    /// than `recentPollLifetime`. Any change through any connection of this process moves the count.
    func recentlyPolled(tenancy: Tenancy, id: ObjectID, now: LocalRead) -> FoundVerification? {
        let known = decoding.memo.value(for: id.rawValue) { known in
            known.asOf?.isRecent(now) == true && tenancy.owns(known.verification)
        }
        return known.map { FoundVerification(verification: $0.verification, asOf: $0.asOf) }
    }

    /// The same for a repeated create: the open verification of this account, mode, user and workflow
    /// (`openKey`) that the last such read found, under the same conditions, as of the older of
    /// the two reads it takes.
    func recentlyOpen(tenancy: Tenancy, userID: String, workflowKey: String, key: String,
                      now: LocalRead) -> FoundVerification? {
        guard let found = decoding.open.value(for: key, where: { $0.asOf.isRecent(now) }),
              let open = recentlyPolled(tenancy: tenancy, id: found.id, now: now),
              open.verification.userID == userID, open.verification.workflowKey == workflowKey,
              let polled = open.asOf
        else { return nil }
        return FoundVerification(verification: open.verification, asOf: polled.time < found.asOf.time ? polled : found.asOf)
    }

    static func openKey(_ tenancy: Tenancy, _ userID: String, _ workflowKey: String) -> String {
        // A user id has no control character, so the last \u{1} ends the workflow key and two
        // quadruples never share a key (`recentlyOpen` compares the fields anyway).
        "\(tenancy.accountID.rawValue)\u{1}\(tenancy.livemode ? "live" : "test")\u{1}\(workflowKey)\u{1}\(userID)"
    }
}
