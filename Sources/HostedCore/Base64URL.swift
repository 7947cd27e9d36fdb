/// Base64url without padding (RFC 4648 §5), the encoding of every secret Hosted hands out.
/// Works on bytes (no Foundation string searching): an API key is decoded on every request.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out` (a JWS is written into one buffer this way).
    public static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count * 4 + 2) / 3)
        alphabet.withUnsafeBufferPointer { alphabet in
            bytes.withUnsafeBufferPointer { bytes in
                var index = 0
                while index + 3 <= bytes.count {
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    out.append(alphabet[Int(group >> 18 & 0x3F)])
                    out.append(alphabet[Int(group >> 12 & 0x3F)])
                    out.append(alphabet[Int(group >> 6 & 0x3F)])
                    out.append(alphabet[Int(group & 0x3F)])
                    index += 3
                }
                switch bytes.count - index {
                case 1:
                    let group = UInt32(bytes[index]) << 16
                    out.append(alphabet[Int(group >> 18 & 0x3F)])
                    out.append(alphabet[Int(group >> 12 & 0x3F)])
                case 2:
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                    out.append(alphabet[Int(group >> 18 & 0x3F)])
                    out.append(alphabet[Int(group >> 12 & 0x3F)])
                    out.append(alphabet[Int(group >> 6 & 0x3F)])
                default:
                    break
                }
            }
        }
    }

    /// nil for anything outside the alphabet, padding, a length no encoding has (4n + 1), or
    /// unused low bits that are not zero (so each byte string has exactly one accepted text).
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        guard walk(text.utf8, emit: { out.append($0) }) else { return nil }
        return out
    }

    /// Whether `decode` would accept these bytes, without building the result (an API key is
    /// checked on every request).
    public static func isCanonical(_ utf8: some Collection<UInt8>) -> Bool {
        walk(utf8, emit: { _ in })
    }

    /// Decodes `utf8`, handing each byte to `emit`; false as soon as it is not canonical.
    @inline(__always)
    private static func walk(_ utf8: some Collection<UInt8>, emit: (UInt8) -> Void) -> Bool {
        guard utf8.count % 4 != 1 else { return false }
        var group: UInt32 = 0
        var filled = 0
        for character in utf8 {
            guard let value = sextet(character) else { return false }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                emit(UInt8(truncatingIfNeeded: group >> 16))
                emit(UInt8(truncatingIfNeeded: group >> 8))
                emit(UInt8(truncatingIfNeeded: group))
                group = 0
                filled = 0
            }
        }
        switch filled {
        case 2:
            guard group & 0xF == 0 else { return false }
            emit(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x3 == 0 else { return false }
            emit(UInt8(truncatingIfNeeded: group >> 10))
            emit(UInt8(truncatingIfNeeded: group >> 2))
        default:
            break
        }
        return true
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x41...0x5A: c - 0x41
        case 0x61...0x7A: c - 0x61 + 26
        case 0x30...0x39: c - 0x30 + 52
        case 0x2D: 62
        case 0x5F: 63
        default: nil
        }
    }
}
