import FuzzSupport
import HostedCore

// ImageInspector.inspect: upload bytes (PNG/JPEG sniffing and header dimensions).

func fuzzImage(_ bytes: [UInt8]) {
    guard let image = ImageInspector.inspect(bytes) else { return }
    fuzzCheck(image.contentType == "image/png" || image.contentType == "image/jpeg", "content type \(image.contentType)")
    fuzzCheck(image.width > 0 && image.height > 0, "dimensions \(image.width)x\(image.height)")
    fuzzCheck(image.width.multipliedReportingOverflow(by: image.height).overflow == false
              && image.width * image.height <= ImageInspector.maximumPixels, "pixels \(image.width)x\(image.height)")
    fuzzCheck(bytes.count <= ImageInspector.maximumBytes, "size \(bytes.count)")
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
