/// Decodes an uploaded photo and re-encodes it (see `NormalizedImage`). Implemented by an adapter
/// over an image library; the domain only knows this shape.
public protocol ImageNormalizer: Sendable {
    func normalize(_ bytes: [UInt8]) throws(ImageRejected) -> NormalizedImage
}
