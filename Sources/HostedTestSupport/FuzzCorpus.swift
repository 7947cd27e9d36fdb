import Foundation

/// The fuzz targets' seed corpora (fuzz/corpus/<target>/, where found crashes are added too),
/// for tests that replay them through the parsers.
public enum FuzzCorpus {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus")

    /// The seed files' names of `target`, sorted (empty when it has none).
    public static func seeds(_ target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(target).path)) ?? []).sorted()
    }

    public static func seed(_ target: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(target).appendingPathComponent(name)))
    }
}
