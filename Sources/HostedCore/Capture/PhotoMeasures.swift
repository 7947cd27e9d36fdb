/// What the imaging adapter measured on a stored photo: plain numbers the capture checks judge.
/// No biometric template: a face is a box and a score.
public struct PhotoMeasures: Sendable, Equatable {
    /// Mean luma, 0 (black) … 1 (white), of a grey copy.
    public var brightness: Double
    /// Fraction (0 … 1) of the grey copy's pixels at or above 250 of 255: clipped highlights.
    public var clipped: Double
    /// Variance of the grey copy's Laplacian (on a copy at most `CaptureThresholds.measuredEdge`
    /// pixels on its longer side): low when the photo is blurred.
    public var sharpness: Double
    /// Width and height of the stored photo, in pixels.
    public var width: Int
    public var height: Int
    /// Frontal faces scoring at least `CaptureThresholds.minimumFaceScore`, highest score first,
    /// in pixels of the stored photo.
    public var faces: [FaceBox]
    /// A 64-bit difference hash (9 × 8 grey, each pixel compared with its right neighbour): near
    /// copies differ in few bits.
    public var hash: UInt64

    public init(brightness: Double, clipped: Double, sharpness: Double, width: Int, height: Int, faces: [FaceBox], hash: UInt64) {
        self.brightness = brightness
        self.clipped = clipped
        self.sharpness = sharpness
        self.width = width
        self.height = height
        self.faces = faces
        self.hash = hash
    }
}
