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

    /// Adds a key to an account, for rotation without downtime.
    public func createKey(accountID: ObjectID) throws -> (key: APIKey, secret: APIKeySecret) {
        let (key, secret) = newKey(for: accountID)
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

    /// The live API key an `Authorization` header presents, and its account.
    func caller(authorization: String?) throws -> (account: Account, keyID: ObjectID) {
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

    private func newKey(for accountID: ObjectID) -> (APIKey, APIKeySecret) {
        let secret = APIKeySecret(using: random)
        let key = APIKey(id: ObjectID(.apiKey, using: random), accountID: accountID,
                         displayPrefix: secret.displayPrefix, createdAt: clock.now(), revokedAt: nil)
        return (key, secret)
    }

    static func hash(_ secret: APIKeySecret) -> String { hash(digest: Digest.sha256(secret.value)) }

    /// How a key's SHA-256 is stored and looked up: lower-case hex.
    static func hash(digest: [UInt8]) -> String { Digest.hex(digest) }
}

/// Keys that authenticated in the last second, by the SHA-256 of the key (never the key), kept
/// as four words (hashing them is cheaper than hashing 64 hex digits), on a monotonic clock.
/// Only successes are kept: an unknown or revoked key is looked up every time. Bounded: emptied
/// when full; a capacity of 0 keeps nothing.
final class CallerCache: Sendable {
    static let lifetimeNanoseconds: UInt64 = 1_000_000_000
    static let defaultCapacity = 10_000

    let capacity: Int
    /// `Guarded`, not `Mutex`: the live tests run this under ThreadSanitizer (see `Guarded`).
    private let entries = Guarded<[Key: (caller: (account: Account, keyID: ObjectID), until: UInt64)]>([:])

    init(capacity: Int = defaultCapacity) {
        self.capacity = capacity
    }

    /// A SHA-256 digest as four words.
    struct Key: Hashable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init(_ digest: [UInt8]) {
            precondition(digest.count == 32, "a SHA-256 digest is 32 bytes")
            func word(_ at: Int) -> UInt64 { digest[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            words = (word(0), word(8), word(16), word(24))
        }

        static func == (a: Key, b: Key) -> Bool { a.words == b.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    func caller(_ hash: Key) -> (account: Account, keyID: ObjectID)? {
        guard capacity > 0 else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            guard entry.until > now else {
                entries[hash] = nil
                return nil
            }
            return entry.caller
        }
    }

    func remember(_ caller: (account: Account, keyID: ObjectID), for hash: Key) {
        guard capacity > 0 else { return }
        let until = DispatchTime.now().uptimeNanoseconds + Self.lifetimeNanoseconds
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[hash] = (caller, until)
        }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
