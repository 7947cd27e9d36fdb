import CVips
import Foundation
import HostedCore

/// `ImageNormalizer` over libvips: the file is identified by its bytes (JPEG or PNG only), what
/// decoding it costs (decoded and held bytes, `ImageInspector`) checked from the header before
/// anything is decoded, then it is decoded (damaged input is an error), turned upright by its
/// EXIF orientation, shrunk to fit `maximumEdge`, flattened onto white, converted to 8-bit sRGB
/// and saved as a JPEG with no metadata.
public struct VipsImageNormalizer: ImageNormalizer {
    /// Longest side kept: enough to review a face or a shop front; bounds the memory a decode takes.
    public let maximumEdge: Int
    public let quality: Int

    /// Fails only when libvips itself cannot start (then the service must not either).
    public init(maximumEdge: Int = 2560, quality: Int = 85) throws(ImageRejected) {
        guard Self.started.ensure() else { throw ImageRejected("libvips could not start") }
        self.maximumEdge = maximumEdge
        self.quality = quality
    }

    /// The loaders that may read an upload (libvips' class names).
    static let allowedLoaders: Set<String> = ["VipsForeignLoadJpegBuffer", "VipsForeignLoadPngBuffer"]

    public func normalize(_ bytes: [UInt8]) throws(ImageRejected) -> NormalizedImage {
        // Header first, in Swift with checked arithmetic: type by magic bytes, size and pixel count.
        guard let declared = ImageInspector.inspect(bytes) else {
            throw ImageRejected("not a JPEG or PNG within \(ImageInspector.maximumBytes) bytes, \(ImageInspector.maximumPixels) pixels, "
                                + "\(ImageInspector.maximumDecodedBytes) decoded bytes and \(ImageInspector.maximumHeldBytes) held at once")
        }
        let result: Result<NormalizedImage, ImageRejected> = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return .failure(ImageRejected("empty")) }
            guard let loader = hosted_vips_loader(base, buffer.count).map({ String(cString: $0) }),
                  Self.allowedLoaders.contains(loader)
            else { return .failure(Self.failure("no allowed loader")) }
            var width: Int32 = 0
            var height: Int32 = 0
            guard hosted_vips_dimensions(base, buffer.count, &width, &height) == 0 else { return .failure(Self.failure("header")) }
            // libvips must read the same dimensions the inspector checked.
            guard Int(width) == declared.width, Int(height) == declared.height else {
                return .failure(ImageRejected("header dimensions disagree"))
            }
            // A JPEG scan shorter than its frame is only a warning to libjpeg, which fills the rest
            // with grey; any damage libjpeg would paper over is refused. libpng warns about harmless
            // things (a known-bad sRGB profile), so a PNG is refused only when truncated.
            let options = declared.contentType == "image/jpeg" ? "fail_on=warning" : "fail_on=truncated"
            guard let decoded = hosted_vips_decode_oriented(base, buffer.count, Int32(maximumEdge), options) else {
                return .failure(Self.failure("decode"))
            }
            defer { hosted_vips_unref(decoded) }
            var flat: UnsafeMutablePointer<VipsImage>?
            guard hosted_vips_flatten_white(decoded, &flat) == 0, let flat else { return .failure(Self.failure("flatten")) }
            defer { hosted_vips_unref(flat) }
            var srgb: UnsafeMutablePointer<VipsImage>?
            guard hosted_vips_srgb8(flat, &srgb) == 0, let srgb else { return .failure(Self.failure("colour")) }
            defer { hosted_vips_unref(srgb) }
            var output: UnsafeMutableRawPointer?
            var length = 0
            // Pixels are decoded here, as the JPEG is written.
            guard hosted_vips_jpeg(srgb, Int32(quality), &output, &length) == 0, let output else {
                return .failure(Self.failure("encode"))
            }
            defer { hosted_vips_free(output) }
            let jpeg = Array(UnsafeRawBufferPointer(start: output, count: length))
            return .success(NormalizedImage(contentType: "image/jpeg", bytes: jpeg,
                                            width: Int(hosted_vips_width(srgb)), height: Int(hosted_vips_height(srgb))))
        }
        return try result.get()
    }

    /// libvips' error text for this thread (then cleared), or `stage` when it has none.
    static func failure(_ stage: String) -> ImageRejected {
        var text = [CChar](repeating: 0, count: 512)
        hosted_vips_take_error(&text, text.count)
        let detail = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ImageRejected(detail.isEmpty ? stage : "\(stage): \(detail.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    /// libvips is started once per process, on first use (by any of the adapters over it).
    static let started = Start()

    /// `@unchecked Sendable`: `done` is only touched while holding `lock`.
    final class Start: @unchecked Sendable {
        private let lock = NSLock()
        private var outcome: Bool?

        func ensure() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if let outcome { return outcome }
            let started = hosted_vips_start() == 0
            if started { hosted_vips_log_to(quietWarnings) }
            outcome = started
            return started
        }
    }
}

/// libvips warns through GLib on stderr (e.g. about a damaged file a client sent); a refused
/// upload is already answered 422, so these are dropped rather than interleaved with the JSON log.
private let quietWarnings: GLogFunc = { _, _, _, _ in }
