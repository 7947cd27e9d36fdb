import Foundation

/// The bytes of request bodies buffered across all connections at once, capped: when the cap is
/// reached a new body is refused (503) instead of the process growing until it is killed. Each
/// holder — a client address, a session — may take at most `share` of it, so one of them cannot
/// take the whole budget and leave every other client's uploads refused.
///
/// `@unchecked Sendable`: `used` and `held` are only touched while holding `lock`.
public final class BodyBudget: @unchecked Sendable {
    public let capacity: Int
    /// The most one holder may have taken at once.
    public let share: Int
    private let lock = NSLock()
    private var used = 0
    /// Bytes taken by each holder; a holder with none has no entry.
    private var held: [String: Int] = [:]

    /// Why `reserve` took nothing.
    public enum Refusal: Sendable, Equatable {
        /// The server's whole budget is taken.
        case full
        /// One of the holders already has its share.
        case overShare
    }

    /// `share` nil: the whole capacity (one holder may take everything).
    public init(capacity: Int, share: Int? = nil) {
        self.capacity = max(0, capacity)
        self.share = min(self.capacity, max(0, share ?? capacity))
    }

    /// Takes `bytes` for a body held by every one of `holders`; nil when taken, else why not
    /// (and nothing is taken).
    public func reserve(_ bytes: Int, for holders: [String] = []) -> Refusal? {
        guard bytes >= 0 else { return .full }
        lock.lock()
        defer { lock.unlock() }
        // `used <= capacity` and every holder's count `<= share` always hold, so these
        // subtractions cannot overflow.
        guard bytes <= capacity - used else { return .full }
        for holder in holders where bytes > share - held[holder, default: 0] { return .overShare }
        used += bytes
        for holder in holders { held[holder, default: 0] += bytes }
        return nil
    }

    /// Gives back bytes taken by `reserve` for the same holders.
    public func release(_ bytes: Int, for holders: [String] = []) {
        guard bytes > 0 else { return }
        lock.lock()
        used = max(0, used - bytes)
        for holder in holders {
            let left = held[holder, default: 0] - bytes
            held[holder] = left > 0 ? left : nil
        }
        lock.unlock()
    }

    /// Bytes currently taken.
    public var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return used
    }

    /// Bytes currently taken by `holder`.
    public func inUse(by holder: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return held[holder, default: 0]
    }
}
