/// The rules of an account's logo: what may be uploaded and what is kept (a PNG re-encoded by
/// the image adapter, at most `maximumHeight` high), and the content-hashed file name it is
/// served under.
public enum BrandLogo {
    /// Largest upload: 1 MB, refused before the body is read.
    public static let maximumBytes = 1_000_000
    /// The stored PNG is at most this high (a header shows it at 40 px; 256 covers any screen density)…
    public static let maximumHeight = 256
    /// …and at most this wide (a wordmark four times as wide as high still keeps its full height).
    public static let maximumWidth = 1024
    /// Hex digits of the SHA-256 in the file name: 64 bits, enough that a changed logo gets a new URL.
    public static let hashPrefixLength = 16

    /// Whether the bytes start like a PNG or a JPEG (magic bytes; a declared type counts for nothing).
    public static func isPNGOrJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
    }

    /// `logo-{first 16 hex digits of the SHA-256}.png`.
    public static func fileName(sha256: String) -> String {
        "logo-\(sha256.prefix(hashPrefixLength)).png"
    }
}
