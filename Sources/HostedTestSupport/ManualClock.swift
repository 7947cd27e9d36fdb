import Foundation
import HostedCore

/// A clock tests move by hand.
public final class ManualClock: WallClock, @unchecked Sendable {  // `current` only under `lock`
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(unixMilliseconds: 1_795_000_000_000)) {
        current = start
    }

    public func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    public func advance(by seconds: TimeInterval) {
        lock.lock()
        current = current.addingTimeInterval(seconds)
        lock.unlock()
    }
}
