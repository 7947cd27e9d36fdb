import FuzzSupport
import HostedCore
import HostedImaging

// VipsImageNormalizer.normalize: an upload decoded by libvips (JPEG/PNG loaders only) and
// re-encoded. libvips itself is not instrumented, so the fuzzer steers by the Swift side and by
// the seeds; what it catches is a crash or hang in the decoders, the wrapper or its checks, and
// any result that is not a small, upright JPEG; then the capture checks' measures of that JPEG
// (brightness, clipped highlights, sharpness, faces through dlib, the difference hash).

let measurer: VipsPhotoMeasurer = {
    do { return try VipsPhotoMeasurer() } catch { fatalError("libvips could not start: \(error)") }
}()

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
    guard let measures = measurer.measure(image.bytes, detectingFaces: true) else {
        fuzzCheck(false, "a JPEG the service wrote could not be measured")
        return
    }
    fuzzCheck((0...1).contains(measures.brightness) && (0...1).contains(measures.clipped) && measures.sharpness >= 0,
              "measures out of range: \(measures)")
    fuzzCheck(measures.width == image.width && measures.height == image.height, "measured \(measures.width)x\(measures.height)")
    for step in [StepType.selfie, .premisesPhotos] {
        let reasons = CaptureChecks.reasons(for: measures, step: step, earlierHashes: [0, .max])
        let quality = CaptureQuality(measures, step: step, attempt: 1, earlierHashes: [0, .max])
        fuzzCheck(quality.reasons == reasons && quality.faces <= measures.faces.count, "the verdict differs from the checks")
    }
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
