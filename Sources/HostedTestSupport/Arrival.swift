import Foundation

/// A value delivered later, from any thread, and waited for with a time limit (a deferred
/// response, a completion's result).
public final class Arrival<Value: Sendable>: @unchecked Sendable {  // `delivered` only under `lock`
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var delivered: Value?

    public init() {}

    public func set(_ value: Value) {
        lock.lock()
        delivered = value
        lock.unlock()
        arrived.signal()
    }

    /// What has arrived so far.
    public var value: Value? {
        lock.lock()
        defer { lock.unlock() }
        return delivered
    }

    /// Waits up to `seconds` for the value; nil if it has not arrived by then.
    public func wait(seconds: Double) -> Value? {
        _ = arrived.wait(timeout: .now() + seconds)
        return value
    }
}
