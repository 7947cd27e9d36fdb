import Foundation
import HostedCore

/// An account's branding on either store: three columns of `accounts` and its one row of
/// `account_logos` (migration 0022). Reads by verification join through the verification's
/// account, so a journey only ever sees the branding of the account that created it.
public struct BrandingStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    private static let columns: SQL = """
        a.brand_display_name, a.brand_accent_color, a.brand_support_url, l.sha256
        FROM accounts a LEFT JOIN account_logos l ON l.account_id = a.id
        """

    /// The account's branding, nil for an unknown account.
    public func branding(accountID: ObjectID) throws -> Branding? {
        try database.query("SELECT \(Self.columns) WHERE a.id = \(accountID.rawValue)").first.map(Self.branding(from:))
    }

    /// The branding of the account that owns the verification, with that account's id; nil for
    /// an unknown verification.
    public func branding(verificationID: ObjectID) throws -> (accountID: ObjectID, branding: Branding, livemode: Bool)? {
        guard let row = try database.query("""
            SELECT a.id, v.livemode, \(Self.columns) JOIN verifications v ON v.account_id = a.id WHERE v.id = \(verificationID.rawValue)
            """).first
        else { return nil }
        guard let accountID = ObjectID(.account, parsing: try row.string("id")) else { throw DatabaseError.decoding(column: "id") }
        return (accountID, try Self.branding(from: row), try row.int("livemode") != 0)
    }

    /// Applies `change` in one statement (a field it keeps is written back as it is, so two
    /// changes of different fields at once both hold); the branding after it, nil for an unknown account.
    public func update(accountID: ObjectID, _ change: Branding.Change) throws -> Branding? {
        let rows = try database.query("""
            UPDATE accounts SET
                brand_display_name = CASE WHEN \(change.displayName == nil ? 1 : 0) = 1 THEN brand_display_name
                                          ELSE \(change.displayName ?? nil) END,
                brand_accent_color = CASE WHEN \(change.accentColor == nil ? 1 : 0) = 1 THEN brand_accent_color
                                          ELSE \((change.accentColor ?? nil)?.hex) END,
                brand_support_url = CASE WHEN \(change.supportURL == nil ? 1 : 0) = 1 THEN brand_support_url
                                         ELSE \(change.supportURL ?? nil) END
            WHERE id = \(accountID.rawValue) RETURNING id
            """)
        guard !rows.isEmpty else { return nil }
        return try branding(accountID: accountID)
    }

    /// Stores (or replaces) the account's logo: the re-encoded PNG and its SHA-256.
    public func setLogo(accountID: ObjectID, png: [UInt8], sha256: String, width: Int, height: Int, at time: Date) throws {
        try database.query("""
            INSERT INTO account_logos (account_id, sha256, content, width, height, created_at)
            VALUES (\(accountID.rawValue), \(sha256), \(png), \(width), \(height), \(time.unixMilliseconds))
            ON CONFLICT (account_id) DO UPDATE SET sha256 = excluded.sha256, content = excluded.content,
                width = excluded.width, height = excluded.height, created_at = excluded.created_at
            """)
    }

    /// Removes the account's logo; false when it had none.
    public func deleteLogo(accountID: ObjectID) throws -> Bool {
        !(try database.query("DELETE FROM account_logos WHERE account_id = \(accountID.rawValue) RETURNING account_id").isEmpty)
    }

    /// The account's logo PNG and its SHA-256, nil without one.
    public func logo(accountID: ObjectID) throws -> (png: [UInt8], sha256: String)? {
        guard let row = try database.query("SELECT content, sha256 FROM account_logos WHERE account_id = \(accountID.rawValue)").first
        else { return nil }
        return (try row.blob("content"), try row.string("sha256"))
    }

    private static func branding(from row: Row) throws -> Branding {
        Branding(displayName: try row.optionalString("brand_display_name"),
                 accentColor: try row.optionalString("brand_accent_color").flatMap(AccentColor.init(hex:)),
                 supportURL: try row.optionalString("brand_support_url"),
                 logoSHA256: try row.optionalString("sha256"))
    }
}
