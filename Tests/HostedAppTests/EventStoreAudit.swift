import HostedStorage

/// `hosted audit verify`'s check, run in-process.
enum EventStoreAudit {
    static func verify(_ app: TestApplication) throws -> Bool {
        try EventStore(database: app.application.database).audit(accountID: nil).broken == nil
    }
}
