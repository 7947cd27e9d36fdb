import Foundation
import HostedApp
import HostedCrypto

/// `hosted evidence export VER_ID --out FILE`: a verification's evidence bundle to a file.
extension Commands {
    static let evidenceHelp = """
        Usage: hosted evidence export VERIFICATION_ID --out FILE [--database-url URL]

        Writes the verification's evidence bundle (docs/evidence.md) to FILE, created or
        replaced with mode 0600: the same ZIP as GET /v1/verifications/{id}/evidence, with
        manifest.json, the artifacts still stored and manifest.json.jws. The export is recorded
        in the verification's event chain (verification.evidence_exported, actor system).
        Prints {"verification_id", "bytes", "sha256", "path"} on stdout; exit 65 for an unknown id.
        """

    static func evidence(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--out"])
        if parsed.wantsHelp { print(evidenceHelp); return 0 }
        guard parsed.positionals.count == 2, parsed.positionals[0] == "export" else { return usageError(evidenceHelp) }
        guard let path = parsed.options["--out"], !path.isEmpty else {
            throw CommandLineArguments.UsageError(description: "--out FILE is required")
        }
        // Opened first: a file that cannot be written is refused before anything is recorded.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return 73
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard fchmod(descriptor, 0o600) == 0 else {
            printError("cannot set the mode of \(path) to 0600: \(String(cString: strerror(errno)))")
            return 73
        }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let bundle: (bytes: [UInt8], sha256: String)
        do {
            bundle = try EvidenceExport(configuration: parsed.configuration, database: database).export(verificationID: parsed.positionals[1])
        } catch {
            try? file.close()
            unlink(path)
            throw error
        }
        try file.write(contentsOf: Data(bundle.bytes))
        try file.close()
        let output: [String: Any] = ["verification_id": parsed.positionals[1], "bytes": bundle.bytes.count, "sha256": bundle.sha256,
                                     "path": URL(fileURLWithPath: path).standardizedFileURL.path]
        let json = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: json, as: UTF8.self))
        return 0
    }
}
