import CVips
import HostedCore

/// An account's logo over libvips, checked like a photo (`VipsImageNormalizer`: JPEG or PNG by
/// its bytes, decoding costs from the header, damaged input refused) but kept as a PNG, alpha
/// and all, shrunk to fit `BrandLogo.maximumWidth` × `BrandLogo.maximumHeight`, with no metadata.
public struct VipsLogoNormalizer: ImageNormalizer {
    /// Fails only when libvips itself cannot start.
    public init() throws(ImageRejected) {
        guard VipsImageNormalizer.started.ensure() else { throw ImageRejected("libvips could not start") }
    }

    public func normalize(_ bytes: [UInt8]) throws(ImageRejected) -> NormalizedImage {
        guard bytes.count <= BrandLogo.maximumBytes, let declared = ImageInspector.inspect(bytes) else {
            throw ImageRejected("not a JPEG or PNG within \(BrandLogo.maximumBytes) bytes and the decoding limits")
        }
        let result: Result<NormalizedImage, ImageRejected> = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return .failure(ImageRejected("empty")) }
            guard let loader = hosted_vips_loader(base, buffer.count).map({ String(cString: $0) }),
                  VipsImageNormalizer.allowedLoaders.contains(loader)
            else { return .failure(VipsImageNormalizer.failure("no allowed loader")) }
            var width: Int32 = 0
            var height: Int32 = 0
            guard hosted_vips_dimensions(base, buffer.count, &width, &height) == 0 else { return .failure(VipsImageNormalizer.failure("header")) }
            guard Int(width) == declared.width, Int(height) == declared.height else {
                return .failure(ImageRejected("header dimensions disagree"))
            }
            let options = declared.contentType == "image/jpeg" ? "fail_on=warning" : "fail_on=truncated"
            guard let decoded = hosted_vips_decode_fit(base, buffer.count, Int32(BrandLogo.maximumWidth), Int32(BrandLogo.maximumHeight),
                                                       options)
            else { return .failure(VipsImageNormalizer.failure("decode")) }
            defer { hosted_vips_unref(decoded) }
            var srgb: UnsafeMutablePointer<VipsImage>?
            guard hosted_vips_srgb8(decoded, &srgb) == 0, let srgb else { return .failure(VipsImageNormalizer.failure("colour")) }
            defer { hosted_vips_unref(srgb) }
            var output: UnsafeMutableRawPointer?
            var length = 0
            guard hosted_vips_png(srgb, &output, &length) == 0, let output else { return .failure(VipsImageNormalizer.failure("encode")) }
            defer { hosted_vips_free(output) }
            return .success(NormalizedImage(contentType: "image/png", bytes: Array(UnsafeRawBufferPointer(start: output, count: length)),
                                            width: Int(hosted_vips_width(srgb)), height: Int(hosted_vips_height(srgb))))
        }
        return try result.get()
    }
}
