import HostedCore
import HostedTestSupport
import Testing

@Suite struct ImageAndProfileTests {
    @Test func recognisesJPEGAndPNGByBytesWithTheirSize() {
        #expect(ImageInspector.inspect(TestImages.jpeg(width: 1600, height: 1200)) == .init(contentType: "image/jpeg", width: 1600, height: 1200))
        #expect(ImageInspector.inspect(TestImages.png(width: 320, height: 240)) == .init(contentType: "image/png", width: 320, height: 240))
    }

    @Test(arguments: [
        Array("hello, I am a text file named photo.jpg".utf8), [], [0xFF, 0xD8], [0xFF, 0xD8, 0xFF, 0xD9],
        Array(TestImages.png().prefix(20)), Array("GIF89a......".utf8), Array("%PDF-1.7".utf8),
        TestImages.jpeg(width: 0, height: 10), TestImages.png(width: 10_000, height: 10_000),
    ])
    func refusesAnythingElse(_ bytes: [UInt8]) {
        #expect(ImageInspector.inspect(bytes) == nil)
    }

    @Test func refusesMoreThanEightMegabytes() {
        #expect(ImageInspector.inspect(TestImages.jpeg(padding: 8_000_000)) == nil)
        let exactly = TestImages.jpeg(padding: 8_000_000 - TestImages.jpeg(padding: 0).count)
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
