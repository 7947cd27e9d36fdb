import Foundation

/// The sealed bytes of recently read or written objects, by object key, up to `capacity` bytes
/// (oldest first out). An object's bytes never change (an artifact is written once, and sealing
/// it again gives the same bytes), so nothing needs invalidating; what is kept is ciphertext, as
/// in the bucket — useless once redaction shreds its verification's key, which every read checks
/// first. Every hit is still checked against its row's SHA-256 and opened with the key. Saves a
/// round trip to the store for the photos a reviewer, the evidence bundle and the API read again.
final class SealedObjectCache: @unchecked Sendable {  // `entries`, `order` and `size` only under `lock`
    private let lock = NSLock()
    private let capacity: Int
    private var entries: [String: [UInt8]] = [:]
    private var order: [String] = []
    private var size = 0

    /// Objects larger than a quarter of the capacity are not kept.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    func get(_ key: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    func put(_ key: String, _ bytes: [UInt8]) {
        guard capacity > 0, bytes.count <= capacity / 4 else { return }
        lock.lock()
        defer { lock.unlock() }
        guard entries[key] == nil else { return }
        entries[key] = bytes
        order.append(key)
        size += bytes.count
        var dropped = 0
        while size > capacity, dropped < order.count {
            if let old = entries.removeValue(forKey: order[dropped]) { size -= old.count }
            dropped += 1
        }
        if dropped > 0 { order.removeFirst(dropped) }
    }
}
