import Foundation
import HostedCore

/// Reviewers' internal notes. The text lives only here (the event log records that a note was
/// written, never what it says), and redaction deletes it with the verification's other
/// personal data.
public struct ReviewNoteStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Inserts on the transaction of the change that records the note's event.
    public func insert(id: ObjectID, verificationID: ObjectID, operatorID: ObjectID, body: String, at time: Date,
                       on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO review_notes (id, verification_id, operator_id, body, created_at)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(operatorID.rawValue), \(body), \(time))
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
        try database.query("""
            SELECT id, operator_id, body, created_at FROM review_notes
            WHERE verification_id = \(verificationID.rawValue) ORDER BY created_at, id
            """).map { row in
            Note(id: try row.string("id"), operatorID: try row.string("operator_id"), body: try row.string("body"),
                 createdAt: try row.date("created_at"))
        }
    }
}
