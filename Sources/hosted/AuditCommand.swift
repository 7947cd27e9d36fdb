import Foundation
import HostedCore
import HostedStorage

extension Commands {
    static let auditHelp = """
        Usage: hosted audit verify [--account ACCOUNT_ID] [--database-url URL]

        Recomputes every verification's event chain (of one account, or all): each event's hash
        must be SHA-256 of the previous event's hash, a newline and the event's canonical JSON,
        and sequences must run 1, 2, 3 … without a gap. Prints, as JSON,
          {"ok": true, "chains": N, "events": M}                                  (exit 0), or
          {"ok": false, "chains": N, "events": M, "broken": {"event_id", "verification_id",
           "sequence", "reason"}}                                                 (exit 1)
        naming the first event that does not verify.
        """

    static func audit(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--account"])
        if parsed.wantsHelp { print(auditHelp); return 0 }
        guard parsed.positionals == ["verify"] else { return usageError(auditHelp) }
        var accountID: ObjectID?
        if let text = parsed.options["--account"] {
            guard let id = ObjectID(.account, parsing: text) else { throw DomainError.notFound(what: "account") }
            accountID = id
        }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let report = try EventStore(database: database).audit(accountID: accountID)
        var output: [String: Any] = ["ok": report.broken == nil, "chains": report.chains, "events": report.events]
        if let broken = report.broken {
            output["broken"] = ["event_id": broken.event, "verification_id": broken.verificationID,
                                "sequence": broken.sequence, "reason": broken.reason]
        }
        let json = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: json, as: UTF8.self))
        return report.broken == nil ? 0 : 1
    }
}
