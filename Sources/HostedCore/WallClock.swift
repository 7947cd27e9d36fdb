import Foundation

/// A source of the current time, injected so expiry and rate limits are tested deterministically.
/// (Named apart from the standard library's `Clock`, which measures durations, not dates.)
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's real time.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

extension Date {
    /// Milliseconds since the Unix epoch: how both stores keep time, so they compare alike.
    public var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    public init(unixMilliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(unixMilliseconds) / 1000)
    }
}
