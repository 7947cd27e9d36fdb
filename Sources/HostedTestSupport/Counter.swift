import Foundation

/// A thread-safe counter for tests that fan out over threads.
public final class Counter: @unchecked Sendable {  // `count` is only touched while holding `lock`
    private let lock = NSLock()
    private var count = 0

    public init() {}

    public func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    public var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
