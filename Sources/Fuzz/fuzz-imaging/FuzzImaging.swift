import FuzzSupport
import HostedCore
import HostedImaging

// VipsImageNormalizer.normalize: an upload decoded by libvips (JPEG/PNG loaders only) and
// re-encoded. libvips itself is not instrumented, so the fuzzer steers by the Swift side and by
// the seeds; what it catches is a crash or hang in the decoders, the wrapper or its checks, and
// any result that is not a small, upright JPEG.

let normalizer: VipsImageNormalizer = {
    do { return try VipsImageNormalizer() } catch { fatalError("libvips could not start: \(error)") }
}()

func fuzzImaging(_ bytes: [UInt8]) {
    guard let image = try? normalizer.normalize(bytes) else { return }
    // Nothing is decoded that the header inspector would not have let through.
    let declared = ImageInspector.inspect(bytes)
    fuzzCheck(declared != nil, "decoded an upload the inspector refuses")
    fuzzCheck(image.contentType == "image/jpeg", "content type \(image.contentType)")
    fuzzCheck(image.width > 0 && image.height > 0 && max(image.width, image.height) <= normalizer.maximumEdge,
              "dimensions \(image.width)x\(image.height)")
    let written = ImageInspector.inspect(image.bytes)
    fuzzCheck(written?.contentType == "image/jpeg" && written?.width == image.width && written?.height == image.height,
              "the JPEG written does not say \(image.width)x\(image.height): \(String(describing: written))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzImaging(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-imaging", fuzzImaging) }
}
#endif
