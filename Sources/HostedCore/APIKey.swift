import Foundation

/// An API key's stored record: never the key itself, only its hash and a display prefix.
public struct APIKey: Equatable, Sendable {
    public let id: ObjectID
    public let accountID: ObjectID
    /// The first characters of the key (`sk_` or `sk_test_` plus eight), safe to show in logs and lists.
    public let displayPrefix: String
    public let createdAt: Date
    public let revokedAt: Date?
    /// False for a test key (`sk_test_…`): it sees and makes only test data.
    public let livemode: Bool

    public init(id: ObjectID, accountID: ObjectID, displayPrefix: String, createdAt: Date, revokedAt: Date?, livemode: Bool = true) {
        self.id = id
        self.accountID = accountID
        self.displayPrefix = displayPrefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.livemode = livemode
    }
}
