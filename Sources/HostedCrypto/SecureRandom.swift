import CCrypto
import HostedCore

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`).
public struct SecureRandom: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes fails only if the CSPRNG cannot be seeded; handing out a predictable
        // token would be worse than stopping, so this is the one deliberate trap.
        precondition(ok == 1, "OpenSSL RAND_bytes failed: the CSPRNG is not seeded")
        return out
    }
}
