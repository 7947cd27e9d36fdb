import Foundation

/// A value shared between threads, read and changed only under an `NSLock`. Used where
/// Synchronization's `Mutex` would do, because that one waits on a bare futex, which
/// ThreadSanitizer cannot see: it reported a race on a dictionary the Mutex did guard.
///
/// `@unchecked Sendable`: `value` is only touched while holding `lock`.
public final class Guarded<Value>: @unchecked Sendable {
    // Inlinable, so a caller in another module (every cache on a request's path) gets the lock
    // and its closure specialised and inlined, as with a lock of its own.
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
