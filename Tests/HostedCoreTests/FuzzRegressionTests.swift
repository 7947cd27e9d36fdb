import Foundation
import HostedCore
import HostedTestSupport
import Testing

/// Inputs the fuzz targets (Sources/Fuzz, docs/fuzzing.md) found, fed to the parsers directly so
/// an ordinary `swift test` keeps them fixed; and every seed of the HostedCore fuzz corpora
/// (fuzz/corpus/<target>/, where found crashes are added too) replayed through its parser.
/// fuzz-xml's are in HostedXMLTests (`XMLFuzzRegressionTests`).
@Suite struct FuzzRegressionTests {
    // MARK: Found crashes

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

    static func seeds(_ target: String) -> [String] { FuzzCorpus.seeds(target) }

    static func seed(_ target: String, _ name: String) throws -> [UInt8] { try FuzzCorpus.seed(target, name) }
}
