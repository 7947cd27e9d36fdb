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
