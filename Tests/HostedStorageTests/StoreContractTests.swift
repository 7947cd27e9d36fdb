import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// The rules the app relies on, proved below HTTP against each store on SQLite and PostgreSQL
// alike. Every time is given (`at:`), counted from one fixed instant, so nothing depends on the
// clock of the machine running the tests.

/// The fixed instant the contract tests count from.
let t0 = Date(unixMilliseconds: 1_795_000_000_000)


/// A migrated, empty database of `backend`.
func withMigratedDatabase(_ backend: Backend, poolSize: Int = 4, _ body: (any Database) throws -> Void) throws {
    try TestDatabase.with(backend, poolSize: poolSize) { (db: any Database) throws in
        try Migrator(dialect: db.dialect).migrate(db)
        try body(db)
    }
}

/// Stores an account (with one API key, as the API creates them) and returns its id.
func makeAccount(_ db: any Database, name: String = "Acme") throws -> ObjectID {
    let random = SecureRandom()
    let account = Account(id: ObjectID(.account, using: random), name: name, createdAt: t0)
    let secret = APIKeySecret(using: random)
    let key = APIKey(id: ObjectID(.apiKey, using: random), accountID: account.id, displayPrefix: secret.displayPrefix,
                     createdAt: t0, revokedAt: nil)
    try AccountStore(database: db).create(account, firstKey: key, secretHash: Digest.sha256Hex(secret.value))
    return account.id
}

/// A verification of `accountID`, as the API creates them.
func makeVerification(accountID: ObjectID, userID: String = "user-1", workflowKey: String = "kyc",
                              status: VerificationStatus = .created, createdAt: Date = t0) -> Verification {
    Verification(id: ObjectID(.verification, using: SecureRandom()), accountID: accountID, userID: userID,
                 workflowKey: workflowKey, workflowVersion: 1, status: status, mobile: "+919876543210", returnURL: nil,
                 metadata: [:], steps: [], createdAt: createdAt, updatedAt: createdAt,
                 expiresAt: createdAt.addingTimeInterval(10 * 365 * 86_400))
}

/// Stores a verification of `accountID` (as `makeVerification` builds it) and returns its id.
func storeVerification(_ db: any Database, accountID: ObjectID, userID: String = "user-1") throws -> ObjectID {
    let (verification, created) = try VerificationStore(database: db, changes: LocalChangeFeed())
        .createOrFetchOpen(makeVerification(accountID: accountID, userID: userID))
    try #require(created)
    return verification.id
}

/// The suites below, under one name (`--filter StoreContract`).
@Suite enum StoreContractTests {}
