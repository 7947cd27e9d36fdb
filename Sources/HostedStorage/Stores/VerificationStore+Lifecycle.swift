import Foundation
import HostedCore

/// Redaction and the lifecycle sweeps (expiry, retention) of verifications.
extension VerificationStore {
    /// Applies `transition` (the caller's `verification.redacted`, through the lifecycle) and,
    /// when it redacted the verification, erases its personal data at once, in the same
    /// transaction: the row's user id, mobile number and metadata; every artifact's bytes (photos,
    /// the profile form, DigiLocker documents); its sign-in code, queued and dev-outbox messages;
    /// reviewers' notes; and stored idempotent replies that show it. Repeating it changes nothing.
    /// On SQLite (`secure_delete` on every connection) the WAL is then checkpointed and
    /// truncated, so the erased values are in neither file.
    public func redact(tenancy: Tenancy, id: ObjectID, at time: Date,
                       _ transition: (inout Verification) throws -> Void) throws -> Verification {
        let accountID = tenancy.accountID
        let redacted = try update(tenancy: tenancy, id: id, at: time) { verification, connection in
            let before = verification
            try transition(&verification)
            guard before.redactedAt == nil, verification.redactedAt != nil else { return }
            let mobile = before.mobile
            // The data key goes with this commit (every object sealed with it is unreadable from
            // now on); the objects themselves are deleted by the sweeper.
            try ArtifactObjectQueue.redact(verificationID: id, at: time, on: connection)
            try connection.query("""
                UPDATE artifacts SET content = \([UInt8]()), redacted_at = \(time)
                WHERE verification_id = \(id.rawValue) AND redacted_at IS NULL
                """)
            try connection.query("DELETE FROM otp_codes WHERE verification_id = \(id.rawValue)")
            // Reviewers' internal notes are free text about the person.
            try connection.query("DELETE FROM review_notes WHERE verification_id = \(id.rawValue)")
            try connection.query("DELETE FROM sms_queue WHERE verification_id = \(id.rawValue)")
            try Self.eraseNumbers(of: id, current: mobile, on: connection)
            // Stored answers name what they show in `shows` (sealed ones) or in their bytes (clear).
            let listed = " " + id.rawValue + " "
            let mentions: SQL = database.dialect == .postgres
                ? "(position(convert_to(\(id.rawValue), 'UTF8') in body) > 0 OR position(\(listed) in shows) > 0)"
                : "(instr(body, CAST(\(id.rawValue) AS BLOB)) > 0 OR instr(shows, \(listed)) > 0)"
            try connection.query("DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND body IS NOT NULL AND \(mentions)")
        }
        if database.dialect == .sqlite {
            // A reader in the way makes the checkpoint answer busy (1): try again briefly; a
            // later redaction's checkpoint, or SQLite's own, finishes the job otherwise.
            for _ in 0..<5 {
                let busy = try database.withConnection { connection in
                    try connection.query("PRAGMA wal_checkpoint(TRUNCATE)").first?.int("busy") ?? 0
                }
                if busy == 0 { break }
                usleep(50_000)
            }
        }
        return redacted
    }

    /// Every mobile number the verification ever had (a `PATCH` may have changed it): the dev
    /// outbox's messages about it, whatever number they went to, and its sign-in rate-limit
    /// buckets. Buckets name a number only by a keyed hash (`SignInLimits`); the per-number send
    /// bucket is shared with the number's other verifications and is left to pruning (an hour).
    static func eraseNumbers(of id: ObjectID, current mobile: String, on connection: DatabaseConnection) throws {
        try connection.query("DELETE FROM sms_outbox WHERE verification_id = \(id.rawValue)")
        for limit in [SignInLimits.cooldown, SignInLimits.verification] {
            let prefix = limit.name + ":" + id.rawValue + ":"
            try connection.query("DELETE FROM rate_limits WHERE substr(bucket, 1, CAST(\(Int64(prefix.utf8.count)) AS INTEGER)) = \(prefix)")
        }
        guard !mobile.isEmpty else { return }
        // Written before migration 0015 (or by a node still running older code during an
        // upgrade): outbox rows without a verification, and a bucket naming the number in clear.
        try connection.query("DELETE FROM sms_outbox WHERE verification_id IS NULL AND to_number = \(mobile)")
        try connection.query("DELETE FROM rate_limits WHERE bucket = \("otp-number:" + mobile)")
    }

    /// Expires up to `limit` verifications past their time, each in its own transaction (a
    /// crash loses nothing and repeats nothing), and returns how many this call expired. Rows
    /// another process is changing are skipped, not waited for; whoever holds the row decides,
    /// so each gets exactly one `verification.expired`. `pace` is called after each one with
    /// how long it took (the sweeper pauses there, so a backlog does not take the cores).
    public func expireDue(at time: Date, limit: Int = 100, pace: (TimeInterval) -> Void = { _ in }) throws -> Int {
        let due = try database.query("""
            SELECT id, account_id, livemode FROM verifications
            WHERE status IN (\(VerificationStatus.created.rawValue), \(VerificationStatus.inProgress.rawValue),
                             \(VerificationStatus.resubmissionRequested.rawValue)) AND expires_at <= \(time)
            ORDER BY expires_at LIMIT \(Int64(limit))
            """)
        var expired = 0
        for row in due {
            let (tenancy, id) = try Self.ids(row)
            var changed = false
            let started = Date()
            do {
                _ = try update(tenancy: tenancy, id: id, at: time, skipLocked: true) { verification, _ in
                    changed = verification.unwrittenEvents.contains { $0.type == .expired }
                }
            } catch DomainError.notFound(_) {
                continue  // another process holds the row (SKIP LOCKED): it decides
            }
            if changed { expired += 1 }
            pace(Date().timeIntervalSince(started))
        }
        return expired
    }

    /// Redacts (by `transition`, the caller's lifecycle event) up to `limit` verifications whose
    /// retention has run out; `pace` as for `expireDue`.
    public func redactDue(at time: Date, limit: Int = 100, pace: (TimeInterval) -> Void = { _ in },
                          _ transition: (inout Verification) throws -> Void) throws -> Int {
        let due = try database.query("""
            SELECT id, account_id, livemode FROM verifications
            WHERE redact_at IS NOT NULL AND redact_at <= \(time) AND redacted_at IS NULL
            ORDER BY redact_at LIMIT \(Int64(limit))
            """)
        var redacted = 0
        for row in due {
            let (tenancy, id) = try Self.ids(row)
            let started = Date()
            if try redact(tenancy: tenancy, id: id, at: time, transition).redactedAt == time { redacted += 1 }
            pace(Date().timeIntervalSince(started))
        }
        return redacted
    }

    /// The events of one verification of the account and mode, oldest first; nil if it is not theirs.
    public func events(tenancy: Tenancy, id: ObjectID, limit: Int, startingAfter: ObjectID?) throws -> ([Event], hasMore: Bool)? {
        guard try database.query("""
            SELECT id FROM verifications WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)
            """).first != nil
        else { return nil }
        return try events.list(tenancy: tenancy, filter: .init(verificationID: id), limit: limit, startingAfter: startingAfter)
    }

    private static func ids(_ row: Row) throws -> (tenancy: Tenancy, verification: ObjectID) {
        guard let accountID = ObjectID(.account, parsing: try row.string("account_id")),
              let id = ObjectID(.verification, parsing: try row.string("id"))
        else { throw DatabaseError.decoding(column: "id") }
        return (Tenancy(accountID: accountID, livemode: try row.int("livemode") != 0), id)
    }
}
