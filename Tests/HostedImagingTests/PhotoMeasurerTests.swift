import Foundation
import HostedCore
import HostedImaging
import Testing

/// The capture checks' measures on real photos (Fixtures/, made from scikit-image's
/// public-domain samples by Fixtures/make-fixtures.sh) and the reasons the core draws from them.
@Suite struct PhotoMeasurerTests {
    let measurer: VipsPhotoMeasurer

    init() throws {
        measurer = try VipsPhotoMeasurer()
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return Array(try Data(contentsOf: directory.appendingPathComponent("\(name).jpg")))
    }

    func measures(_ name: String) throws -> PhotoMeasures {
        try #require(measurer.measure(try Self.fixture(name), detectingFaces: true), "\(name) was not measured")
    }

    @Test func aFrontalPortraitHasExactlyOneFace_andPasses() throws {
        let portrait = try measures("portrait")
        #expect(portrait.width == 600 && portrait.height == 600)
        #expect(portrait.faces.count == 1)
        let face = try #require(portrait.faces.first)
        #expect(face.score > 1 && face.width > 200 && face.width < 320)
        // The face box is in pixels of the stored photo, around its middle.
        #expect(face.x > 100 && face.x < 300 && face.y > 100 && face.y < 350)
        #expect(CaptureChecks.reasons(for: portrait, step: .selfie) == [])
    }

    @Test(arguments: [
        ("portrait-dark", [CaptureReason.tooDark, .blurry]),
        ("portrait-bright", [.tooBright, .noFace]),
        ("portrait-blurry", [.blurry, .noFace]),
        ("portrait-far", [.faceTooSmall]),
        ("two-faces", [.severalFaces]),
        ("profile", [.noFace]),
        ("cat", [.noFace]),
    ])
    func eachFailingSelfieGivesItsReasons(_ name: String, _ expected: [CaptureReason]) throws {
        #expect(CaptureChecks.reasons(for: try measures(name), step: .selfie) == expected)
    }

    @Test func nearCopiesOfAPhotoAreDuplicates_otherPhotosAreNot() throws {
        let portrait = try measures("portrait")
        for copy in ["portrait-again", "portrait-dark", "portrait-blurry"] {
            let distance = CaptureChecks.distance(portrait.hash, try measures(copy).hash)
            #expect(distance <= CaptureThresholds.maximumDuplicateDistance, "\(copy): \(distance) bits")
        }
        for other in ["portrait-far", "two-faces", "profile", "cat"] {
            let distance = CaptureChecks.distance(portrait.hash, try measures(other).hash)
            #expect(distance > 2 * CaptureThresholds.maximumDuplicateDistance, "\(other): \(distance) bits")
        }
        let again = try measures("portrait-again")
        #expect(CaptureChecks.reasons(for: again, step: .premisesPhotos, earlierHashes: [portrait.hash]) == [.duplicatePhoto])
        #expect(CaptureChecks.reasons(for: again, step: .premisesPhotos, earlierHashes: [try measures("cat").hash]) == [])
    }

    @Test func facesAreOnlyLookedForWhenAsked() throws {
        #expect(measurer.measure(try Self.fixture("portrait"), detectingFaces: false)?.faces == [])
    }

    @Test(arguments: [[UInt8](), Array("not a photo".utf8), [0xFF, 0xD8, 0xFF, 0xD9]])
    func whatDoesNotDecodeIsNotMeasured(_ bytes: [UInt8]) {
        #expect(measurer.measure(bytes, detectingFaces: true) == nil)
    }
}
