/// A connection pool's use at one moment.
public struct PoolStatistics: Sendable, Equatable {
    public let size: Int
    public let inUse: Int
    public let waiting: Int
}
