import Dispatch
import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage

/// The `hosted` commands. Each returns its exit status; output goes to stdout, diagnostics to stderr.
enum Commands {
    static let overview = """
        hosted — identity-verification journeys, self-hosted.

        Usage: hosted COMMAND [OPTIONS]

        Commands:
          serve                       run migrations, then serve HTTP until SIGINT/SIGTERM
          migrate                     apply pending database migrations and exit
          accounts create --name N    create an account; prints {"account_id", "api_key"} once
          accounts update --account ID …   the account's branding (display name, colour, support URL, logo)
          keys create --account ID    add an API key to an account (rotation without downtime)
          keys revoke KEY_ID          revoke an API key (refused everywhere within a second)
          return-urls list|add|remove --account ID …   an account's registered return URLs
          workflows list|show --account ID [KEY]       an account's workflows
          operators create|list|disable|reset …        console operators (create prints a setup URL)
          audit verify [--account ID] recompute every event chain; names the first broken event (exit 1)
          evidence export ID --out F  a verification's evidence bundle (ZIP, signed manifest) to a 0600 file
          artifacts migrate --to s3://…   move the database's artifacts to object storage (resumable)
          signing-keys rotate         a new key signs results; the previous one stays in the JWKS for 7 days
          outbox [--to NUMBER]        dev SMS outbox: messages that would have been sent, newest first

        Every command reads the same configuration, from HOSTED_* variables or these flags:
        \(CommandLineArguments.configurationHelp)

        Run `hosted COMMAND --help` for a command's own help.
        """

    static let serveHelp = """
        Usage: hosted serve [--dev] [--listen ADDR] [--database-url URL] [--public-url URL] [OPTIONS]

        Applies pending migrations, then serves the customer API, the journey and the probes
        (/healthz, /readyz). SIGINT or SIGTERM stops accepting connections, lets requests in
        flight finish (up to 10 s) and exits 0. One JSON access-log line per request on stderr.

        Options:
        \(CommandLineArguments.configurationHelp)
        """

    static let migrateHelp = """
        Usage: hosted migrate [--database-url URL]

        Applies the migrations not yet recorded in schema_migrations, in order, each in its own
        transaction, then seals the personal fields of verifications written before migration
        0029 with their data keys (this needs the secret key, as serve does), and prints what it
        did as JSON: {"applied": ["0001_accounts", …], "sealed": 0}.
        Running it again applies and seals nothing ({"applied": [], "sealed": 0}).
        """

    static let accountsHelp = """
        Usage: hosted accounts create --name NAME [--database-url URL]
               hosted accounts update --account ID [--display-name N] [--accent-color C] [--support-url U] [--logo FILE]

        Creates an account and its first API key and prints, on stdout, one JSON object:
          {"account_id": "acct_…", "api_key": "sk_…"}
        This is the only time the key is shown: only its SHA-256 hash is stored.

        update sets the branding the account's users see (docs/branding.md) with the API's rules:
        a display name of 1 to 60 characters, an accent colour #rrggbb, an https support URL, a
        PNG or JPEG logo of at most 1 MB (re-encoded to a PNG at most 256 px high). An empty
        value ("") clears a field, --logo "" removes the logo. Prints the account as
        GET /v1/account shows it.
        """

    static let keysHelp = """
        Usage: hosted keys create --account ACCOUNT_ID [--test] [--database-url URL]
               hosted keys revoke KEY_ID [--database-url URL]

        create prints {"key_id": "key_…", "api_key": "sk_…", "livemode": true} (the only time the
        key is shown); with --test the key is a test key (sk_test_…): it sees and makes only test
        data, which sends no SMS and is deleted after 7 days (docs/test-mode.md);
        several keys can be active at once, so rotate by creating the new key, deploying it,
        then revoking the old one. A revoked key is refused on every node within one second
        (each process remembers a key that authenticated for that long).
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        guard let command = arguments.first else { return usageError(overview) }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "--help", "-h", "help": print(overview); return 0
            case "serve": return try serve(rest, environment)
            case "migrate": return try migrate(rest, environment)
            case "accounts": return try accounts(rest, environment)
            case "keys": return try keys(rest, environment)
            case "outbox": return try outbox(rest, environment)
            case "return-urls": return try returnURLs(rest, environment)
            case "workflows": return try workflows(rest, environment)
            case "audit": return try audit(rest, environment)
            case "operators": return try operators(rest, environment)
            case "signing-keys": return try signingKeys(rest, environment)
            case "evidence": return try evidence(rest, environment)
            case "artifacts": return try artifacts(rest, environment)
            default:
                printError("unknown command \(command)\n\n\(overview)")
                return 64
            }
        } catch let error as CommandLineArguments.UsageError {
            printError("\(error)")
            return 64
        } catch let error as Configuration.Invalid {
            printError("configuration: \(error)")
            return 78
        } catch let error as DomainError {
            printError(message(for: error))
            return 65
        } catch let error as DatabaseError {
            printError("database: \(error.debugDescription)")
            return 69
        } catch {
            printError("\(error)")
            return 1
        }
    }

    // MARK: serve

    static func serve(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment)
        if parsed.wantsHelp { print(serveHelp); return 0 }
        let configuration = parsed.configuration
        try configuration.checkForServing()
        let application = try buildApplication(configuration: configuration)
        let server = application.makeServer()
        let stop = DispatchSemaphore(value: 0)
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        try server.start()
        let metricsServer = application.makeMetricsServer()
        try metricsServer?.start()
        application.startBackgroundWork()
        printError("hosted: serving on http://\(Configuration.ListenAddress(host: configuration.listen.host, port: server.port))"
                   + " public URL \(configuration.publicURL.absoluteString), database \(configuration.database.redacted)"
                   + (configuration.devMode ? ", dev mode ON" : "")
                   + (metricsServer.map { s in ", metrics on http://\(Configuration.ListenAddress(host: configuration.metricsListen!.host, port: s.port))/metrics" } ?? ""))
        stop.wait()
        application.beginDraining()
        if configuration.shutdownDelaySeconds > 0 {
            printError("hosted: draining: /readyz answers 503 for \(Int(configuration.shutdownDelaySeconds)) s before stopping")
            Thread.sleep(forTimeInterval: configuration.shutdownDelaySeconds)
        }
        printError("hosted: stopping; letting requests in flight finish")
        server.shutdown(gracePeriod: 10, beforeDraining: application.releaseWaiters)
        metricsServer?.shutdown(gracePeriod: 1, beforeDraining: {})
        signals.forEach { $0.cancel() }
        application.close()
        printError("hosted: stopped")
        return 0
    }

    // MARK: migrate

    static func migrate(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment)
        if parsed.wantsHelp { print(migrateHelp); return 0 }
        let database = try parsed.configuration.database.open(poolSize: 1)
        defer { database.close() }
        let applied = try Migrator(dialect: database.dialect).migrate(database)
        // Rows written before migration 0029 get their personal fields sealed (needs the secret key).
        let sealed = try PersonalDataUpgrade.sealUnsealed(configuration: parsed.configuration, database: database)
        print(String(decoding: try JSONCoding.encoder.encode(Migrated(applied: applied, sealed: sealed)), as: UTF8.self))
        return 0
    }

    /// What `hosted migrate` did: the migrations applied, and the rows it sealed.
    struct Migrated: Encodable {
        let applied: [String]
        let sealed: Int
    }

    // MARK: accounts, keys

    static func accounts(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: brandingOptions.union(["--name"]))
        if parsed.wantsHelp { print(accountsHelp); return 0 }
        if parsed.positionals == ["update"] { return try updateAccount(parsed) }
        guard parsed.positionals == ["create"] else { return usageError(accountsHelp) }
        guard let name = parsed.options["--name"] else { throw CommandLineArguments.UsageError(description: "--name is required") }
        let (database, accounts) = try openAccounts(parsed.configuration)
        defer { database.close() }
        let created = try accounts.createAccount(name: name)
        try printJSON(["account_id": created.account.id.rawValue, "api_key": created.secret.value])
        return 0
    }

    static func keys(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--account"], switchNames: ["--test"])
        if parsed.wantsHelp { print(keysHelp); return 0 }
        let (database, accounts) = try openAccounts(parsed.configuration)
        defer { database.close() }
        switch parsed.positionals.first {
        case "create":
            guard let text = parsed.options["--account"], let accountID = ObjectID(.account, parsing: text) else {
                throw CommandLineArguments.UsageError(description: "--account must be an account id (acct_…)")
            }
            let created = try accounts.createKey(accountID: accountID, livemode: !parsed.switches.contains("--test"))
            struct Created: Encodable { let key_id: String; let api_key: String; let livemode: Bool }
            print(String(decoding: try JSONCoding.encoder.encode(
                Created(key_id: created.key.id.rawValue, api_key: created.secret.value, livemode: created.key.livemode)), as: UTF8.self))
            return 0
        case "revoke":
            guard parsed.positionals.count == 2, let keyID = ObjectID(.apiKey, parsing: parsed.positionals[1]) else {
                throw CommandLineArguments.UsageError(description: "usage: hosted keys revoke KEY_ID (key_…)")
            }
            guard try accounts.revokeKey(keyID) else {
                printError("no active key \(keyID)")
                return 65
            }
            struct Revoked: Encodable { let key_id: String; let revoked: Bool }
            print(String(decoding: try JSONCoding.encoder.encode(Revoked(key_id: keyID.rawValue, revoked: true)), as: UTF8.self))
            return 0
        default:
            return usageError(keysHelp)
        }
    }

    static let returnURLsHelp = """
        Usage: hosted return-urls list --account ACCOUNT_ID
               hosted return-urls add --account ACCOUNT_ID --url URL
               hosted return-urls remove --account ACCOUNT_ID RETURN_URL_ID

        The account's registered return URLs, with the API's rules (absolute https, no user-info
        or fragment; loopback http in dev mode) and JSON shapes on stdout: list prints
        {"object":"list","data":[…]}, add prints the return_url (exit 0, also when it was already
        registered), remove prints {"object":"return_url","id":…,"deleted":true}. A removed URL
        is no longer a redirect target, even for verifications that named it.
        """

    static let workflowsHelp = """
        Usage: hosted workflows list --account ACCOUNT_ID
               hosted workflows show --account ACCOUNT_ID KEY [--version N]

        The account's workflows as the API shows them: list prints the latest version of each
        ({"object":"list","data":[…]}); show prints one workflow (the latest, or version N).
        """

    static func returnURLs(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--account", "--url"])
        if parsed.wantsHelp { print(returnURLsHelp); return 0 }
        guard let account = parsed.options["--account"] else { throw CommandLineArguments.UsageError(description: "--account is required") }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let administration = AccountAdministration(database: database, devMode: parsed.configuration.devMode)
        switch (parsed.positionals.first, parsed.positionals.count) {
        case ("list", 1):
            printBytes(try administration.listReturnURLs(account: account))
        case ("add", 1):
            guard let url = parsed.options["--url"] else { throw CommandLineArguments.UsageError(description: "--url is required") }
            printBytes(try administration.addReturnURL(account: account, url: url).json)
        case ("remove", 2):
            printBytes(try administration.removeReturnURL(account: account, id: parsed.positionals[1]))
        default:
            return usageError(returnURLsHelp)
        }
        return 0
    }

    static func workflows(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--account", "--version"])
        if parsed.wantsHelp { print(workflowsHelp); return 0 }
        guard let account = parsed.options["--account"] else { throw CommandLineArguments.UsageError(description: "--account is required") }
        let version = try parsed.options["--version"].map { text in
            guard let number = Int(text), number >= 1 else { throw CommandLineArguments.UsageError(description: "--version must be 1 or more") }
            return number
        }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let administration = AccountAdministration(database: database, devMode: parsed.configuration.devMode)
        switch (parsed.positionals.first, parsed.positionals.count) {
        case ("list", 1):
            printBytes(try administration.listWorkflows(account: account))
        case ("show", 2):
            printBytes(try administration.showWorkflow(account: account, key: parsed.positionals[1], version: version))
        default:
            return usageError(workflowsHelp)
        }
        return 0
    }

    static let outboxHelp = """
        Usage: hosted outbox [--to NUMBER] [--database-url URL]

        Lists the SMS messages dev mode wrote instead of sending (newest first, at most 50),
        one JSON object per line: {"to", "body", "created_at"}. The body of a sign-in message
        holds its 6-digit code.
        """

    static func outbox(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--to"])
        if parsed.wantsHelp { print(outboxHelp); return 0 }
        let database = try parsed.configuration.database.open(poolSize: 1)
        defer { database.close() }
        try Migrator(dialect: database.dialect).migrate(database)
        let number = parsed.options["--to"].map { MobileNumber.normalized($0) ?? $0 }
        for message in try SignInStore(database: database).outbox(to: number) {
            try printJSON(["to": message.to, "body": message.body,
                           "created_at": message.createdAt.formatted(Date.ISO8601FormatStyle())])
        }
        return 0
    }

    /// The store, migrated, and the account service over it (what the account commands need).
    static func openAccounts(_ configuration: Configuration) throws -> (any Database, AccountService) {
        let database = try openMigrated(configuration)
        return (database, AccountService(database: database))
    }

    /// The store, with pending migrations applied.
    static func openMigrated(_ configuration: Configuration) throws -> any Database {
        let database = try configuration.database.open(poolSize: 1)
        do {
            try Migrator(dialect: database.dialect).migrate(database)
        } catch {
            database.close()
            throw error
        }
        return database
    }

    static func printBytes(_ bytes: [UInt8]) {
        print(String(decoding: bytes, as: UTF8.self))
    }

    // MARK: output

    static func printJSON(_ object: [String: String]) throws {
        print(String(decoding: try JSONCoding.encoder.encode(object), as: UTF8.self))
    }

    /// A usage mistake: the command's help on stderr (stdout carries only JSON), exit 64.
    static func usageError(_ help: String) -> Int32 {
        printError(help)
        return 64
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func message(for error: DomainError) -> String {
        switch error {
        case .unauthenticated: "not authenticated"
        case .notFound(let what): "no such \(what)"
        case .invalidRequest(let detail, _, _): detail
        case .unauthorized(let detail, _), .forbidden(let detail, _), .missing(let detail, _), .malformed(let detail, _): detail
        case .conflict(let detail, _, _): detail
        case .rateLimited(let detail, _): detail
        case .gone(let detail, _): detail
        case .unavailable(let detail, _, _): detail
        case .unsupportedMediaType(let detail): detail
        }
    }
}
