import FuzzSupport
import HostedCore

// ImageInspector.inspect: upload bytes (PNG/JPEG sniffing, header dimensions, bit depth, bands,
// interlacing and progressive coding, and what a decode of them would cost).

func fuzzImage(_ bytes: [UInt8]) {
    guard let image = ImageInspector.inspect(bytes) else { return }
    fuzzCheck(image.contentType == "image/png" || image.contentType == "image/jpeg", "content type \(image.contentType)")
    fuzzCheck(image.width > 0 && image.height > 0, "dimensions \(image.width)x\(image.height)")
    fuzzCheck(image.width.multipliedReportingOverflow(by: image.height).overflow == false
              && image.width * image.height <= ImageInspector.maximumPixels, "pixels \(image.width)x\(image.height)")
    fuzzCheck(bytes.count <= ImageInspector.maximumBytes, "size \(bytes.count)")
    fuzzCheck((1...4).contains(image.bands) && (1...2).contains(image.bytesPerSample), "bands \(image.bands) × \(image.bytesPerSample)")
    fuzzCheck(image.decodedBytes == image.width * image.height * image.bands * image.bytesPerSample
              && image.decodedBytes <= ImageInspector.maximumDecodedBytes, "decoded bytes \(image.decodedBytes)")
    fuzzCheck(image.heldBytes <= ImageInspector.maximumHeldBytes && (image.heldBytes > 0) == image.decodedWhole,
              "held bytes \(image.heldBytes), whole \(image.decodedWhole)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzImage(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-image", fuzzImage) }
}
#endif
