import Foundation

/// A source of the current time, injected so expiry and rate limits are tested deterministically.
/// (Named apart from the standard library's `Clock`, which measures durations, not dates.)
public protocol WallClock: Sendable {
    func now() -> Date
}
