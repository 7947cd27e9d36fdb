/// An uploaded photo as the service keeps it: decoded and freshly encoded, so nothing of the
/// uploaded file survives but its pixels (no EXIF position or serial, no trailing bytes, no
/// polyglot), oriented as it was taken.
public struct NormalizedImage: Sendable, Equatable {
    public let contentType: String
    public let bytes: [UInt8]
    public let width: Int
    public let height: Int

    public init(contentType: String, bytes: [UInt8], width: Int, height: Int) {
        self.contentType = contentType
        self.bytes = bytes
        self.width = width
        self.height = height
    }
}

/// Why an upload is not an image the service will keep (for logs and tests; the client is only
/// told that the file is not a usable photo).
public struct ImageRejected: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Decodes an uploaded photo and re-encodes it (see `NormalizedImage`). Implemented by an adapter
/// over an image library; the domain only knows this shape.
public protocol ImageNormalizer: Sendable {
    func normalize(_ bytes: [UInt8]) throws(ImageRejected) -> NormalizedImage
}
