import HostedCore
import HostedTestSupport
import Testing

@Suite struct ImageAndProfileTests {
    @Test func recognisesJPEGAndPNGByBytesWithTheirSize() throws {
        let jpeg = try #require(ImageInspector.inspect(TestImages.jpegHeader(width: 1600, height: 1200)))
        #expect(jpeg.contentType == "image/jpeg" && jpeg.width == 1600 && jpeg.height == 1200)
        #expect(jpeg.bands == 3 && jpeg.bytesPerSample == 1 && !jpeg.decodedWhole && jpeg.heldBytes == 0)
        #expect(jpeg.decodedBytes == 1600 * 1200 * 3)
        let png = try #require(ImageInspector.inspect(TestImages.pngHeader(width: 320, height: 240)))
        #expect(png.contentType == "image/png" && png.width == 320 && png.height == 240)
        #expect(png.bands == 3 && png.bytesPerSample == 1 && png.decodedBytes == 320 * 240 * 3 && png.heldBytes == 0)
    }

    // MARK: What a decode costs: decoded bytes, not pixels

    /// The 389 KB PNG: 7071² pixels of 16-bit RGBA, interlaced — 400 MB decoded, all held.
    @Test func sixteenBitRGBAPNGsAreCountedInBytes_andRefusedPastTheLimit() {
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 7071, height: 7071, depth: 16, colourType: 6, interlaced: true)) == nil)
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 7071, height: 7071, depth: 16, colourType: 6)) == nil)
        // The same pixel count at 8-bit RGB streams: 150 MB decoded, within the limit.
        let rgb = ImageInspector.inspect(TestImages.pngHeader(width: 7071, height: 7071))
        #expect(rgb?.decodedBytes == 7071 * 7071 * 3 && rgb?.heldBytes == 0)
        // 8-bit RGBA of that size is 200 MB decoded: refused.
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 7071, height: 7071, colourType: 6)) == nil)
        let sixteenBit = ImageInspector.inspect(TestImages.pngHeader(width: 2000, height: 2000, depth: 16, colourType: 6))
        #expect(sixteenBit?.bytesPerSample == 2 && sixteenBit?.bands == 4 && sixteenBit?.decodedBytes == 2000 * 2000 * 8)
    }

    @Test func interlacedPNGsAreHeldWhole_andBoundedByWhatIsHeld() {
        let small = ImageInspector.inspect(TestImages.pngHeader(width: 3000, height: 3000, interlaced: true))
        #expect(small?.decodedWhole == true && small?.heldBytes == 3000 * 3000 * 3)
        // 5000² RGB is 75 MB held at once: past the 48 MB a decoder may hold.
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 5000, height: 5000, interlaced: true)) == nil)
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 5000, height: 5000)) != nil)
        // A palette decodes to RGBA.
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 100, height: 100, colourType: 3))?.bands == 4)
    }

    @Test(arguments: [(UInt8(16), UInt8(3)), (4, 2), (1, 6), (3, 0), (8, 5), (32, 6)])
    func pngDepthsTheSpecificationForbidsAreRefused(_ depth: UInt8, _ colourType: UInt8) {
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 10, height: 10, depth: depth, colourType: colourType)) == nil)
    }

    @Test func progressiveJPEGsAreBoundedByTheirCoefficients() throws {
        // A 12-megapixel 4:2:0 progressive photo: 281,500 blocks of 64 two-byte coefficients.
        let photo = try #require(ImageInspector.inspect(TestImages.jpegHeader(width: 4000, height: 3000, marker: 0xC2)))
        #expect(photo.decodedWhole && photo.heldBytes == 281_500 * 128)
        // 7000² progressive: 147 MB of coefficients.
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 7000, height: 7000, marker: 0xC2)) == nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 7000, height: 7000)) != nil)
    }

    /// The 519-byte progressive JPEG whose frame claims 7070², and a baseline one that
    /// claims more blocks than it has bytes: each block codes its DC value in at least one bit.
    @Test func framesLargerThanTheFileCanHoldAreRefused() {
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 7070, height: 7070, marker: 0xC2, padding: 400)) == nil)
        // Within every memory limit (12 MB of coefficients), but 93,750 blocks cannot fit in 400 bytes.
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 2000, height: 2000, marker: 0xC2, padding: 400)) == nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 2000, height: 2000, marker: 0xC2)) != nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 4000, height: 3000, padding: 4_000)) == nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 4000, height: 3000, padding: 36_000)) != nil)
    }

    @Test(arguments: [UInt8(0xC3), 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])
    func losslessHierarchicalAndArithmeticJPEGsAreRefused(_ marker: UInt8) {
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 64, height: 64, marker: marker)) == nil)
    }

    @Test func twelveBitJPEGsAreRefused() {
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 64, height: 64, marker: 0xC1, precision: 12)) == nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 64, height: 64, marker: 0xC1)) != nil)
    }

    @Test(arguments: [
        Array("hello, I am a text file named photo.jpg".utf8), [], [0xFF, 0xD8], [0xFF, 0xD8, 0xFF, 0xD9],
        Array(TestImages.pngHeader().prefix(20)), Array("GIF89a......".utf8), Array("%PDF-1.7".utf8),
        TestImages.jpegHeader(width: 0, height: 10), TestImages.pngHeader(width: 10_000, height: 10_000),
    ])
    func refusesAnythingElse(_ bytes: [UInt8]) {
        #expect(ImageInspector.inspect(bytes) == nil)
    }

    /// The upload that used to kill the process: width × height trapped on overflow.
    @Test(arguments: [(0xFFFF_FFFF, 0xFFFF_FFFF), (0xFFFF_FFFF, 2), (0x7FFF_FFFF, 0x7FFF_FFFF), (1, 0xFFFF_FFFF)])
    func hugeDeclaredDimensionsAreRefusedWithoutOverflow(_ width: Int, _ height: Int) {
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: width, height: height)) == nil)
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: width & 0xFFFF, height: height & 0xFFFF)) == nil
                || (width & 0xFFFF) * (height & 0xFFFF) <= ImageInspector.maximumPixels)
    }

    @Test func refusesMoreThanEightMegabytes() {
        #expect(ImageInspector.inspect(TestImages.jpegHeader(padding: 8_000_000)) == nil)
        let exactly = TestImages.jpegHeader(padding: 8_000_000 - TestImages.jpegHeader(padding: 0).count)
        #expect(exactly.count == 8_000_000)
        #expect(ImageInspector.inspect(exactly) != nil)
    }

    @Test func profileFormRules() throws {
        let valid = try ProfileForm.validate(fullName: "  Asha Rao ", dateOfBirth: "1990-02-28", today: "2026-11-29")
        #expect(valid == ProfileForm(fullName: "Asha Rao", dateOfBirth: "1990-02-28"))
        #expect(try ProfileForm.validate(fullName: "A", dateOfBirth: "2000-02-29", today: "2026-11-29").dateOfBirth == "2000-02-29")
        for (name, date) in [("", "1990-01-01"), ("Asha", "1990-02-30"), ("Asha", "1900-02-29"), ("Asha", "2026-11-30"),
                             ("Asha", "1890-01-01"), ("Asha", "90-01-01"), ("Asha", "1990/01/01"), (String(repeating: "x", count: 201), "1990-01-01")] {
            #expect(throws: DomainError.self, "\(name) \(date)") { try ProfileForm.validate(fullName: name, dateOfBirth: date, today: "2026-11-29") }
        }
    }
}
