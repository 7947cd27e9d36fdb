/// Why an upload is not an image the service will keep (for logs and tests; the client is only
/// told that the file is not a usable photo).
public struct ImageRejected: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
