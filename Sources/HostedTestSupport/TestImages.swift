/// Images for upload tests: headers alone (for the header inspector, and for sizes no test should
/// allocate), and real PNGs that decode.
public enum TestImages {
    /// A JPEG header (SOI, JFIF APP0, a start-of-frame `marker` with 4:2:0 YCbCr at `precision`
    /// bits) of the given size, padded with `padding` bytes (by default as many as the frame's
    /// blocks need at one bit each, so the header is believable): no image data, so it must not
    /// decode.
    public static func jpegHeader(width: Int = 640, height: Int = 480, marker: UInt8 = 0xC0, precision: UInt8 = 8,
                                  padding: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        bytes += [0xFF, marker, 0x00, 0x11, precision, UInt8(height >> 8 & 0xFF), UInt8(height & 0xFF), UInt8(width >> 8 & 0xFF), UInt8(width & 0xFF),
                  0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        // Luma at full size, two chroma planes at half in each direction.
        let blocks = (width + 7) / 8 * ((height + 7) / 8) + 2 * ((width + 15) / 16 * ((height + 15) / 16))
        return bytes + [UInt8](repeating: 0x00, count: padding ?? blocks / 8 + 16) + [0xFF, 0xD9]
    }

    /// A PNG signature and IHDR chunk of the given size and format, and nothing after it.
    /// Colour types: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    public static func pngHeader(width: Int = 640, height: Int = 480, depth: UInt8 = 8, colourType: UInt8 = 2,
                                 interlaced: Bool = false) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [depth, colourType, 0x00, 0x00, interlaced ? 0x01 : 0x00] + [0, 0, 0, 0]
    }

    /// A real RGB PNG of the given size (a colour gradient), written with stored deflate blocks.
    public static func photoPNG(width: Int = 64, height: Int = 48, extra: [UInt8] = []) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + 3 * width))
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                raw += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), 0x80]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += be32(Int(adler32(raw)))
        let header = be32(width) + be32(height) + [0x08, 0x02, 0x00, 0x00, 0x00]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
            + chunk("IEND", []) + extra
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// A JPEG APP1 segment holding EXIF: orientation `orientation`, and `Make`/`Model` strings
    /// (standing in for a camera serial and a GPS position a test must not find again).
    public static func exifSegment(orientation: UInt16, make: String, model: String) -> [UInt8] {
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let makeBytes = Array(make.utf8) + [0]
        let modelBytes = Array(model.utf8) + [0]
        let entries = 3
        let ifdSize = 2 + entries * 12 + 4
        let dataStart = 8 + ifdSize
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + be32(8) + be16(entries)
        tiff += be16(0x010F) + be16(2) + be32(makeBytes.count) + be32(dataStart)                       // Make
        tiff += be16(0x0110) + be16(2) + be32(modelBytes.count) + be32(dataStart + makeBytes.count)   // Model
        tiff += be16(0x0112) + be16(3) + be32(1) + be16(Int(orientation)) + [0, 0]                    // Orientation
        tiff += be32(0) + makeBytes + modelBytes
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xE1] + be16(payload.count + 2) + payload
    }

    /// `jpeg` with `segment` inserted right after its start-of-image marker.
    public static func inserting(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segment + jpeg.dropFirst(2)
    }
}
