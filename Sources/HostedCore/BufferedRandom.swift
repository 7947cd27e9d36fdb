import Foundation

/// Random bytes drawn from `source` `chunk` bytes at a time and handed out in order, each byte
/// once. For values that are random but not secret and made on every request, such as a signed
/// result's `jti`: one `RAND_bytes` call has a fixed cost (its DRBG's bookkeeping, a `getpid`
/// system call) of several microseconds in the server, far more than its 16 bytes.
/// Never for keys, secrets or tokens: those come straight from the source.
///
/// `@unchecked Sendable`: `buffer` and `next` are only read and written under `lock`.
public final class BufferedRandom: RandomSource, @unchecked Sendable {
    public let source: any RandomSource
    public let chunk: Int
    private var buffer: [UInt8] = []
    private var next = 0
    private let lock = NSLock()

    public init(_ source: any RandomSource, chunk: Int = 4096) {
        precondition(chunk > 0)
        self.source = source
        self.chunk = chunk
    }

    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= chunk else { return source.bytes(count) }
        return lock.withLock {
            if next + count > buffer.count {
                buffer = source.bytes(chunk)
                next = 0
            }
            defer { next += count }
            return Array(buffer[next..<next + count])
        }
    }
}
