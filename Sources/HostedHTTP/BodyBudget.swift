import Foundation

/// The bytes of request bodies buffered across all connections at once, capped: when the cap is
/// reached a new body is refused (503) instead of the process growing until it is killed.
///
/// `@unchecked Sendable`: `used` is only touched while holding `lock`.
public final class BodyBudget: @unchecked Sendable {
    public let capacity: Int
    private let lock = NSLock()
    private var used = 0

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
    public func reserve(_ bytes: Int) -> Bool {
        guard bytes >= 0 else { return false }
        lock.lock()
        defer { lock.unlock() }
        // `used <= capacity` always holds, so this subtraction cannot overflow.
        guard bytes <= capacity - used else { return false }
        used += bytes
        return true
    }

    /// Gives back bytes taken by `reserve`.
    public func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        lock.lock()
        used = max(0, used - bytes)
        lock.unlock()
    }

    /// Bytes currently taken.
    public var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return used
    }
}
