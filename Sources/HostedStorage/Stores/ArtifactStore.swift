import Foundation
import HostedCore

/// Captured images and forms. Inserts and deletes run on the caller's transaction, so an
/// artifact and the step listing it commit together or not at all.
public struct ArtifactStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    public func insert(id: ObjectID, verificationID: ObjectID, stepID: String, contentType: String, content: [UInt8],
                       at time: Date, on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO artifacts (id, verification_id, step_id, content_type, content, created_at)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(stepID), \(contentType), \(content), \(time))
            """)
    }

    /// An artifact's bytes and type, if it belongs to this verification; `gone` once redacted.
    public func content(id: ObjectID, verificationID: ObjectID) throws -> (contentType: String, content: [UInt8])? {
        guard let row = try database.query("""
            SELECT content_type, content, redacted_at FROM artifacts
            WHERE id = \(id.rawValue) AND verification_id = \(verificationID.rawValue)
            """).first
        else { return nil }
        guard try row.optionalInt("redacted_at") == nil else {
            throw DomainError.gone(detail: "This artifact was erased when its verification was redacted.", code: .artifactRedacted)
        }
        return (try row.string("content_type"), try row.blob("content"))
    }

    /// What is known about an artifact without its bytes.
    public struct Summary: Equatable, Sendable {
        public let id: String
        public let stepID: String
        public let contentType: String
        public let createdAt: Date
        public let redacted: Bool
    }

    /// The verification's artifacts, oldest first, without their bytes.
    public func list(verificationID: ObjectID) throws -> [Summary] {
        try database.query("""
            SELECT id, step_id, content_type, created_at, redacted_at FROM artifacts
            WHERE verification_id = \(verificationID.rawValue) ORDER BY created_at, id
            """).map { row in
            Summary(id: try row.string("id"), stepID: try row.string("step_id"), contentType: try row.string("content_type"),
                    createdAt: try row.date("created_at"), redacted: try row.optionalInt("redacted_at") != nil)
        }
    }
}
