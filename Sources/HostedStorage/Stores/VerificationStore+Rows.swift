import Foundation
import HostedCore
import HostedCrypto

/// A verification's row: its personal fields sealed in `personal` with its data key (`user_id`,
/// `mobile`, `metadata`, `decision_reason` and `resubmission_message` then hold nothing, and the
/// steps no capture location), looked up by `user_key`. A redacted verification has nothing
/// personal left: its placeholders are written as they are. Rows written before migration 0029
/// are read from their clear columns until `sealUnsealed` seals them.
extension VerificationStore {
    /// The cells `columns` names, in order, for a new row whose data key is `dataKey`, sealed as `sealedKey`.
    func values(_ v: Verification, dataKey: SecretBox, sealedKey: [UInt8]) throws -> [SQLValue] {
        let kept = try stored(v, dataKey: dataKey)
        return [.text(v.id.rawValue), .text(v.accountID.rawValue), .text(kept.userID), .text(v.workflowKey),
                .integer(Int64(v.workflowVersion)), .text(v.status.rawValue), .text(kept.mobile), .optionalText(v.returnURL),
                .text(kept.metadata), .text(kept.steps), .date(v.createdAt),
                .date(v.updatedAt), .date(v.submittedAt), .date(v.decidedAt), .integer(v.revision),
                .optionalText(kept.decisionReason), .date(v.expiresAt), .optionalText(v.expiredReason), .optionalText(v.lastStep),
                .date(v.redactedAt), v.redactAfterSeconds.map(SQLValue.integer) ?? .null, .date(v.redactAt),
                .integer(Int64(v.approvalsRequired)), .text(try JSONColumn.encode(v.approvals)),
                .integer(Int64(v.resubmissions)), .optionalText(v.resubmissionReason), .optionalText(kept.resubmissionMessage),
                .text(try JSONColumn.encode(v.flags)), .integer(v.livemode ? 1 : 0), .text(kept.userKey), kept.personal,
                v.redactedAt == nil ? .blob(sealedKey) : .null]
    }

    /// The `SET` list of an update for the columns that hold (or held) personal fields. The data
    /// key stays as the row has it (`dataKey` made it, if it was missing), and goes once redacted.
    func personalAssignments(_ v: Verification, dataKey: SecretBox?) throws -> SQL {
        let kept = try stored(v, dataKey: dataKey)
        let key: SQL = v.redactedAt == nil ? "" : ", data_key = NULL"
        return """
            user_id = \(kept.userID), mobile = \(kept.mobile), metadata = \(kept.metadata), steps = \(kept.steps),
            decision_reason = \(kept.decisionReason), resubmission_message = \(kept.resubmissionMessage),
            user_key = \(kept.userKey), personal = \(kept.personal)\(key)
            """
    }

    private struct Stored {
        var userID = ""
        var mobile = ""
        var metadata = "{}"
        var steps: String
        var decisionReason: String?
        var resubmissionMessage: String?
        var userKey: String
        var personal = SQLValue.null
    }

    /// What the row keeps of `v`: sealed with `dataKey`, or as it is once redacted.
    private func stored(_ v: Verification, dataKey: SecretBox?) throws -> Stored {
        let userKey = sealing.userKey(accountID: v.accountID, userID: v.userID)
        guard v.redactedAt == nil else {
            return Stored(userID: v.userID, mobile: v.mobile, metadata: try JSONColumn.encode(v.metadata),
                          steps: try JSONColumn.encode(v.steps), decisionReason: v.decisionReason,
                          resubmissionMessage: v.resubmissionMessage, userKey: userKey)
        }
        guard let dataKey else { throw DataKeyStore.Unreadable() }
        var withoutLocations = v
        withoutLocations.captureLocations = [:]
        return Stored(steps: try JSONColumn.encode(withoutLocations.steps), userKey: userKey,
                      personal: .blob(try sealing.seal(v, with: dataKey)))
    }

    /// The data key of the verification whose row (read with `columns`) this is; made now, on
    /// the caller's transaction, for a row written before migration 0029 that has none.
    func dataKey(in row: Row, of id: ObjectID, on connection: DatabaseConnection) throws -> SecretBox {
        if case .blob(let sealed) = row["data_key"] { return try sealing.keys.open(sealed, for: id) }
        guard let key = try sealing.keys.dataKey(for: id, on: connection) else { throw DataKeyStore.Unreadable() }
        return key
    }

    func verification(from row: Row) throws -> Verification {
        guard let id = ObjectID(.verification, parsing: try row.string("id")),
              let accountID = ObjectID(.account, parsing: try row.string("account_id"))
        else { throw DatabaseError.decoding(column: "id") }
        guard let status = VerificationStatus(rawValue: try row.string("status")) else {
            throw DatabaseError.decoding(column: "status")
        }
        var personal = PersonalSealing.Fields(
            userID: try row.string("user_id"), mobile: try row.string("mobile"),
            metadata: try JSONColumn.decode([String: String].self, from: try row.string("metadata"), column: "metadata", empty: [:]),
            decisionReason: try row.optionalString("decision_reason"),
            resubmissionMessage: try row.optionalString("resubmission_message"), locations: [:])
        let sealed = row["personal"]
        if case .blob(let sealed) = sealed {
            guard case .blob(let key) = row["data_key"] else { throw DataKeyStore.Unreadable() }
            personal = try sealing.open(sealed, of: id, with: try sealing.keys.open(key, for: id))
        }
        var verification = Verification(
            id: id, accountID: accountID, userID: personal.userID, workflowKey: try row.string("workflow_key"),
            workflowVersion: Int(try row.int("workflow_version")), status: status, mobile: personal.mobile,
            returnURL: try row.optionalString("return_url"), metadata: personal.metadata,
            steps: try JSONColumn.decode([StepState].self, from: try row.string("steps"), column: "steps", empty: []),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
            submittedAt: try row.optionalDate("submitted_at"), decidedAt: try row.optionalDate("decided_at"),
            decisionReason: personal.decisionReason,
            revision: try row.int("revision"),
            expiresAt: try row.optionalDate("expires_at"), expiredReason: try row.optionalString("expired_reason"),
            lastStep: try row.optionalString("last_step"), redactedAt: try row.optionalDate("redacted_at"),
            redactAfterSeconds: try row.optionalInt("redact_after_seconds"), redactAt: try row.optionalDate("redact_at"),
            approvalsRequired: Int(try row.int("approvals_required")),
            approvals: try JSONColumn.decode([String].self, from: try row.string("approvals"), column: "approvals",
                                             empty: []),
            resubmissions: Int(try row.int("resubmissions")), resubmissionReason: try row.optionalString("resubmission_reason"),
            resubmissionMessage: personal.resubmissionMessage,
            flags: try JSONColumn.decode([String].self, from: try row.string("flags"), column: "flags", empty: [])
                .compactMap(VerificationFlag.init(rawValue:)),
            livemode: try row.int("livemode") != 0)
        if !personal.locations.isEmpty { verification.captureLocations = personal.locations }
        return verification
    }

    /// Whether any row written before migration 0029 is still to be sealed.
    public static func hasUnsealed(_ database: any Database) throws -> Bool {
        !(try database.query("SELECT id FROM verifications WHERE user_key IS NULL LIMIT 1")).isEmpty
    }

    /// Seals up to `limit` rows written before migration 0029 (their personal fields in clear,
    /// no `user_key`), each in its own transaction, and returns how many it sealed: `serve` and
    /// `hosted migrate` run it until none is left before anything else. Changes nothing a reader
    /// sees (not the revision, no event).
    public func sealUnsealed(limit: Int = 500) throws -> Int {
        let due = try database.query("SELECT id FROM verifications WHERE user_key IS NULL ORDER BY id LIMIT \(Int64(limit))")
        var count = 0
        for row in due {
            guard let id = ObjectID(.verification, parsing: try row.string("id")) else { continue }
            let lock = database.dialect == .postgres ? " FOR UPDATE" : ""
            let sealedOne = try database.transaction { connection -> Bool in
                guard let row = try connection.query("""
                    SELECT \(unsafeSQL: Self.columns) FROM verifications WHERE id = \(id.rawValue) AND user_key IS NULL\(unsafeSQL: lock)
                    """).first
                else { return false }
                let verification = try self.verification(from: row)
                let dataKey = verification.redactedAt == nil ? try self.dataKey(in: row, of: id, on: connection) : nil
                try connection.query("""
                    UPDATE verifications SET \(try personalAssignments(verification, dataKey: dataKey)) WHERE id = \(id.rawValue)
                    """)
                return true
            }
            if sealedOne {
                decoding.memo.forget(id.rawValue)
                count += 1
            }
        }
        return count
    }
}
