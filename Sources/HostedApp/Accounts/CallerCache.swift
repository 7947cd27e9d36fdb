import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// Keys that authenticated in the last second, by the SHA-256 of the key (never the key), kept
/// as four words (hashing them is cheaper than hashing 64 hex digits), on a monotonic clock.
/// Only successes are kept: an unknown or revoked key is looked up every time. Bounded: emptied
/// when full; a capacity of 0 keeps nothing.
final class CallerCache: Sendable {
    static let lifetimeNanoseconds: UInt64 = 1_000_000_000
    static let defaultCapacity = 10_000

    let capacity: Int
    /// `Guarded`, not `Mutex`: the live tests run this under ThreadSanitizer (see `Guarded`).
    private let entries = Guarded<[Key: (caller: APICaller, until: UInt64)]>([:])

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

    func caller(_ hash: Key) -> APICaller? {
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

    func remember(_ caller: APICaller, for hash: Key) {
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
