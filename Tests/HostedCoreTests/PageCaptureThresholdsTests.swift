import Foundation
import HostedCore
import Testing

/// The journey page's live guidance and location bounds mirror the core's (the page cannot import
/// Swift): held equal here so a threshold changed in one place cannot drift from the other.
@Suite struct PageCaptureThresholdsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func constant(_ name: String, in module: String) throws -> Double {
        let text = try String(contentsOf: root.appendingPathComponent("public/journey/\(module)"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("const \(name) = ") })
        let value = line.dropFirst("const \(name) = ".count).prefix { $0 != ";" && $0 != " " }
        return try #require(Double(value.replacingOccurrences(of: "_", with: "")))
    }

    @Test func liveGuidanceUsesTheServersFloors() throws {
        #expect(try Self.constant("MINIMUM_BRIGHTNESS", in: "liveguide.js") == CaptureThresholds.minimumBrightness)
        #expect(try Self.constant("MAXIMUM_CLIPPED", in: "liveguide.js") == CaptureThresholds.maximumClipped)
    }

    @Test func locationAccuracyBoundIsTheServers() throws {
        #expect(try Self.constant("MAXIMUM_ACCURACY_M", in: "geolocation.js") == CaptureLocation.maximumAccuracyMetres)
    }
}
