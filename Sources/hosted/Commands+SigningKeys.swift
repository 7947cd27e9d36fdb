import Foundation
import HostedApp

/// `hosted signing-keys rotate`: a new ES256 key signs results and evidence from now on.
extension Commands {
    static let signingKeysHelp = """
        Usage: hosted signing-keys rotate [--database-url URL]

        Adds a new ES256 signing key (docs/results.md). It signs every result and evidence
        bundle from now on, on every node within 10 seconds; the previous key stays in
        GET /.well-known/jwks.json for 7 days, so what it signed still verifies, then drops out.
        The new private key is sealed with the secret key, so the command needs the same
        HOSTED_SECRET_KEY (or key file) as the servers. Prints on stdout:
          {"kid": "sig_…", "previous_kid": "sig_…" or null, "previous_published_until": "…" or null}
        """

    static func signingKeys(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment)
        if parsed.wantsHelp { print(signingKeysHelp); return 0 }
        guard parsed.positionals == ["rotate"] else { return usageError(signingKeysHelp) }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        printBytes(try SigningKeyAdministration(configuration: parsed.configuration, database: database).rotate())
        return 0
    }
}
