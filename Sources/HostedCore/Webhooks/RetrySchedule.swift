import Foundation

/// When a failed delivery is tried again: after each failure the next step's delay, ±10 %
/// jitter; after the last step the message has failed. A `Retry-After` (429, 503) replaces the
/// step's delay but never goes past the following step's.
public struct RetrySchedule: Equatable, Sendable {
    /// Seconds to wait after the first, second, … failure.
    public let delays: [TimeInterval]

    public static let standard = RetrySchedule(delays: [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400])
    /// The longest a configured step may be (a month), so times stay far from overflow.
    public static let maximumDelay: TimeInterval = 30 * 24 * 3600

    public init(delays: [TimeInterval]) {
        self.delays = delays
    }

    /// Parses `HOSTED_WEBHOOK_RETRY_SCHEDULE`: comma-separated whole seconds, 1 to 20 steps of
    /// 0…2592000 each; nil when it is not that.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...20).contains(parts.count) else { return nil }
        var delays: [TimeInterval] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 7, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                  let seconds = Int(part), TimeInterval(seconds) <= Self.maximumDelay
            else { return nil }
            delays.append(TimeInterval(seconds))
        }
        self.delays = delays
    }

    /// When attempt `attempt` (1-based) has failed: the delay before the next one, or nil when
    /// it was the last. `jitter` is a number in 0..<1 (from the caller's randomness);
    /// `retryAfter` is the receiver's `Retry-After` in seconds, if it sent one.
    public func delay(afterFailedAttempt attempt: Int, jitter: Double, retryAfter: TimeInterval? = nil) -> TimeInterval? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        let step = delays[attempt - 1]
        let jittered = step * (0.9 + 0.2 * min(max(jitter, 0), 1))
        guard let retryAfter, retryAfter >= 0 else { return jittered }
        let cap = attempt < delays.count ? delays[attempt] : step
        return min(retryAfter, cap)
    }
}
