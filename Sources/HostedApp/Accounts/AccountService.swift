import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// Creates accounts and keys and authenticates presented keys. Only SHA-256 hashes of keys are
/// stored. A key that authenticated is remembered for `CallerCache.lifetime` (one second, by
/// its hash), so a busy backend costs the database one key lookup a second, not one a request;
/// a revoke in this process forgets it at once, one in another process within that second.
public struct AccountService: Sendable {
    let store: AccountStore
    let clock: any WallClock
    let random: any RandomSource
    let callers: CallerCache

    /// `remembersCallers: false` looks every key up (`HOSTED_DISABLE_MEMOS=callers`, to measure).
    public init(database: any Database, clock: any WallClock = SystemWallClock(), random: any RandomSource = SecureRandom(),
                remembersCallers: Bool = true) {
        self.store = AccountStore(database: database)
        self.clock = clock
        self.random = random
        self.callers = CallerCache(capacity: remembersCallers ? CallerCache.defaultCapacity : 0)
    }

    /// Creates an account with its first key. The returned secret is the only copy there will be.
    public func createAccount(name: String) throws -> (account: Account, key: APIKey, secret: APIKeySecret) {
        let account = Account(id: ObjectID(.account, using: random), name: try Account.validateName(name), createdAt: clock.now())
        let (key, secret) = newKey(for: account.id)
        try store.create(account, firstKey: key, secretHash: Self.hash(secret))
        return (account, key, secret)
    }

    /// Adds a key to an account, for rotation without downtime; `livemode: false` makes a test
    /// key (`sk_test_…`).
    public func createKey(accountID: ObjectID, livemode: Bool = true) throws -> (key: APIKey, secret: APIKeySecret) {
        let (key, secret) = newKey(for: accountID, livemode: livemode)
        try store.addKey(key, secretHash: Self.hash(secret))
        return (key, secret)
    }

    public func revokeKey(_ id: ObjectID) throws -> Bool {
        defer { callers.removeAll() }
        return try store.revokeKey(id, at: clock.now())
    }

    /// The account behind an `Authorization: Bearer sk_…` header value; throws `unauthenticated`.
    public func authenticate(authorization: String?) throws -> Account {
        try caller(authorization: authorization).account
    }

    /// The unrevoked API key an `Authorization` header presents: its account, id and mode.
    func caller(authorization: String?) throws -> APICaller {
        guard let authorization, authorization.utf8.count > 7,
              String(decoding: authorization.utf8.prefix(7), as: UTF8.self).lowercased() == "bearer ",
              let secret = APIKeySecret(presented: String(decoding: authorization.utf8.dropFirst(7), as: UTF8.self).trimmedASCIIWhitespace)
        else { throw DomainError.unauthenticated }
        // The lookup is by hash of a 256-bit secret: timing reveals nothing usable about stored keys.
        let digest = Digest.sha256(secret.value)
        let remembered = CallerCache.Key(digest)
        if let caller = callers.caller(remembered) { return caller }
        guard let caller = try store.caller(forKeyHash: Self.hash(digest: digest)) else { throw DomainError.unauthenticated }
        callers.remember(caller, for: remembered)
        return caller
    }

    private func newKey(for accountID: ObjectID, livemode: Bool = true) -> (APIKey, APIKeySecret) {
        let secret = APIKeySecret(using: random, livemode: livemode)
        let key = APIKey(id: ObjectID(.apiKey, using: random), accountID: accountID,
                         displayPrefix: secret.displayPrefix, createdAt: clock.now(), revokedAt: nil, livemode: livemode)
        return (key, secret)
    }

    static func hash(_ secret: APIKeySecret) -> String { hash(digest: Digest.sha256(secret.value)) }

    /// How a key's SHA-256 is stored and looked up: lower-case hex.
    static func hash(digest: [UInt8]) -> String { Digest.hex(digest) }
}
