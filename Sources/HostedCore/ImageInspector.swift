import Foundation

/// Identifies uploaded images by their bytes, never by a declared type or file name, and reads
/// from the header what decoding them would cost, so an image that would take too much memory is
/// refused before anyone decodes it.
///
/// The cost is counted in decoded bytes, not pixels: pixels × bands × bytes per sample. A decoder
/// streams a baseline JPEG or a non-interlaced PNG a few rows at a time, but must hold the whole
/// image while it reads an interlaced PNG (all seven passes) or a progressive JPEG (every DCT
/// coefficient, two bytes each, until the last scan): those are also bounded by what is held.
public enum ImageInspector {
    /// What an upload turned out to be, and what decoding it costs.
    public struct Image: Equatable, Sendable {
        public let contentType: String
        public let width: Int
        public let height: Int
        /// Samples per pixel once decoded (a palette PNG decodes to RGBA: 4).
        public let bands: Int
        /// 1 for 8-bit samples (and less), 2 for 16-bit.
        public let bytesPerSample: Int
        /// An interlaced PNG or a progressive JPEG: decoded as a whole, not row by row.
        public let decodedWhole: Bool
        /// Pixels × bands × bytes per sample.
        public let decodedBytes: Int
        /// What the decoder holds at once: for an interlaced PNG its decoded bytes, for a progressive
        /// JPEG its coefficients (blocks × 64 × 2 bytes); 0 for a streamed decode.
        public let heldBytes: Int
    }

    /// Largest accepted upload: 8 MB.
    public static let maximumBytes = 8_000_000
    /// Largest accepted pixel count: 50 megapixels.
    public static let maximumPixels = 50_000_000
    /// Largest decoded size: a 50-megapixel colour photo at 8 bits (150 MB); a 16-bit or RGBA
    /// image of that many pixels is refused.
    public static let maximumDecodedBytes = 150_000_000
    /// Most a decoder may hold at once (an interlaced PNG, a progressive JPEG): 48 MB, a
    /// 16-megapixel 4:2:0 progressive JPEG or a 12-megapixel RGBA interlaced PNG.
    public static let maximumHeldBytes = 48_000_000

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The image, or nil when the bytes are not a JPEG or PNG within the limits above.
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
        guard let image, image.width * image.height <= maximumPixels, image.decodedBytes <= maximumDecodedBytes,
              image.heldBytes <= maximumHeldBytes
        else { return nil }
        return image
    }

    /// Pixels × bands × bytes per sample, nil past `maximumDecodedBytes` or when a dimension is
    /// not positive. Dimensions come from the file (up to 2³² − 1 each): every product is checked.
    static func decodedBytes(width: Int, height: Int, bands: Int, bytesPerSample: Int) -> Int? {
        guard width > 0, height > 0 else { return nil }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumPixels else { return nil }
        // pixels ≤ 5·10⁷ and bands × bytes ≤ 8: no overflow from here.
        return pixels * bands * bytesPerSample
    }

    // MARK: - PNG

    /// PNG: the first chunk must be IHDR: width, height (big-endian 32-bit), bit depth, colour type,
    /// compression, filter and interlace method, in that order.
    static func png(_ bytes: [UInt8]) -> Image? {
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8), bigEndian(bytes, 8, 4) == 13 else { return nil }
        let width = bigEndian(bytes, 16, 4)
        let height = bigEndian(bytes, 20, 4)
        let depth = Int(bytes[24])
        let interlace = bytes[28]
        // The PNG specification's table of allowed depths per colour type; libvips decodes every
        // depth below 8 to 8 bits, and a palette to RGB(A).
        let bands: Int
        switch (bytes[25], depth) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): bands = 1  // grey
        case (2, 8), (2, 16): bands = 3  // RGB
        case (3, 1), (3, 2), (3, 4), (3, 8): bands = 4  // palette, counted as RGBA
        case (4, 8), (4, 16): bands = 2  // grey + alpha
        case (6, 8), (6, 16): bands = 4  // RGBA
        default: return nil
        }
        guard bytes[26] == 0, bytes[27] == 0, interlace <= 1 else { return nil }
        let bytesPerSample = depth == 16 ? 2 : 1
        guard let decoded = decodedBytes(width: width, height: height, bands: bands, bytesPerSample: bytesPerSample) else { return nil }
        return Image(contentType: "image/png", width: width, height: height, bands: bands, bytesPerSample: bytesPerSample,
                     decodedWhole: interlace == 1, decodedBytes: decoded, heldBytes: interlace == 1 ? decoded : 0)
    }

    // MARK: - JPEG

    /// JPEG: walk the marker segments to the first start-of-frame. Only the Huffman-coded 8-bit
    /// frames phones and browsers write are accepted: baseline (SOF0), extended (SOF1) and
    /// progressive (SOF2). Lossless, hierarchical and arithmetic-coded frames are refused: nobody
    /// photographs in them, and arithmetic coding can describe millions of blocks in a few bytes.
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
                guard marker <= 0xC2 else { return nil }
                return frame(bytes, at: offset + 4, length: length - 2, progressive: marker == 0xC2, fileSize: bytes.count)
            }
            offset += 2 + length
        }
        return nil
    }

    /// A start-of-frame segment's body: precision, height, width, then per component an id, its
    /// sampling factors (high nibble horizontal, low vertical, 1...4 each) and a table number.
    static func frame(_ bytes: [UInt8], at start: Int, length: Int, progressive: Bool, fileSize: Int) -> Image? {
        guard length >= 6, bytes[start] == 8 else { return nil }
        let height = bigEndian(bytes, start + 1, 2)
        let width = bigEndian(bytes, start + 3, 2)
        let count = Int(bytes[start + 5])
        guard count == 1 || count == 3 || count == 4, length >= 6 + 3 * count else { return nil }
        var sampling: [(h: Int, v: Int)] = []
        for index in 0..<count {
            let factors = bytes[start + 7 + 3 * index]
            let h = Int(factors >> 4), v = Int(factors & 0x0F)
            guard (1...4).contains(h), (1...4).contains(v) else { return nil }
            sampling.append((h, v))
        }
        guard let decoded = decodedBytes(width: width, height: height, bands: count, bytesPerSample: 1) else { return nil }
        // Each component's 8×8 blocks (its size scaled by its sampling factors, rounded up).
        // Dimensions are below 2¹⁶ here, so none of this can overflow.
        let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
        let blocks = sampling.reduce(0) { total, factors in
            let componentWidth = (width * factors.h + maxH - 1) / maxH
            let componentHeight = (height * factors.v + maxV - 1) / maxV
            return total + (componentWidth + 7) / 8 * ((componentHeight + 7) / 8)
        }
        // Every block codes its DC value in at least one Huffman bit: a file shorter than that
        // cannot hold the frame it declares (the decoder would invent the rest, at full cost).
        guard fileSize >= blocks / 8 else { return nil }
        return Image(contentType: "image/jpeg", width: width, height: height, bands: count, bytesPerSample: 1,
                     decodedWhole: progressive, decodedBytes: decoded, heldBytes: progressive ? blocks * 64 * 2 : 0)
    }

    /// At most 4 bytes, so the value fits in 32 bits.
    static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        precondition(count <= 4)
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
