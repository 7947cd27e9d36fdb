import FuzzSupport
import HostedCore
import HostedXML

// DigiLockerDocument.parse: XML fetched from DigiLocker (e-Aadhaar and issued certificates).
// The same bytes are read as each document kind, and the masking rules are checked on the result.

func fuzzXML(_ bytes: [UInt8]) {
    for kind in ["aadhaar", "pan", "driving_license"] {
        guard let document = DigiLockerDocument.parse(xml: bytes, as: kind) else { continue }
        fuzzCheck(document.document == kind, "kind \(document.document)")
        fuzzCheck(!document.name.isEmpty, "empty name")
        if let date = document.dateOfBirth {
            // YYYY-MM-DD in ASCII digits (`١٩٩٠` and `½½½½` once passed as a year).
            let bytes = Array(date.utf8)
            fuzzCheck(bytes.count == 10 && bytes[4] == 0x2D && bytes[7] == 0x2D
                      && bytes.enumerated().allSatisfy({ [4, 7].contains($0.offset) || (0x30...0x39).contains($0.element) }), "date \(date)")
        }
        if let gender = document.gender { fuzzCheck(["M", "F", "T"].contains(gender), "gender \(gender)") }
        if let masked = document.numberMasked {
            // Never more than the last four characters in clear.
            fuzzCheck(masked.filter({ $0 != "X" && $0 != " " }).count <= 4, "masked number shows too much: \(masked)")
        }
    }
    // The mask on its own, on the raw text.
    let text = FuzzInput.text(bytes)
    if let masked = DigiLockerDocument.mask(text, document: "aadhaar") {
        fuzzCheck(masked.filter({ $0 != "X" && $0 != " " }).count <= 4, "mask shows too much: \(masked)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzXML(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-xml", fuzzXML) }
}
#endif
