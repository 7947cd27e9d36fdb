import HostedCore
import HostedTestSupport
import Testing

@Suite struct ImageAndProfileTests {
    @Test func recognisesJPEGAndPNGByBytesWithTheirSize() {
        #expect(ImageInspector.inspect(TestImages.jpegHeader(width: 1600, height: 1200)) == .init(contentType: "image/jpeg", width: 1600, height: 1200))
        #expect(ImageInspector.inspect(TestImages.pngHeader(width: 320, height: 240)) == .init(contentType: "image/png", width: 320, height: 240))
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
