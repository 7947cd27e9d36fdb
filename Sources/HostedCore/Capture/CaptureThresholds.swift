/// Every threshold of the capture checks, in one place. How each was chosen is in
/// docs/capture-checks.md (measured on generated variants of a public-domain portrait).
public enum CaptureThresholds {
    /// Mean luma below this (0 … 1) is `too_dark`: a well-lit face measures 0.45–0.55, the same
    /// photo at a fifth of its light 0.11.
    public static let minimumBrightness = 0.25
    /// More than this fraction of pixels at or above 250 of 255 is `too_bright`.
    public static let maximumClipped = 0.4
    /// A Laplacian variance below this (on the ≤ 640 px grey copy) is `blurry`: a sharp portrait
    /// measures 18–800, the same portrait under a 12-pixel Gaussian blur 3.
    public static let minimumSharpness = 8.0
    /// A face narrower than this fraction of the photo's shorter side is `face_too_small`.
    public static let minimumFaceFraction = 0.2
    /// Difference hashes this many bits apart or closer are `duplicate_photo` (of 64).
    public static let maximumDuplicateDistance = 6
}
