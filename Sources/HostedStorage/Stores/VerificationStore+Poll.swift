import Foundation
import HostedCore

/// The poll: a request counted against the verification's poll bucket and the verification's
/// read, in one statement on PostgreSQL.
extension VerificationStore {
    /// A poll: one request counted against the verification's poll bucket (`poll_limits`) and
    /// the verification read. On PostgreSQL both are one statement, one round trip, and the
    /// bucket's table is unlogged (no WAL flush per poll); the read happens whatever the limit
    /// says (the caller answers 429 without it).
    public func polled(tenancy: Tenancy, id: ObjectID, bucket: String, at time: Date, interval: TimeInterval,
                       burst: Int, cost: Int = 1) throws -> (RateLimitStore.Decision, Verification?) {
        let cell = RateLimitStore.Cell(bucket: bucket, at: time, interval: interval, burst: burst, cost: cost)
        guard database.dialect == .postgres else {
            let decision = try RateLimitStore(database: database, table: .pollLimits).take(bucket: bucket, at: time,
                                                                                           interval: interval, burst: burst, cost: cost)
            return (decision, decision.allowed ? try verification(tenancy: tenancy, id: id) : nil)
        }
        let ticket = readTicket(for: id)
        return try pollAnswer(database.query(Self.pollStatement(cell, accountID: tenancy.accountID, id: id)), cell: cell, ticket: ticket,
                              livemode: tenancy.livemode)
    }

    /// The same poll through `Database.submit`: on PostgreSQL one statement, and the caller's
    /// thread does not wait (`completion` runs later on the pipeline's thread); on SQLite
    /// `completion` runs before this returns.
    public func polled(tenancy: Tenancy, id: ObjectID, bucket: String, at time: Date, interval: TimeInterval,
                       burst: Int, cost: Int = 1,
                       completion: @escaping @Sendable (Result<(RateLimitStore.Decision, Verification?), any Error>) -> Void) {
        guard database.dialect == .postgres else {
            completion(Result { try polled(tenancy: tenancy, id: id, bucket: bucket, at: time, interval: interval,
                                           burst: burst, cost: cost) })
            return
        }
        let cell = RateLimitStore.Cell(bucket: bucket, at: time, interval: interval, burst: burst, cost: cost)
        let ticket = readTicket(for: id)
        database.submit(Self.pollStatement(cell, accountID: tenancy.accountID, id: id), writes: true) { rows in
            completion(Result { try pollAnswer(rows.get(), cell: cell, ticket: ticket, livemode: tenancy.livemode) })
        }
    }

    private static func pollStatement(_ cell: RateLimitStore.Cell, accountID: ObjectID, id: ObjectID) -> SQL {
        pollTemplate.bind { parameter in
            switch parameter {
            case .cell(let slot): cell.value(slot)
            case .read(.id): .text(id.rawValue)
            case .read(.accountID): .text(accountID.rawValue)
            }
        }
    }

    /// The decision and the verification in the poll statement's one row.
    private func pollAnswer(_ rows: [Row], cell: RateLimitStore.Cell,
                            ticket: ReadMemo<VerificationDecoding.Decoded>.Ticket,
                            livemode: Bool) throws -> (RateLimitStore.Decision, Verification?) {
        guard let row = rows.first else { throw DatabaseError.serializationFailure }
        let decision = try cell.decision(row, tat: "cell_tat", allowed: "cell_allowed")
        guard decision.allowed, try row.optionalString("id") != nil else { return (decision, nil) }
        // The other mode's verification is not there for this caller.
        let verification = try decoded(row, ticket: ticket)
        guard verification.livemode == livemode else { return (decision, nil) }
        return (decision, try expireIfDue(verification))
    }

    /// The poll's one statement (built once): the bucket's upsert (`RateLimitStore.Cell`) and
    /// the verification's read.
    private static let pollTemplate: SQL.Template<PollParameter> = """
        WITH cell AS (\(RateLimitStore.Cell.upsert(.pollLimits), parameters: PollParameter.cell))
        SELECT cell.tat AS cell_tat, cell.allowed AS cell_allowed, v.* FROM cell
        LEFT JOIN (\(readTemplate, parameters: PollParameter.read)) v ON true
        """

    private enum PollParameter: Hashable, Sendable {
        case cell(RateLimitStore.Cell.Parameter)
        case read(ReadParameter)
    }
}
