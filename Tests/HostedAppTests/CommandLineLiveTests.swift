import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// The real `hosted` binary, run as a user would run it.
@Suite struct CommandLineLiveTests {
    /// A temporary folder holding one SQLite database.
    struct Workspace {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-cli-\(UUID().uuidString)")
        var databasePath: String { directory.appendingPathComponent("hosted.sqlite").path }
        var environment: [String: String] { ["HOSTED_DATABASE_URL": "sqlite:" + databasePath] }

        func run(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
            try run(arguments)
        }

        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try HostedBinary.run(arguments, environment: environment)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// The string members of a command's JSON answer (`keys create` adds the boolean `livemode`).
    func decode(_ text: String) throws -> [String: String] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]).compactMapValues { $0 as? String }
    }

    @Test func helpDocumentsEveryCommand() throws {
        let overview = try HostedBinary.run(["--help"])
        #expect(overview.status == 0)
        for command in ["serve", "migrate", "accounts create", "keys create", "keys revoke", "HOSTED_DATABASE_URL",
                        "HOSTED_LISTEN", "HOSTED_PUBLIC_URL", "HOSTED_DEV_MODE", "HOSTED_SECRET_KEY", "HOSTED_TRUSTED_PROXIES"] {
            #expect(overview.stdout.contains(command), "--help lacks \(command)")
        }
        for command in ["serve", "migrate", "accounts", "keys", "return-urls", "workflows", "outbox"] {
            let help = try HostedBinary.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Usage: hosted \(command)"))
        }
        #expect(try HostedBinary.run(["frobnicate"]).status == 64)
    }

    @Test func migrateTwiceAppliesOnce() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        let first = try workspace.run("migrate")
        #expect(first.status == 0)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect((answer["applied"] as? [String])?.first == "0001_accounts")
        #expect(answer["sealed"] as? Int == 0)
        let second = try workspace.run("migrate")
        #expect(second.status == 0)
        #expect(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"applied":[],"sealed":0}"#)
    }

    /// Nodes started together on a fresh PostgreSQL used to race creating the ledger (a unique
    /// violation in the catalog, exit 69); the migrators now take turns under an advisory lock.
    @Test(arguments: Store.allCases)
    func manyMigratorsAtOnceOnAFreshDatabaseAllSucceed(_ store: Store) throws {
        guard store.isAvailable else { return }
        let database = try TestDatabaseURL(store)
        defer { database.remove() }
        let environment = ["HOSTED_DATABASE_URL": database.environmentValue, "HOSTED_SECRET_KEY": String(repeating: "k", count: 64)]
        let processes = try (0..<6).map { index in
            try Subprocess(HostedBinary.path, ["migrate"], environment: environment,
                           stderr: database.directory.appendingPathComponent("migrate-\(index).log").path)
        }
        let statuses = processes.map { $0.wait(timeout: 60) }
        #expect(statuses.allSatisfy { $0 == 0 }, "exit statuses \(statuses)")
        let check = try database.url.open(poolSize: 1)
        defer { check.close() }
        let rows = try check.query("SELECT count(*) AS n FROM schema_migrations")
        #expect(try rows[0].int("n") == Int64(try Migrator(dialect: check.dialect).migrations.count))
    }

    /// The secret key is kept beside the SQLite file, mode 0600, and never in the database.
    @Test func serveKeepsTheSecretKeyInAPrivateFileBesideTheDatabase() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.directory, withIntermediateDirectories: true)
        let log = workspace.directory.appendingPathComponent("serve.log").path
        let server = try Subprocess(HostedBinary.path, ["serve", "--listen", "127.0.0.1:0"], environment: workspace.environment, stderr: log)
        _ = try waitForPort(in: log)
        server.signal(SIGTERM)
        #expect(server.wait(timeout: 20) == 0)
        let keyPath = workspace.directory.appendingPathComponent("secret.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let key = try String(contentsOfFile: keyPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.count >= 43)
        for file in ["hosted.sqlite", "hosted.sqlite-wal", "hosted.sqlite-shm"] {
            let bytes = FileManager.default.contents(atPath: workspace.directory.appendingPathComponent(file).path) ?? Data()
            #expect(bytes.range(of: Data(key.utf8)) == nil, "the key is in \(file)")
        }
        // Readable by others: refused (exit 78) rather than used.
        chmod(keyPath, 0o644)
        let refused = try workspace.run("serve", "--listen", "127.0.0.1:0")
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("chmod 600"))
    }

    /// The SQLite database holds full mobile numbers, photos and documents: whichever command
    /// creates it (`migrate`, `serve`), its directory is created 0700 and every data file 0600
    /// (the database, its `-wal` and `-shm`, the key), even when started with the usual umask 022.
    @Test func aFreshDataDirectoryIs0700AndEveryDataFileInIt0600() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.directory, withIntermediateDirectories: true)
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        /// `hosted ARGUMENTS` from a shell whose umask lets others read what it creates.
        func hosted(_ arguments: [String], database: String, log: String) throws -> Subprocess {
            try Subprocess("/bin/sh", ["-c", #"umask 022 && exec "$0" "$@""#, HostedBinary.path] + arguments,
                           environment: ["HOSTED_DATABASE_URL": "sqlite:" + database], stderr: log)
        }

        let migrated = workspace.directory.appendingPathComponent("migrated/data")
        let migrate = try hosted(["migrate"], database: migrated.appendingPathComponent("hosted.sqlite").path,
                                 log: workspace.directory.appendingPathComponent("migrate.log").path)
        #expect(migrate.wait(timeout: 60) == 0)
        #expect(try mode(migrated.path) == 0o700)
        #expect(try mode(migrated.appendingPathComponent("hosted.sqlite").path) == 0o600)

        let served = workspace.directory.appendingPathComponent("served/data")
        let log = workspace.directory.appendingPathComponent("serve.log").path
        let server = try hosted(["serve", "--listen", "127.0.0.1:0"], database: served.appendingPathComponent("hosted.sqlite").path, log: log)
        defer {
            server.signal(SIGTERM)
            #expect(server.wait(timeout: 20) == 0)
        }
        _ = try waitForPort(in: log)
        #expect(try mode(served.path) == 0o700)
        // While it serves, WAL mode keeps the -wal and -shm files beside the database.
        for file in ["hosted.sqlite", "hosted.sqlite-wal", "hosted.sqlite-shm", "secret.key"] {
            #expect(try mode(served.appendingPathComponent(file).path) == 0o600, "\(file)")
        }
    }

    @Test func servingPostgreSQLWithoutAProvisionedKeyIsRefused() throws {
        guard Store.postgres.isAvailable else { return }
        let database = try TestDatabaseURL(.postgres)
        defer { database.remove() }
        let refused = try HostedBinary.run(["serve", "--listen", "127.0.0.1:0"], environment: ["HOSTED_DATABASE_URL": database.environmentValue])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("HOSTED_SECRET_KEY"))
        let missingFile = try HostedBinary.run(["serve", "--listen", "127.0.0.1:0"],
                                               environment: ["HOSTED_DATABASE_URL": database.environmentValue,
                                                             "HOSTED_SECRET_KEY_FILE": database.directory.appendingPathComponent("none.key").path])
        #expect(missingFile.status == 78)
        // Nothing was migrated: a node without its key does not touch the database.
        let check = try database.url.open(poolSize: 1)
        defer { check.close() }
        #expect(try check.query("""
            SELECT count(*) AS n FROM pg_tables
            WHERE tablename = 'schema_migrations' AND schemaname = ANY (current_schemas(false))
            """)[0].int("n") == 0)
    }

    @Test func returnURLsAndWorkflowsFromTheCommandLine() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        let account = try #require(try decode(try workspace.run("accounts", "create", "--name", "Acme").stdout)["account_id"])
        let added = try workspace.run("return-urls", "add", "--account", account, "--url", "https://app.example.com/done")
        #expect(added.status == 0)
        let registered = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        #expect(registered["object"] as? String == "return_url")
        let id = try #require(registered["id"] as? String)
        // The API's rules: a custom scheme or plain http is refused (exit 65, a clear message).
        let refused = try workspace.run("return-urls", "add", "--account", account, "--url", "acme://kyc/done")
        #expect(refused.status == 65)
        #expect(refused.stdout.isEmpty)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try workspace.run("return-urls", "list", "--account", account).stdout.utf8)) as? [String: Any])
        #expect((listed["data"] as? [[String: Any]])?.map { $0["url"] as? String } == ["https://app.example.com/done"])
        let removed = try workspace.run("return-urls", "remove", "--account", account, id)
        #expect(removed.status == 0)
        #expect(removed.stdout.contains(#""deleted":true"#))
        #expect(try workspace.run("return-urls", "remove", "--account", account, id).status == 65)
        #expect(try workspace.run("return-urls", "list", "--account", "acct_nonexistent").status == 65)

        let workflows = try workspace.run("workflows", "list", "--account", account)
        #expect(workflows.status == 0)
        #expect(workflows.stdout.contains(#""object":"list""#))
        #expect(try workspace.run("workflows", "show", "--account", account, "kyc").status == 65)
    }

    @Test func accountsCreatePrintsKeyOnceAndStoresOnlyItsHash() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        let created = try workspace.run("accounts", "create", "--name", "Acme Bank")
        #expect(created.status == 0)
        let object = try decode(created.stdout)
        #expect(Set(object.keys) == ["account_id", "api_key"])
        let key = try #require(object["api_key"])
        #expect(key.hasPrefix("sk_") && key.count >= 46)
        #expect(try #require(object["account_id"]).hasPrefix("acct_"))
        #expect(!created.stderr.contains(key))

        // The key appears in no file of the database (main file, WAL, shared memory) in clear.
        var sawDatabase = false
        for suffix in ["", "-wal", "-shm"] {
            guard let bytes = FileManager.default.contents(atPath: workspace.databasePath + suffix) else { continue }
            sawDatabase = sawDatabase || suffix.isEmpty
            #expect(bytes.range(of: Data(key.utf8)) == nil, "key in clear in hosted.sqlite\(suffix)")
            #expect(bytes.range(of: Data(key.dropFirst(3).utf8)) == nil)
        }
        #expect(sawDatabase)
    }

    @Test func keysCreateAndRevokeRotateWithoutDowntime() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        let account = try decode(try workspace.run("accounts", "create", "--name", "Acme").stdout)
        let second = try workspace.run("keys", "create", "--account", account["account_id"]!)
        #expect(second.status == 0)
        let keyID = try #require(try decode(second.stdout)["key_id"])
        #expect(second.stdout.contains(#""livemode":true"#))
        // --test makes a test key (sk_test_…), shown once like any other.
        let test = try workspace.run("keys", "create", "--account", account["account_id"]!, "--test")
        #expect(test.status == 0 && test.stdout.contains(#""livemode":false"#))
        #expect(try decode(test.stdout)["api_key"]?.hasPrefix("sk_test_") == true)
        let revoked = try workspace.run("keys", "revoke", keyID)
        #expect(revoked.status == 0)
        // `revoked` is a JSON boolean, not the string "true" (issue 37).
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(revoked.stdout.utf8)) as? [String: Any])
        #expect(answer["key_id"] as? String == keyID)
        #expect(answer["revoked"] as? Bool == true && !(answer["revoked"] is String))
        #expect(revoked.stdout.contains(#""revoked":true"#))
        #expect(try workspace.run("keys", "revoke", keyID).status == 65)
        #expect(try workspace.run("keys", "create", "--account", "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa").status == 65)
        #expect(try workspace.run("keys", "create", "--account", "not-an-id").status == 64)
        #expect(try workspace.run("accounts", "create").status == 64)
        #expect(try workspace.run("accounts", "create", "--name", "   ").status == 65)
    }

    /// Issue 37: a usage mistake printed the command's usage on stdout. Every command's usage
    /// path exits 64 with nothing on stdout (it carries only JSON) and the usage or the mistake
    /// on stderr; asking for help (`--help`, exit 0) still prints it on stdout.
    @Test func usageMistakesGoToStderrWithExit64AndNothingOnStdout() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        let account = try #require(try decode(try workspace.run("accounts", "create", "--name", "Acme").stdout)["account_id"])
        let mistakes: [[String]] = [
            [],
            ["frobnicate"],
            ["accounts"], ["accounts", "delete"], ["accounts", "create"],
            ["keys"], ["keys", "rotate"], ["keys", "revoke"], ["keys", "create", "--account", "not-an-id"],
            ["return-urls", "add", "--account", account], ["return-urls", "add", "--account", account, "https://app.example.com/done"],
            ["return-urls", "list"], ["return-urls", "frob", "--account", account],
            ["workflows", "frob", "--account", account], ["workflows", "show", "--account", account],
            ["workflows", "list", "--account", account, "--version", "0"],
            ["operators"], ["operators", "create", "--account", account], ["operators", "disable"],
            ["audit"], ["audit", "frob"],
            ["migrate", "--no-such-flag"],
        ]
        for arguments in mistakes {
            let result = try workspace.run(arguments)
            #expect(result.status == 64, "\(arguments): exit \(result.status)")
            #expect(result.stdout.isEmpty, "\(arguments) printed on stdout: \(result.stdout.prefix(60))")
            #expect(!result.stderr.isEmpty, "\(arguments) said nothing on stderr")
        }
        #expect(try workspace.run(["return-urls", "add", "--account", account]).stderr.contains("--url"))
        #expect(try workspace.run(["return-urls", "frob", "--account", account]).stderr.contains("Usage: hosted return-urls"))
    }

    /// A serving process remembers a key that authenticated for at most a second: a revoke made
    /// by another process (the command line) is refused there within that second, on both stores.
    @Test(arguments: Store.allCases)
    func aKeyRevokedByAnotherProcessIsRefusedWithinASecond(_ store: Store) throws {
        guard store.isAvailable else { return }
        let database = try TestDatabaseURL(store)
        defer { database.remove() }
        let environment = ["HOSTED_DATABASE_URL": database.environmentValue, "HOSTED_SECRET_KEY": String(repeating: "k", count: 64)]
        let account = try decode(try HostedBinary.run(["accounts", "create", "--name", "Acme"], environment: environment).stdout)
        let second = try decode(try HostedBinary.run(["keys", "create", "--account", try #require(account["account_id"])],
                                                     environment: environment).stdout)
        let key = try #require(second["api_key"])
        let server = try ServerProcess(environment: environment, logDirectory: database.directory)
        defer { _ = server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        let auth = ["Authorization": "Bearer \(key)"]
        for _ in 0..<3 { #expect(try connection.request("GET", "/v1/account", headers: auth).status == 200) }
        #expect(try HostedBinary.run(["keys", "revoke", try #require(second["key_id"])], environment: environment).status == 0)
        let revoked = Date()
        var status = 200
        while status == 200 && Date().timeIntervalSince(revoked) < 5 {
            status = try connection.request("GET", "/v1/account", headers: auth).status
            if status == 200 { usleep(20_000) }
        }
        #expect(status == 401)
        #expect(Date().timeIntervalSince(revoked) < 1.5, "refused after \(Date().timeIntervalSince(revoked)) s")
        // The account's first key is not affected.
        #expect(try connection.request("GET", "/v1/account", headers: ["Authorization": "Bearer \(try #require(account["api_key"]))"]).status == 200)
    }

    @Test func badConfigurationIsRefusedClearly() throws {
        let result = try HostedBinary.run(["serve", "--listen", "nowhere"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("HOSTED_LISTEN"))
    }

    /// `hosted serve` on an ephemeral port: requests in flight when SIGTERM arrives complete, then it exits 0.
    @Test func serveFinishesInFlightRequestsOnSIGTERM() throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.directory, withIntermediateDirectories: true)
        let log = workspace.directory.appendingPathComponent("serve.log").path
        let server = try Subprocess(HostedBinary.path, ["serve", "--listen", "127.0.0.1:0"],
                                    environment: workspace.environment, stderr: log)
        let port = try waitForPort(in: log)
        let ready = try RawHTTPConnection(port: port).request("GET", "/readyz")
        #expect(ready.status == 200)

        // Five requests with half-sent bodies: in flight, not yet answerable. The server says
        // "100 Continue" once it has taken a request's headers in, so each is known to be in flight.
        let connections = try (0..<5).map { _ in try RawHTTPConnection(port: port) }
        for connection in connections {
            try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nab")
            #expect(try connection.readResponse().status == 100)
        }
        server.signal(SIGTERM)
        // Once it says it is stopping, a moment in which a server that did not wait would exit.
        let isStopping = { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("hosted: stopping") }
        #expect(eventually(pause: 0.02, isStopping))
        usleep(300_000)
        #expect(server.wait(timeout: 0) == nil, "the server must wait for requests in flight")
        for connection in connections {
            try connection.send("cd")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(server.wait(timeout: 15) == 0)
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        #expect(lines.components(separatedBy: "\n").filter { $0.contains("\"path\":\"/healthz\"") && $0.contains("\"status\":200") }.count == 5)
    }

    /// The whole path on both stores: migrate at start, create an account with the CLI, then
    /// authenticate through the live server.
    @Test(arguments: ["sqlite", "postgres"])
    func serveAuthenticatesAccountKeys(_ store: String) throws {
        let workspace = Workspace()
        defer { workspace.remove() }
        try FileManager.default.createDirectory(at: workspace.directory, withIntermediateDirectories: true)
        var environment = workspace.environment
        var dropSchema: () -> Void = {}
        if store == "postgres" {
            guard let base = ProcessInfo.processInfo.environment["HOSTED_TEST_POSTGRES_URL"] else {
                if ProcessInfo.processInfo.environment["HOSTED_REQUIRE_POSTGRES"] == "1" { Issue.record("no PostgreSQL") }
                return
            }
            let schema = "cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try PostgresDatabase(url: base, poolSize: 1)
            try admin.query("CREATE SCHEMA \(unsafeSQL: schema)")
            dropSchema = { _ = try? admin.query("DROP SCHEMA \(unsafeSQL: schema) CASCADE"); admin.close() }
            environment["HOSTED_DATABASE_URL"] = base + "?options=-csearch_path%3D\(schema)"
            environment["HOSTED_SECRET_KEY"] = String(repeating: "cli-key-", count: 8)
        }
        defer { dropSchema() }
        let log = workspace.directory.appendingPathComponent("serve.log").path
        let server = try Subprocess(HostedBinary.path, ["serve", "--listen", "127.0.0.1:0"], environment: environment, stderr: log)
        let port = try waitForPort(in: log)
        let created = try HostedBinary.run(["accounts", "create", "--name", "Acme"], environment: environment)
        let key = try #require(try decode(created.stdout)["api_key"])
        let connection = try RawHTTPConnection(port: port)
        let response = try connection.request("GET", "/v1/account", headers: ["Authorization": "Bearer \(key)"])
        #expect(response.status == 200)
        #expect(response.text.contains("\"name\":\"Acme\""))
        #expect(try connection.request("GET", "/v1/account").status == 401)
        #expect(try connection.request("GET", "/readyz").status == 200)
        server.signal(SIGTERM)
        #expect(server.wait(timeout: 15) == 0)
        #expect(!(try String(contentsOfFile: log, encoding: .utf8)).contains(key))
    }

    func waitForPort(in log: String) throws -> UInt16 {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: log, encoding: .utf8),
               let range = text.range(of: #"serving on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let port = text[range].split(separator: ":").last.flatMap { UInt16($0) }
                if let port { return port }
            }
            usleep(50_000)
        }
        Issue.record("the server did not report its port: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw CancellationError()
    }
}
