import Foundation

/// The system's real time.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
