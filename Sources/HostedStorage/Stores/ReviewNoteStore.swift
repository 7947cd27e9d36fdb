import Foundation
import HostedCore

/// Reviewers' internal notes. The text lives only here (the event log records that a note was
/// written, never what it says), sealed with the verification's data key (migration 0029; notes
/// written before keep their text in `body`), and redaction deletes it with the verification's
/// other personal data — and shreds the key, so an earlier copy of a note no longer opens.
public struct ReviewNoteStore: Sendable {
    private let database: any Database
    private let sealing: PersonalSealing

    public init(database: any Database, sealing: PersonalSealing) {
        self.database = database
        self.sealing = sealing
    }

    /// Inserts on the transaction of the change that records the note's event.
    public func insert(id: ObjectID, verificationID: ObjectID, operatorID: ObjectID, body: String, at time: Date,
                       on connection: DatabaseConnection) throws {
        guard let key = try sealing.keys.dataKey(for: verificationID, on: connection, at: time) else {
            throw DomainError.conflict(detail: "This verification was redacted; notes can no longer be added.", code: .verificationClosed)
        }
        let sealed = try sealing.seal(Array(body.utf8), context: Self.context(id.rawValue), with: key)
        try connection.query("""
            INSERT INTO review_notes (id, verification_id, operator_id, body, sealed_body, created_at)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(operatorID.rawValue), '', \(sealed), \(time))
            """)
    }

    public struct Note: Equatable, Sendable {
        public let id: String
        public let operatorID: String
        public let body: String
        public let createdAt: Date
    }

    /// Oldest first.
    public func notes(verificationID: ObjectID) throws -> [Note] {
        try database.withConnection { connection in
            let rows = try connection.query("""
                SELECT id, operator_id, body, sealed_body, created_at FROM review_notes
                WHERE verification_id = \(verificationID.rawValue) ORDER BY created_at, id
                """)
            let key = rows.contains { $0["sealed_body"] != .null } ? try sealing.keys.existingKey(for: verificationID, on: connection) : nil
            return try rows.map { row in
                let id = try row.string("id")
                var body = try row.string("body")
                if case .blob(let sealed) = row["sealed_body"] {
                    guard let key, let opened = key.open(sealed, context: Self.context(id)) else { throw DataKeyStore.Unreadable() }
                    body = String(decoding: opened, as: UTF8.self)
                }
                return Note(id: id, operatorID: try row.string("operator_id"), body: body, createdAt: try row.date("created_at"))
            }
        }
    }

    private static func context(_ id: String) -> String { "review-note:" + id }
}
