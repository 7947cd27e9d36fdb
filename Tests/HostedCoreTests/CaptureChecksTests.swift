import HostedCore
import Testing

/// The capture checks' rules on measures given as numbers (the measuring is HostedImaging's).
@Suite struct CaptureChecksTests {
    static func measures(brightness: Double = 0.5, clipped: Double = 0, sharpness: Double = 100, width: Int = 1000, height: Int = 800,
                         faces: [FaceBox] = [FaceBox(x: 300, y: 200, width: 300, height: 300, score: 1.4)], hash: UInt64 = 0) -> PhotoMeasures {
        PhotoMeasures(brightness: brightness, clipped: clipped, sharpness: sharpness, width: width, height: height, faces: faces, hash: hash)
    }

    @Test func eachThresholdIsAFloorOrACeiling() {
        #expect(CaptureChecks.reasons(for: Self.measures(), step: .selfie) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(brightness: CaptureThresholds.minimumBrightness), step: .selfie) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(brightness: 0.24), step: .selfie) == [.tooDark])
        #expect(CaptureChecks.reasons(for: Self.measures(clipped: CaptureThresholds.maximumClipped), step: .selfie) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(clipped: 0.41), step: .selfie) == [.tooBright])
        #expect(CaptureChecks.reasons(for: Self.measures(sharpness: CaptureThresholds.minimumSharpness), step: .selfie) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(sharpness: 7.9), step: .selfie) == [.blurry])
    }

    @Test func selfiesNeedOneFaceAFifthOfTheShorterSideWide() {
        #expect(CaptureChecks.reasons(for: Self.measures(faces: []), step: .selfie) == [.noFace])
        let face = FaceBox(x: 0, y: 0, width: 160, height: 160, score: 1)
        #expect(CaptureChecks.reasons(for: Self.measures(faces: [face]), step: .selfie) == [])  // 160 = 20 % of 800
        let smaller = FaceBox(x: 0, y: 0, width: 159, height: 159, score: 1)
        #expect(CaptureChecks.reasons(for: Self.measures(faces: [smaller]), step: .selfie) == [.faceTooSmall])
        #expect(CaptureChecks.reasons(for: Self.measures(faces: [face, face]), step: .selfie) == [.severalFaces])
        // Only selfies are looked at for faces.
        #expect(CaptureChecks.reasons(for: Self.measures(faces: []), step: .premisesPhotos) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(faces: []), step: .document) == [])
    }

    @Test func premisesPhotosCloseToAnEarlierPhotoAreDuplicates() {
        let hash: UInt64 = 0b1011_0110
        let sixBitsAway = hash ^ 0b11_1111_0000_0000
        #expect(CaptureChecks.distance(hash, sixBitsAway) == 6)
        #expect(CaptureChecks.reasons(for: Self.measures(hash: sixBitsAway), step: .premisesPhotos, earlierHashes: [hash]) == [.duplicatePhoto])
        let sevenBitsAway = sixBitsAway ^ (1 << 40)
        #expect(CaptureChecks.reasons(for: Self.measures(hash: sevenBitsAway), step: .premisesPhotos, earlierHashes: [hash]) == [])
        #expect(CaptureChecks.reasons(for: Self.measures(hash: hash), step: .premisesPhotos) == [])
        #expect(CaptureChecks.distance(0, .max) == 64)
    }
}
