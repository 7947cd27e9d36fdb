import Foundation
import HostedApp
import HostedCore
import HostedOutbound
import HostedStorage

extension Commands {
    static let artifactsHelp = """
        Usage: hosted artifacts migrate --to s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true]
                                        [--batch-size N] [--pause-ms MS] [--database-url URL]

        Moves every artifact whose bytes are in the database to the object store (docs/artifacts.md):
        each is sealed with its verification's data key and PUT under
        {prefix}/{account_id}/{verification_id}/{artifact_id}, then its row is switched to the
        object store and its bytes emptied, in one transaction. Runs in batches of N (default
        100), pausing MS milliseconds between them (default 0) to go easy on a serving database.
        Safe to run while serving: artifacts not yet moved stay readable from the database, moved
        ones from the store (nodes read each row where it says). Stopped or killed, run it again:
        it goes on with what is left (PUTs are idempotent). Needs HOSTED_S3_ACCESS_KEY_ID and
        HOSTED_S3_SECRET_ACCESS_KEY (or their _FILE variants) and the service's secret key.
        Set HOSTED_ARTIFACT_STORE to the same URL on the nodes so new photos go there too.

        Prints one JSON line per batch, {"batch": N, "moved": M, "skipped": S, "remaining": R},
        then {"ok": true, "moved": M, "skipped": S, "remaining": 0}. Exit 69 when the store is
        unusable (the reason on stderr), 65 when a PUT fails part-way (run it again).
        """

    static func artifacts(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--to", "--batch-size", "--pause-ms"])
        if parsed.wantsHelp { print(artifactsHelp); return 0 }
        guard parsed.positionals == ["migrate"], let to = parsed.options["--to"] else { return usageError(artifactsHelp) }
        guard let location = S3Location(to) else {
            printError("--to must be s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true]")
            return 64
        }
        let batchSize = Int(parsed.options["--batch-size"] ?? "100") ?? 0
        let pause = Int(parsed.options["--pause-ms"] ?? "0") ?? -1
        guard (1...10_000).contains(batchSize), (0...60_000).contains(pause) else {
            printError("--batch-size must be 1…10000 and --pause-ms 0…60000")
            return 64
        }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let target = try ArtifactStoreSetup.objectBackend(to: location, configuration: parsed.configuration, database: database,
                                                          report: { printError($0) })
        if let problem = target.objects.problem() {
            printError("artifacts migrate: \(problem)")
            return 69
        }
        let migration = ArtifactMigration(database: database, target: target)
        var after: String?
        var (moved, skipped, number) = (0, 0, 0)
        while true {
            let batch = try migration.migrateBatch(after: after, limit: batchSize, at: Date())
            guard let last = batch.last else { break }
            after = last
            number += 1
            moved += batch.moved
            skipped += batch.skipped
            try printJSON(["batch": number, "moved": batch.moved, "skipped": batch.skipped, "remaining": try migration.remaining()])
            if pause > 0 { usleep(UInt32(pause) * 1000) }
        }
        let remaining = try migration.remaining()
        try printJSON(["ok": remaining == 0, "moved": moved, "skipped": skipped, "remaining": remaining])
        return remaining == 0 ? 0 : 1
    }

    /// One JSON object on its own line, flushed at once (a reader follows the progress).
    static func printJSON(_ object: [String: Any]) throws {
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(json + Data("\n".utf8))
    }
}
