import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import Testing

@Suite struct AccountStoreTests {
    let random = SecureRandom()
    let now = Date(unixMilliseconds: 1_790_000_000_000)

    func makeKey(for account: ObjectID) -> (APIKey, APIKeySecret) {
        let secret = APIKeySecret(using: random)
        return (APIKey(id: ObjectID(.apiKey, using: random), accountID: account, displayPrefix: secret.displayPrefix,
                       createdAt: now, revokedAt: nil), secret)
    }

    @Test(arguments: Backend.allCases)
    func keysAuthenticateByHashUntilRevoked(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try Migrator(dialect: db.dialect).migrate(db)
            let store = AccountStore(database: db)
            let account = Account(id: ObjectID(.account, using: random), name: "Acme", createdAt: now)
            let (key1, secret1) = makeKey(for: account.id)
            let (key2, secret2) = makeKey(for: account.id)
            try store.create(account, firstKey: key1, secretHash: Digest.sha256Hex(secret1.value))
            try store.addKey(key2, secretHash: Digest.sha256Hex(secret2.value))

            #expect(try store.account(forKeyHash: Digest.sha256Hex(secret1.value)) == account)
            #expect(try store.account(forKeyHash: Digest.sha256Hex(secret2.value)) == account)
            #expect(try store.account(forKeyHash: Digest.sha256Hex("sk_unknown")) == nil)

            #expect(try store.revokeKey(key1.id, at: now))
            #expect(try store.revokeKey(key1.id, at: now) == false)
            #expect(try store.account(forKeyHash: Digest.sha256Hex(secret1.value)) == nil)
            #expect(try store.account(forKeyHash: Digest.sha256Hex(secret2.value)) == account)
            #expect(try store.keys(of: account.id).map(\.id).sorted { $0.rawValue < $1.rawValue }
                    == [key1.id, key2.id].sorted { $0.rawValue < $1.rawValue })
        }
    }

    @Test(arguments: Backend.allCases)
    func addingAKeyToAMissingAccountIsNotFound(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try Migrator(dialect: db.dialect).migrate(db)
            let (key, secret) = makeKey(for: ObjectID(.account, using: random))
            #expect(throws: DomainError.notFound(what: "account")) {
                try AccountStore(database: db).addKey(key, secretHash: Digest.sha256Hex(secret.value))
            }
        }
    }

    /// The stored form of a key is its hash: the secret appears in no column of any table.
    @Test(arguments: Backend.allCases)
    func secretIsStoredOnlyAsHash(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try Migrator(dialect: db.dialect).migrate(db)
            let account = Account(id: ObjectID(.account, using: random), name: "Acme", createdAt: now)
            let (key, secret) = makeKey(for: account.id)
            try AccountStore(database: db).create(account, firstKey: key, secretHash: Digest.sha256Hex(secret.value))
            for table in ["accounts", "api_keys", "return_urls", "settings", "schema_migrations"] {
                for row in try db.query("SELECT * FROM \(unsafeSQL: table)") {
                    for value in row.values {
                        if case .text(let text) = value { #expect(!text.contains(secret.value)) }
                    }
                }
            }
            #expect(try db.query("SELECT secret_hash FROM api_keys")[0].string("secret_hash") == Digest.sha256Hex(secret.value))
        }
    }
}
