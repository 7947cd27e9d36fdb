import Foundation

/// Identifies uploaded images by their bytes, never by a declared type or file name, and reads
/// their dimensions from the header so oversized images are refused before anyone decodes them.
public enum ImageInspector {
    /// What an upload turned out to be.
    public struct Image: Equatable, Sendable {
        public let contentType: String
        public let width: Int
        public let height: Int

        public init(contentType: String, width: Int, height: Int) {
            self.contentType = contentType
            self.width = width
            self.height = height
        }
    }

    /// Largest accepted upload: 8 MB.
    public static let maximumBytes = 8_000_000
    /// Largest accepted pixel count: 50 megapixels.
    public static let maximumPixels = 50_000_000

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The image, or nil when the bytes are not a JPEG or PNG with sane dimensions.
    public static func inspect(_ bytes: [UInt8]) -> Image? {
        guard bytes.count <= maximumBytes else { return nil }
        let image: Image?
        if bytes.starts(with: pngSignature) {
            image = png(bytes)
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            image = jpeg(bytes)
        } else {
            image = nil
        }
        // The dimensions come from the file: up to 2³² − 1 each, so their product can pass Int.max.
        guard let image, image.width > 0, image.height > 0 else { return nil }
        let (pixels, overflow) = image.width.multipliedReportingOverflow(by: image.height)
        guard !overflow, pixels <= maximumPixels else { return nil }
        return image
    }

    /// PNG: the first chunk must be IHDR, holding width and height as big-endian 32-bit numbers.
    static func png(_ bytes: [UInt8]) -> Image? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        return Image(contentType: "image/png", width: bigEndian(bytes, 16, 4), height: bigEndian(bytes, 20, 4))
    }

    /// JPEG: walk the marker segments to the first start-of-frame (SOF0…SOF15 except DHT, JPG, DAC).
    static func jpeg(_ bytes: [UInt8]) -> Image? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image or scan before any frame
            let length = bigEndian(bytes, offset + 2, 2)
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard length >= 7 else { return nil }
                return Image(contentType: "image/jpeg", width: bigEndian(bytes, offset + 7, 2), height: bigEndian(bytes, offset + 5, 2))
            }
            offset += 2 + length
        }
        return nil
    }

    /// At most 4 bytes, so the value fits in 32 bits.
    static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        precondition(count <= 4)
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
