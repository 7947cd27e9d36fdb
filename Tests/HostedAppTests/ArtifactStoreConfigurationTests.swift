import Foundation
@testable import HostedApp
import HostedOutbound
import Testing

/// `HOSTED_ARTIFACT_STORE`, `HOSTED_S3_*` (and their `_FILE` forms) and `HOSTED_ORPHAN_GRACE_SECONDS`:
/// what is taken, what is refused, and that an S3 store without credentials never starts (no
/// silent fallback to the database).
@Suite struct ArtifactStoreConfigurationTests {
    @Test func environment_setsTheS3StoreAndItsCredentials() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-s3-conf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("secret").path
        try "s3cr3t-from-a-file\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let configuration = try Configuration.fromEnvironment([
            "HOSTED_ARTIFACT_STORE": "s3://photos/live?endpoint=https://s3.example.com&region=eu-west-1",
            "HOSTED_S3_ACCESS_KEY_ID": "acct:user", "HOSTED_S3_SECRET_ACCESS_KEY_FILE": secretFile,
            "HOSTED_ORPHAN_GRACE_SECONDS": "7200"])
        #expect(configuration.artifactStore == .s3(S3Location("s3://photos/live?endpoint=https://s3.example.com&region=eu-west-1")!))
        #expect(configuration.s3AccessKeyID == "acct:user" && configuration.s3SecretAccessKey == "s3cr3t-from-a-file")
        #expect(configuration.orphanGraceSeconds == 7200)
        try configuration.checkForServing()
        #expect(Configuration().artifactStore == .database && Configuration().orphanGraceSeconds == 3600)
    }

    @Test func environment_refusesWhatCannotBeUsed() {
        for (name, value) in [("HOSTED_ARTIFACT_STORE", "s3://photos"), ("HOSTED_ARTIFACT_STORE", "files"),
                              ("HOSTED_S3_ACCESS_KEY_ID", ""), ("HOSTED_S3_SECRET_ACCESS_KEY_FILE", "/nonexistent/secret"),
                              ("HOSTED_ORPHAN_GRACE_SECONDS", "5")] {
            #expect(throws: Configuration.Invalid.self, "\(name)=\(value)") { try Configuration.fromEnvironment([name: value]) }
        }
    }

    @Test func s3StoreWithoutCredentials_isRefusedAtServe_neverTheDatabase() throws {
        var configuration = try Configuration.fromEnvironment([
            "HOSTED_ARTIFACT_STORE": "s3://photos?endpoint=http://127.0.0.1:9&region=us-east-1&path_style=true",
            "HOSTED_S3_ACCESS_KEY_ID": "acct:user"])
        #expect(throws: Configuration.Invalid.self) { try configuration.checkForServing() }
        configuration.secretKey = String(repeating: "k", count: 40)
        #expect(throws: Configuration.Invalid.self) { _ = try buildApplication(configuration: configuration) }
    }
}
