import Foundation

/// The real S3-compatible server the object-storage tests use: OpenStack Swift started by
/// `scripts/with-swift.sh`, which exports `HOSTED_TEST_S3_URL` and its credentials. Without it
/// those tests are skipped locally, and fail when `HOSTED_REQUIRE_S3=1` (as in CI).
public enum TestObjectStore {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// `s3://hosted-test?endpoint=…&region=…&path_style=true`, if a server is running.
    public static var url: String? { environment["HOSTED_TEST_S3_URL"] }
    public static var accessKeyID: String { environment["HOSTED_TEST_S3_ACCESS_KEY_ID"] ?? "" }
    public static var secretAccessKey: String { environment["HOSTED_TEST_S3_SECRET_ACCESS_KEY"] ?? "" }
    /// `http://127.0.0.1:PORT`.
    public static var endpoint: String { environment["HOSTED_TEST_S3_ENDPOINT"] ?? "" }
    /// A script: `stop` or `start` the proxy (the S3 endpoint).
    public static var control: String? { environment["HOSTED_TEST_S3_CTL"] }
    /// `HOSTED_REQUIRE_S3=1`: a missing server is a failure, not a skip.
    public static var required: Bool { environment["HOSTED_REQUIRE_S3"] == "1" }

    public static let missingServerMessage = "HOSTED_REQUIRE_S3=1 but HOSTED_TEST_S3_URL is not set (run under scripts/with-swift.sh)"

    /// True when the server is there; calls `record` when it is required but absent (the test
    /// target turns that into a recorded issue), and prints why the test is skipped otherwise.
    public static func availability(recordingMissingServer record: (String) -> Void) -> Bool {
        if url != nil { return true }
        if required { record(missingServerMessage) } else {
            FileHandle.standardError.write(Data("skipped: no S3 server (HOSTED_TEST_S3_URL unset; run under scripts/with-swift.sh)\n".utf8))
        }
        return false
    }

    /// The test URL with `/prefix` added after the bucket, so each test has keys of its own.
    public static func url(prefix: String) -> String? {
        guard let url, let query = url.firstIndex(of: "?") else { return nil }
        return String(url[..<query]) + "/" + prefix + String(url[query...])
    }

    /// Runs Debian's python3 (where python3-botocore lives) with `script`, `input` on stdin;
    /// returns its stdout, or nil when it failed.
    public static func python(_ script: String, input: String) throws -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-py-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptPath = directory.appendingPathComponent("script.py").path
        let inputPath = directory.appendingPathComponent("input").path
        let out = directory.appendingPathComponent("out").path
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        let status = try Subprocess("/bin/sh", ["-c", "/usr/bin/python3 '\(scriptPath)' < '\(inputPath)'"], stdout: out,
                                    stderr: directory.appendingPathComponent("err").path).wait()
        if status != 0 {
            let error = (try? String(contentsOfFile: directory.appendingPathComponent("err").path, encoding: .utf8)) ?? ""
            FileHandle.standardError.write(Data("python failed (\(status)): \(error)\n".utf8))
            return nil
        }
        return try String(contentsOfFile: out, encoding: .utf8)
    }
}
