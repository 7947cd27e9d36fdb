import Foundation

/// The `hosted` executable built beside the test bundle (`swift build` puts both in one folder,
/// for the normal and the sanitizer build alike).
public enum HostedBinary {
    public static var path: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The test runner may be the .xctest bundle's inner executable.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("hosted").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("hosted").path
    }

    /// Runs `hosted ARGS…` to completion and returns its exit status, stdout and stderr.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out").path
        let err = directory.appendingPathComponent("err").path
        let status = try Subprocess(path, arguments, environment: environment, stdout: out, stderr: err).wait()
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
