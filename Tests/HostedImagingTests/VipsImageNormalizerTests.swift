import Foundation
import HostedCore
import HostedImaging
import HostedTestSupport
import Testing

/// What is kept of an upload: a fresh JPEG of its pixels, upright, with nothing else of the file.
@Suite struct VipsImageNormalizerTests {
    let normalizer: VipsImageNormalizer

    init() throws {
        normalizer = try VipsImageNormalizer(maximumEdge: 2560)
    }

    /// A real JPEG to start from (libvips' own encoding of a generated PNG).
    func jpeg(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        try normalizer.normalize(TestImages.photoPNG(width: width, height: height)).bytes
    }

    /// The JPEG marker segments before the scan, e.g. 0xE0 (JFIF), 0xE1 (EXIF/XMP), 0xE2 (ICC).
    static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA {
            found.append(jpeg[offset + 1])
            offset += 2 + Int(jpeg[offset + 2]) << 8 + Int(jpeg[offset + 3])
        }
        return found
    }

    @Test func pngBecomesAJPEGOfTheSameSize() throws {
        let image = try normalizer.normalize(TestImages.photoPNG(width: 120, height: 90))
        #expect(image.contentType == "image/jpeg")
        #expect(image.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(image.width == 120 && image.height == 90)
    }

    @Test func exifIsStrippedAndOrientationApplied() throws {
        let original = try jpeg(width: 64, height: 48)
        // Orientation 6: the camera was turned a quarter; the kept image must stand upright.
        let tagged = TestImages.inserting(TestImages.exifSegment(orientation: 6, make: "SERIAL-XJ-77881",
                                                                 model: "GPS 12.971599N 77.594566E"), into: original)
        #expect(tagged.contains(text: "SERIAL-XJ-77881"))
        let kept = try normalizer.normalize(tagged)
        #expect(kept.width == 48 && kept.height == 64)
        #expect(!kept.bytes.contains(text: "SERIAL-XJ-77881"))
        #expect(!kept.bytes.contains(text: "GPS 12.97"))
        #expect(!kept.bytes.contains(text: "Exif"))
        #expect(!Self.markers(kept.bytes).contains(0xE1))
        #expect(!Self.markers(kept.bytes).contains(0xE2))
    }

    @Test func trailingHTMLDoesNotSurvive() throws {
        let html = "<html><script>alert(document.domain)</script></html>"
        let polyglotJPEG = try jpeg() + Array(html.utf8)
        let polyglotPNG = TestImages.photoPNG(extra: Array(html.utf8))
        for upload in [polyglotJPEG, polyglotPNG] {
            let kept = try normalizer.normalize(upload)
            #expect(!kept.bytes.contains(text: "<script>"))
            #expect(kept.bytes.suffix(2).elementsEqual([0xFF, 0xD9]))
        }
    }

    @Test(arguments: [
        ("header-only JPEG", TestImages.jpegHeader()),
        ("header-only PNG", TestImages.pngHeader()),
        ("PNG of 0xFFFFFFFF × 0xFFFFFFFF", TestImages.pngHeader(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)),
        ("PNG of 0 × 10", TestImages.pngHeader(width: 0, height: 10)),
        ("PNG over the pixel limit", TestImages.pngHeader(width: 10_000, height: 10_000)),
        ("HTML", Array("<html><body>hi</body></html>".utf8)),
        ("GIF", Array("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8)),
        ("empty", []),
    ])
    func undecodableUploadsAreRefused(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: ImageRejected.self, "\(name)") { try normalizer.normalize(bytes) }
    }

    @Test func truncatedFilesAreRefused() throws {
        let whole = try jpeg(width: 256, height: 256)
        #expect(throws: ImageRejected.self) { try normalizer.normalize(Array(whole.prefix(whole.count / 2))) }
        let png = TestImages.photoPNG(width: 256, height: 256)
        #expect(throws: ImageRejected.self) { try normalizer.normalize(Array(png.prefix(png.count / 2))) }
    }

    @Test func aSVGOrOtherFormatWithAJPEGNameIsRefused() {
        let svg = Array(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)
        #expect(throws: ImageRejected.self) { try normalizer.normalize(svg) }
    }

    @Test func largeImagesAreShrunkToTheMaximumEdge() throws {
        let small = try VipsImageNormalizer(maximumEdge: 100)
        let image = try small.normalize(TestImages.photoPNG(width: 400, height: 200))
        #expect(image.width == 100 && image.height == 50)
    }

    /// A real JPEG whose frame header is rewritten to claim `width` × `height`, padded after its
    /// end so the header inspector's lower bound (a bit per block) is met.
    func claiming(width: Int, height: Int, from jpeg: [UInt8], padding: Int) -> [UInt8] {
        var bytes = jpeg
        var offset = 2
        while offset + 9 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if (0xC0...0xC2).contains(marker) {
                bytes[offset + 5] = UInt8(height >> 8); bytes[offset + 6] = UInt8(height & 0xFF)
                bytes[offset + 7] = UInt8(width >> 8); bytes[offset + 8] = UInt8(width & 0xFF)
                break
            }
            offset += 2 + Int(bytes[offset + 2]) << 8 + Int(bytes[offset + 3])
        }
        return bytes + [UInt8](repeating: 0, count: padding)
    }

    /// libjpeg fills a scan that ends before its frame with grey and only warns: such a file is
    /// refused, not stored as a made-up picture at full cost.
    @Test func aScanShorterThanItsFrameIsRefused() throws {
        let lying = claiming(width: 1000, height: 1000, from: try jpeg(width: 64, height: 64), padding: 4_000)
        let declared = try #require(ImageInspector.inspect(lying))
        #expect(declared.width == 1000 && declared.height == 1000)
        #expect(throws: ImageRejected.self) { try normalizer.normalize(lying) }
    }
}
