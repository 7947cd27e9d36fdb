/// Minimal but well-formed image headers for upload tests (the server reads headers, never pixels).
public enum TestImages {
    /// A JPEG header (SOI, JFIF APP0, SOF0) of the given size, padded with `padding` bytes.
    public static func jpeg(width: Int = 640, height: Int = 480, padding: Int = 100) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                  0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        return bytes + [UInt8](repeating: 0x00, count: padding) + [0xFF, 0xD9]
    }

    /// A PNG signature and IHDR chunk of the given size.
    public static func png(width: Int = 640, height: Int = 480) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [0x08, 0x02, 0x00, 0x00, 0x00] + [0, 0, 0, 0]
    }
}
