import Foundation

/// A value shared between threads, read and changed only under an `NSLock`. Used where
/// Synchronization's `Mutex` would do, because that one waits on a bare futex, which
/// ThreadSanitizer cannot see: it reported a race on a dictionary the Mutex did guard.
///
/// `@unchecked Sendable`: `value` is only touched while holding `lock`.
public final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
