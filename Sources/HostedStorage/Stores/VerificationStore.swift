import Foundation
import HostedCore

/// Verifications on either store. "One open verification per account, user and workflow" is a
/// partial unique index, so concurrent creates — from any number of processes — yield one row.
/// Every change appends its events in its own transaction (`EventStore`), and no read shows an
/// open verification past its `expires_at`: a read that finds one expires it first.
public struct VerificationStore: Sendable {
    let database: any Database
    private let changes: any ChangeFeed
    let events: EventStore
    let clock: any WallClock
    /// Decoded verifications of recent reads (`VerificationDecoding`, `VerificationStore+Memo.swift`),
    /// dropped when the change feed says one changed.
    let decoding: VerificationDecoding
    /// Seals the personal fields with the verification's data key and hashes user ids for lookups.
    let sealing: PersonalSealing

    /// `memos`: which of the read memos are built on (all unless `HOSTED_DISABLE_MEMOS` says).
    public init(database: any Database, changes: any ChangeFeed, sealing: PersonalSealing, events: EventStore? = nil,
                clock: any WallClock = SystemWallClock(), memos: Memos = Memos()) {
        self.database = database
        self.sealing = sealing
        self.changes = changes
        self.events = events ?? EventStore(database: database)
        self.clock = clock
        let decoding = VerificationDecoding(memos)
        changes.subscribe { [memo = decoding.memo] key in memo.forget(key) }
        self.decoding = decoding
    }

    static let columns = """
        id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
        created_at, updated_at, submitted_at, decided_at, revision, decision_reason,
        expires_at, expired_reason, last_step, redacted_at, redact_after_seconds, redact_at, approvals_required, approvals,
        resubmissions, resubmission_reason, resubmission_message, flags, livemode, user_key, personal, data_key
        """

    /// Inserts `verification` unless an open one exists for its user and workflow; returns the
    /// stored one and whether it was created by this call.
    /// `verification` carries its `created` event (unwritten), which is written with the row.
    public func createOrFetchOpen(_ verification: Verification) throws -> (Verification, created: Bool) {
        for _ in 0..<3 {
            let sealed = events.seal(verification.unwrittenEvents, to: verification, after: nil, at: verification.createdAt)
            let head = ChainHead(after: sealed, or: nil)
            // The data key commits with the row it seals, or not at all.
            let (dataKey, sealedKey) = try sealing.keys.newKey(for: verification.id)
            let insert: SQL = """
                INSERT INTO verifications (\(unsafeSQL: Self.columns), event_sequence, event_hash)
                VALUES (\(values: try values(verification, dataKey: dataKey, sealedKey: sealedKey)), \(head?.sequence ?? 0), \(head?.hash))
                ON CONFLICT (account_id, livemode, user_key, workflow_key) WHERE \(unsafeSQL: VerificationStatus.holdsUserSlotSQL) DO NOTHING
                RETURNING id
                """

            let inserted: Bool
            var queued = 0
            if database.dialect == .postgres, sealed.count == 1 {
                // One statement, so one round trip as before the event log: the event is inserted
                // only if the verification was (a conflict inserts neither); its webhook messages
                // come from the trigger on `events` (migration 0011), which also wakes the workers.
                inserted = !(try database.query("""
                    WITH inserted AS (\(insert))
                    INSERT INTO events (\(unsafeSQL: EventStore.columns), status)
                    SELECT \(values: EventStore.values(sealed[0])), \(verification.status.rawValue) FROM inserted
                    RETURNING id
                    """)).isEmpty
            } else {
                (inserted, queued) = try database.transaction { connection in
                    guard !(try connection.query(insert)).isEmpty else { return (false, 0) }
                    return (true, try events.insert(sealed, on: connection, status: verification.status))
                }
            }
            if queued > 0 { changes.publish(WebhookStore.wakeKey) }
            if inserted { return (verification.stored, true) }
            // Nil only if the open one was closed between the two statements: try again.
            guard let open = try openVerification(tenancy: verification.tenancy, userID: verification.userID,
                                                  workflowKey: verification.workflowKey)
            else { continue }
            // One past its time is expired now, and the create makes a new one.
            if open.isDueToExpire(at: clock.now()) {
                _ = try expireIfDue(open)
                continue
            }
            return (open, false)
        }
        throw DatabaseError.serializationFailure
    }

    /// The account's open (not canceled, not expired) verification of this user and workflow in
    /// this mode, as stored (it may be past its time: the caller checks), or nil.
    public func openVerification(tenancy: Tenancy, userID: String, workflowKey: String) throws -> Verification? {
        let ticket = readTicket(for: nil)
        return try database.query(openStatement(tenancy: tenancy, userID: userID, workflowKey: workflowKey))
            .first.map { try decoded($0, ticket: ticket) }
    }

    /// The same read through `Database.submit`: on PostgreSQL `completion` runs later on the
    /// pipeline's thread, on SQLite before this returns. The caller checks the time, as above.
    /// When this process has committed nothing since the last such read found the open
    /// verification (under a second ago, SQLite only), that read is the answer (`recentlyOpen`);
    /// either way the answer says as of when (`FoundVerification.asOf`).
    public func openVerification(tenancy: Tenancy, userID: String, workflowKey: String,
                                 completion: @escaping @Sendable (Result<FoundVerification?, any Error>) -> Void) {
        let asOf = localRead()
        let key = Self.openKey(tenancy, userID, workflowKey)
        if let asOf, let known = recentlyOpen(tenancy: tenancy, userID: userID, workflowKey: workflowKey, key: key, now: asOf) {
            return completion(.success(known))
        }
        let ticket = readTicket(for: nil)
        let openTicket = decoding.open.ticket(for: key)
        database.submit(openStatement(tenancy: tenancy, userID: userID, workflowKey: workflowKey),
                        writes: false) { rows in
            completion(Result {
                let open = try rows.get().first.map { try decoded($0, ticket: ticket, asOf: asOf) }
                if let open, let asOf {
                    decoding.open.remember(VerificationDecoding.OpenRead(id: open.id, asOf: asOf), for: key, ticket: openTicket)
                }
                return open.map { FoundVerification(verification: $0, asOf: asOf) }
            })
        }
    }

    /// The open verification of an account, user and workflow (built once: every repeated
    /// create runs it).
    private static let openTemplate: SQL.Template<OpenParameter> = """
        SELECT \(unsafeSQL: columns) FROM verifications
        WHERE account_id = \(parameter: .accountID) AND livemode = \(parameter: .livemode)
          AND user_key = \(parameter: .userKey) AND workflow_key = \(parameter: .workflowKey)
          AND \(unsafeSQL: VerificationStatus.holdsUserSlotSQL)
        """

    private enum OpenParameter: Hashable, Sendable {
        case accountID, livemode, userKey, workflowKey
    }

    private func openStatement(tenancy: Tenancy, userID: String, workflowKey: String) -> SQL {
        let userKey = sealing.userKey(accountID: tenancy.accountID, userID: userID)
        return Self.openTemplate.bind { parameter in
            switch parameter {
            case .accountID: .text(tenancy.accountID.rawValue)
            case .livemode: .integer(tenancy.mode)
            case .userKey: .text(userKey)
            case .workflowKey: .text(workflowKey)
            }
        }
    }

    /// A verification by id alone: for the journey, where the account is not known up front.
    public func verification(id: ObjectID) throws -> Verification? {
        try database.query("SELECT \(unsafeSQL: Self.columns) FROM verifications WHERE id = \(id.rawValue)")
            .first.map(verification(from:)).map(expireIfDue)
    }

    /// The verification `id` if it belongs to `tenancy` (its account and mode), else nil.
    public func verification(tenancy: Tenancy, id: ObjectID) throws -> Verification? {
        let ticket = readTicket(for: id)
        return try database.query(Self.readStatement(accountID: tenancy.accountID, id: id))
            .first.map { try decoded($0, ticket: ticket) }.flatMap { $0.livemode == tenancy.livemode ? $0 : nil }.map(expireIfDue)
    }

    /// The same read for a poll, through `Database.submit`: on PostgreSQL the caller's thread
    /// does not wait, and `completion` runs later on the pipeline's thread; on SQLite it runs
    /// before this returns, and when this process has committed nothing since the last poll read
    /// this verification (under a second ago) that read is the answer (`recentlyPolled`).
    public func verification(tenancy: Tenancy, id: ObjectID,
                             completion: @escaping @Sendable (Result<Verification?, any Error>) -> Void) {
        let asOf = localRead()
        if let asOf, let known = recentlyPolled(tenancy: tenancy, id: id, now: asOf) {
            return completion(Result { try expireIfDue(known.verification) })
        }
        let ticket = readTicket(for: id)
        database.submit(Self.readStatement(accountID: tenancy.accountID, id: id), writes: false) { rows in
            completion(Result {
                try rows.get().first.map { try decoded($0, ticket: ticket, asOf: asOf) }
                    .flatMap { $0.livemode == tenancy.livemode ? $0 : nil }.map(expireIfDue)
            })
        }
    }

    /// The read of one verification of an account (built once: polls run it).
    static let readTemplate: SQL.Template<ReadParameter> = """
        SELECT \(unsafeSQL: columns) FROM verifications WHERE id = \(parameter: .id) AND account_id = \(parameter: .accountID)
        """

    /// The verification read's values, by name (the poll's statement has them too).
    enum ReadParameter: Hashable, Sendable {
        case id, accountID
    }

    private static func readStatement(accountID: ObjectID, id: ObjectID) -> SQL {
        readTemplate.bind { parameter in
            switch parameter {
            case .id: .text(id.rawValue)
            case .accountID: .text(accountID.rawValue)
            }
        }
    }

    /// Wakes whatever waits on this verification (long-polls, in every process) without
    /// changing it: for a change kept elsewhere (a continuation opened or ended).
    public func announceChange(id: ObjectID) {
        changes.publish(id.rawValue)
    }

    /// `verification` as it must be shown now: expired first if it is past its time (by the
    /// system, in a transaction of its own; a concurrent expiry by another reader or the sweeper
    /// finds it expired and records nothing more).
    func expireIfDue(_ verification: Verification) throws -> Verification {
        let now = clock.now()
        guard verification.isDueToExpire(at: now) else { return verification }
        return try update(tenancy: verification.tenancy, id: verification.id, at: now) { _ in }
    }

    /// Filters for listing.
    public struct Filter: Sendable {
        public var userID: String?
        public var workflowKey: String?
        public var status: VerificationStatus?

        public init(userID: String? = nil, workflowKey: String? = nil, status: VerificationStatus? = nil) {
            self.userID = userID
            self.workflowKey = workflowKey
            self.status = status
        }
    }

    /// `list`'s `startingAfter` names no verification of the account in this mode.
    public struct UnknownCursor: Error, Equatable {}

    /// Newest first; `startingAfter` continues after that verification. Returns one page and
    /// whether more follow; throws `UnknownCursor` when the cursor is not the account's.
    public func list(tenancy: Tenancy, filter: Filter, limit: Int, startingAfter: ObjectID?) throws -> ([Verification], hasMore: Bool) {
        let accountID = tenancy.accountID
        var cursorTime: Int64 = Int64.max
        var cursorID = "~"  // sorts after every id
        if let startingAfter {
            guard let cursor = try database.query("""
                SELECT created_at FROM verifications
                WHERE id = \(startingAfter.rawValue) AND account_id = \(accountID.rawValue) AND livemode = \(tenancy.mode)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try cursor.int("created_at")
            cursorID = startingAfter.rawValue
        }
        // Each filter is in the statement only when given, so every combination is a statement
        // (and a plan) of its own: a `($1 = '' OR user_id = $1)` kept PostgreSQL's generic plan
        // from the user's index, and it read the account's rows newest first until it found the
        // user's (617 ms at 222,732 verifications; docs/performance.md, "Figures at scale"). The
        // cursor is a row comparison, which the index takes as where to start.
        var filters: SQL = ""
        if let userID = filter.userID { filters = "\(filters) AND user_key = \(sealing.userKey(accountID: accountID, userID: userID))" }
        if let workflowKey = filter.workflowKey { filters = "\(filters) AND workflow_key = \(workflowKey)" }
        if let status = filter.status { filters = "\(filters) AND status = \(status.rawValue)" }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM verifications
            WHERE account_id = \(accountID.rawValue) AND livemode = \(tenancy.mode)
              AND (created_at, id) < (\(cursorTime), \(cursorID))\(filters)
            ORDER BY created_at DESC, id DESC
            LIMIT \(Int64(limit + 1))
            """)
        let page = try rows.prefix(limit).map(verification(from:)).map(expireIfDue)
        return (page, rows.count > limit)
    }

    /// Changes one verification atomically: `change` sees the current row (locked) and may throw
    /// to refuse; the revision is bumped and waiting long-polls are woken after the commit.
    public func update(tenancy: Tenancy, id: ObjectID, at time: Date,
                       _ change: (inout Verification) throws -> Void) throws -> Verification {
        try update(tenancy: tenancy, id: id, at: time) { verification, _ in try change(&verification) }
    }

    /// As `update`, with the transaction's connection, for writes that must commit together with
    /// the change (an artifact and the step that lists it).
    /// With `skipLocked`, a row another transaction holds is not waited for: the call throws
    /// `notFound` at once (for sweeps, where whoever holds the row does the work).
    public func update(tenancy: Tenancy, id: ObjectID, at time: Date, skipLocked: Bool = false,
                       _ change: (inout Verification, DatabaseConnection) throws -> Void) throws -> Verification {
        var queued = 0
        let updated = try database.transaction { connection -> Verification in
            let lock = database.dialect == .postgres ? (skipLocked ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE") : ""
            guard let row = try connection.query("""
                SELECT \(unsafeSQL: Self.columns), event_sequence, event_hash FROM verifications
                WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)\(unsafeSQL: lock)
                """).first
            else { throw DomainError.notFound(what: "verification") }
            var verification = try self.verification(from: row)
            let before = verification
            // The chain's head comes with the locked row, so the next sequence is the one after it
            // however many processes wait for the row.
            let last = try ChainHead(row)
            // Past its time, it is expired before anything else happens to it.
            try verification.settle(at: time)
            try change(&verification, connection)
            let sealed = events.seal(verification.takeUnwrittenEvents(), to: verification, after: last, at: time)
            guard verification != before || !sealed.isEmpty else { return verification }
            if verification != before {
                verification.updatedAt = time
                verification.revision += 1
            }
            let head = ChainHead(after: sealed, or: last)
            // A redacted verification has no personal field left to seal (its key is shredded).
            let dataKey = verification.redactedAt == nil ? try self.dataKey(in: row, of: id, on: connection) : nil
            let update: SQL = """
                UPDATE verifications SET status = \(verification.status.rawValue), \(try personalAssignments(verification, dataKey: dataKey)), return_url = \(verification.returnURL),
                    updated_at = \(verification.updatedAt), submitted_at = \(verification.submittedAt), decided_at = \(verification.decidedAt), revision = \(verification.revision),
                    expires_at = \(verification.expiresAt), expired_reason = \(verification.expiredReason), last_step = \(verification.lastStep),
                    redacted_at = \(verification.redactedAt), redact_at = \(verification.redactAt),
                    approvals = \(try JSONColumn.encode(verification.approvals)),
                    resubmissions = \(Int64(verification.resubmissions)), resubmission_reason = \(verification.resubmissionReason),
                    flags = \(try JSONColumn.encode(verification.flags)),
                    event_sequence = \(head?.sequence ?? 0), event_hash = \(head?.hash)
                WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue)
                """
            if database.dialect == .postgres, sealed.count == 1 {
                // The row and its one event in one statement: no round trip more than before the
                // log (the event's webhook messages come from the trigger on `events`).
                try connection.query("""
                    WITH updated AS (\(update) RETURNING id)
                    INSERT INTO events (\(unsafeSQL: EventStore.columns), status)
                    SELECT \(values: EventStore.values(sealed[0])), \(verification.status.rawValue) FROM updated
                    """)
            } else {
                try connection.query(update)
                queued = try events.insert(sealed, on: connection, status: verification.status)
            }
            if verification.closesJourney(from: before) {
                // Closing ends the journey at once: no handoff can be used, no session goes on.
                try connection.query("""
                    UPDATE handoffs SET revoked_at = \(time)
                    WHERE verification_id = \(id.rawValue) AND revoked_at IS NULL
                    """)
                try connection.query("""
                    UPDATE journey_sessions SET revoked_at = \(time)
                    WHERE verification_id = \(id.rawValue) AND revoked_at IS NULL
                    """)
            }
            return verification
        }
        decoding.memo.forget(id.rawValue)
        changes.publish(id.rawValue)
        if queued > 0 { changes.publish(WebhookStore.wakeKey) }
        return updated
    }
}
