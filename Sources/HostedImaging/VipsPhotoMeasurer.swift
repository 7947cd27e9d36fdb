import CFaceDetection
import CVips
import Foundation
import HostedCore

/// Measures a stored photo for the capture checks: brightness, clipped highlights and sharpness
/// through libvips on a grey copy at most `measuredEdge` pixels on its longer side, frontal faces
/// through dlib's HOG detector on that copy, and a difference hash through libvips' resize.
public struct VipsPhotoMeasurer: Sendable {
    /// Longer side of the grey copy measured: enough for a face a fifth of the photo wide, and
    /// small enough that the detector takes tens of milliseconds.
    public static let measuredEdge = 640
    /// A detection counts as a face from this score on: dlib scores a clear frontal face about
    /// 1.5 and false matches near a portrait about 0.06.
    public static let minimumFaceScore = 0.5
    /// Most faces reported (a crowd is "several" either way).
    static let maximumFaces = 8

    /// Fails only when libvips itself cannot start.
    public init() throws(ImageRejected) {
        _ = try VipsImageNormalizer(maximumEdge: 1)
    }

    /// The measures of a photo the service stored (a JPEG or PNG); nil when it does not decode.
    public func measure(_ bytes: [UInt8], detectingFaces: Bool) -> PhotoMeasures? {
        guard let declared = ImageInspector.inspect(bytes) else { return nil }
        return bytes.withUnsafeBytes { buffer -> PhotoMeasures? in
            guard let base = buffer.baseAddress,
                  let grey = hosted_vips_grey_thumbnail(base, buffer.count, Int32(Self.measuredEdge)) else {
                hosted_vips_discard_error()
                return nil
            }
            defer { hosted_vips_unref(grey) }
            var mean = 0.0, clipped = 0.0, variance = 0.0
            guard hosted_vips_mean(grey, &mean) == 0, hosted_vips_fraction_at_least(grey, 250, &clipped) == 0,
                  hosted_vips_laplacian_variance(grey, &variance) == 0, let hash = Self.differenceHash(grey)
            else {
                hosted_vips_discard_error()
                return nil
            }
            let faces = detectingFaces ? Self.faces(in: grey, scaledTo: declared.width) : []
            return PhotoMeasures(brightness: mean / 255, clipped: clipped, sharpness: variance,
                                 width: declared.width, height: declared.height, faces: faces ?? [], hash: hash)
        }
    }

    /// Frontal faces in the grey copy, in pixels of a photo `fullWidth` wide; nil if the detector
    /// failed.
    static func faces(in grey: UnsafeMutablePointer<VipsImage>, scaledTo fullWidth: Int) -> [FaceBox]? {
        let width = Int(hosted_vips_width(grey)), height = Int(hosted_vips_height(grey))
        var length = 0
        guard width > 0, height > 0, let pixels = hosted_vips_pixels(grey, &length), length == width * height else { return nil }
        defer { hosted_vips_free(pixels) }
        var found = [hosted_face](repeating: hosted_face(), count: maximumFaces)
        let count = hosted_detect_faces(pixels.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), width,
                                        minimumFaceScore, &found, Int32(found.count))
        guard count >= 0 else { return nil }
        let scale = Double(fullWidth) / Double(width)
        return found.prefix(Int(count)).map { face in
            FaceBox(x: Int((Double(face.x) * scale).rounded()), y: Int((Double(face.y) * scale).rounded()),
                    width: Int((Double(face.width) * scale).rounded()), height: Int((Double(face.height) * scale).rounded()),
                    score: face.score)
        }
    }

    /// The grey copy shrunk to 9 × 8; bit (row × 8 + column) set when a pixel is brighter than
    /// its right neighbour.
    static func differenceHash(_ grey: UnsafeMutablePointer<VipsImage>) -> UInt64? {
        var small: UnsafeMutablePointer<VipsImage>?
        guard hosted_vips_resize_exactly(grey, 9, 8, &small) == 0, let small else { return nil }
        defer { hosted_vips_unref(small) }
        var length = 0
        guard let pixels = hosted_vips_pixels(small, &length), length == 72 else { return nil }
        defer { hosted_vips_free(pixels) }
        let bytes = pixels.assumingMemoryBound(to: UInt8.self)
        var hash: UInt64 = 0
        for row in 0..<8 {
            for column in 0..<8 where bytes[row * 9 + column] > bytes[row * 9 + column + 1] {
                hash |= 1 << UInt64(row * 8 + column)
            }
        }
        return hash
    }
}
