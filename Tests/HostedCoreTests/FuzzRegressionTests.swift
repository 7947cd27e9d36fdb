import Foundation
import HostedCore
import Testing

/// Inputs the fuzz targets (Sources/Fuzz, docs/fuzzing.md) found, fed to the parsers directly so
/// an ordinary `swift test` keeps them fixed; and every seed of the HostedCore fuzz corpora
/// (fuzz/corpus/<target>/, where found crashes are added too) replayed through its parser.
@Suite struct FuzzRegressionTests {
    // MARK: Found crashes

    /// fuzz-xml: invalid UTF-8 in an element, attribute, comment or processing-instruction name
    /// trapped the process inside FoundationXML (libxml2's recover mode passes the bytes through;
    /// FoundationXML force-unwraps them as UTF-8). Such documents are now refused.
    @Test(arguments: [
        // As the fuzzer found it (254 bytes).
        "PENlcnRpZmljYXRlIG51bWJlcj0i2aHZotmj2aTZpSIgPjxQb2nd3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3dIG5hbWU9ItgjMP//OyYjeDFGNjAwOyZhbXA7Jmx0OwEAAAAAAAAFodlnZW5kZXI9Ii0xNSIgZ2VuZGVyPSJ0Ii8+PFBlcnNvbiBuYW1lPSJ4IiBkb2I9IjMxLzAyLzE5OTAiLz48VWlkRGF0YSB1aWQ9IjEyIi8+PC9DZXJ0aWZpY2F0ZT4=",
        "PP8BAD4=",  // <FF 01 00>: minimised by libFuzzer
        "PMMoLz4=",  // <C3 28/>
        "PGEgYv89IjEiLz4=",  // <a b FF="1"/>
        "PGE+PCEtLf8tLT48L2E+",  // <a><!--FF--></a>
        "PGE+PD//IHg/PjwvYT4=",  // <a><?FF x?></a>
    ])
    func xmlWithInvalidUTF8NamesIsRefusedWithoutTrapping(_ base64: String) throws {
        let bytes = try #require(Data(base64Encoded: base64).map { [UInt8]($0) })
        for kind in ["aadhaar", "pan", "driving_license"] {
            #expect(DigiLockerDocument.parse(xml: bytes, as: kind) == nil)
        }
    }

    /// Valid UTF-8 documents still parse (the guard above refuses only invalid bytes).
    @Test func utf8DocumentsWithNonASCIINamesStillParse() throws {
        let xml = #"<Certificate><UidData uid="999941057058"><Poi name="आशा वर्मा" dob="15-08-1990" gender="F"/></UidData></Certificate>"#
        let document = try #require(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "aadhaar"))
        #expect(document.name == "आशा वर्मा")
        #expect(document.numberMasked == "XXXX XXXX 7058")
    }

    /// fuzz-xml (a property, not a crash): a DigiLocker date of birth is meant to come out as
    /// `YYYY-MM-DD`, but any four Unicode "number" characters pass as the year (`١٩٩٠`, `½½½½`).
    @Test(arguments: ["١٩٩٠-08-15", "15-08-١٩٩٠", "½½½½-08-15"])
    func dateOfBirthYearIsASCIIDigits(_ dob: String) throws {
        let xml = "<Certificate><Poi name=\"Asha\" dob=\"\(dob)\"/></Certificate>"
        let document = try #require(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "aadhaar"))
        #expect(document.dateOfBirth == nil, "date of birth \(document.dateOfBirth ?? "nil")")
    }

    /// The overflow fuzz-image is seeded with (fixed in ImageInspector): a PNG declaring
    /// 0xFFFFFFFF × 0xFFFFFFFF pixels.
    @Test func pngWithFFFFFFFFDimensionsIsRefused() throws {
        let bytes = try Self.seed("fuzz-image", "png-ffffffff-x-ffffffff.png")
        #expect(ImageInspector.inspect(bytes) == nil)
    }

    // MARK: Corpus replay

    @Test(arguments: Self.seeds("fuzz-image"))
    func imageSeed(_ name: String) throws {
        let image = ImageInspector.inspect(try Self.seed("fuzz-image", name))
        #expect(image.map { $0.width * $0.height <= ImageInspector.maximumPixels } ?? true)
    }

    @Test(arguments: Self.seeds("fuzz-xml"))
    func xmlSeed(_ name: String) throws {
        let bytes = try Self.seed("fuzz-xml", name)
        for kind in ["aadhaar", "pan", "driving_license"] {
            if let document = DigiLockerDocument.parse(xml: bytes, as: kind) { #expect(!document.name.isEmpty) }
        }
    }

    @Test(arguments: Self.seeds("fuzz-return-url"))
    func returnURLSeed(_ name: String) throws {
        let lines = String(decoding: try Self.seed("fuzz-return-url", name), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for policy in [ReturnURLPolicy(devMode: false), ReturnURLPolicy(devMode: true)] {
            for line in lines { _ = try? policy.validate(line) }
            _ = try? policy.requireRegistered(lines[0], registered: Array(lines.dropFirst()))
        }
    }

    @Test(arguments: Self.seeds("fuzz-identifiers"))
    func identifierSeed(_ name: String) throws {
        let lines = String(decoding: try Self.seed("fuzz-identifiers", name), as: UTF8.self)
            .split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let text = lines[0]
        if let mobile = MobileNumber.normalized(text) { #expect(VerificationRules.isValidMobile(mobile)) }
        for kind in ObjectID.Kind.allCases { _ = ObjectID(kind, parsing: text) }
        _ = try? ProfileForm.validate(fullName: text, dateOfBirth: lines.count > 1 ? lines[1] : nil,
                                      today: lines.count > 2 ? lines[2] : "2026-11-29")
        _ = try? Account.validateName(text)
        _ = APIKeySecret(presented: text)
        _ = BearerSecret(presented: text)
        _ = OneTimeCode(presented: text)
        _ = Base64URL.decode(text)
    }

    @Test func corporaArePresent() {
        for target in ["fuzz-image", "fuzz-xml", "fuzz-return-url", "fuzz-identifiers"] {
            #expect(!Self.seeds(target).isEmpty, "no seeds in fuzz/corpus/\(target)")
        }
    }

    // MARK: Helpers

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus")

    static func seeds(_ target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(target).path)) ?? []).sorted()
    }

    static func seed(_ target: String, _ name: String) throws -> [UInt8] {
        let data = try Data(contentsOf: corpus.appendingPathComponent(target).appendingPathComponent(name))
        return [UInt8](data)
    }
}
