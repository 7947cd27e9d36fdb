import HostedApp

/// The arguments of one command: configuration flags (each the twin of a `HOSTED_*` variable),
/// command options (`--name X`) and positional values.
struct CommandLineArguments {
    /// Configuration flags shared by every command, by the variable they set.
    static let configurationFlags: [(flag: String, variable: String, help: String)] = [
        ("--database-url", "HOSTED_DATABASE_URL", "postgres://… or sqlite:PATH (default sqlite:./data/hosted.sqlite)"),
        ("--listen", "HOSTED_LISTEN", "address and port to serve on (default 127.0.0.1:8080)"),
        ("--public-url", "HOSTED_PUBLIC_URL", "base of every URL handed out (default http:// + the listen address, 127.0.0.1 for a wildcard)"),
        ("--trusted-proxies", "HOSTED_TRUSTED_PROXIES", "comma-separated proxy addresses whose X-Forwarded-For is believed"),
        ("--threads", "HOSTED_THREADS", "HTTP worker threads (default: two per core)"),
        ("--db-pool-size", "HOSTED_DB_POOL_SIZE", "database connections per process (default: one per worker thread)"),
        ("--public-dir", "HOSTED_PUBLIC_DIR", "directory of the web pages (default ./public)"),
        ("--sms-relay-url", "HOSTED_SMS_RELAY_URL", "https endpoint that sends SMS (production; dev mode uses the outbox)"),
        ("--poll-rate", "HOSTED_POLL_RATE", "polls of one verification per second, sustained (default 1)"),
        ("--poll-burst", "HOSTED_POLL_BURST", "polls of one verification allowed at once (default 10)"),
        ("--secret-key-file", "HOSTED_SECRET_KEY_FILE", "the secret key's file (default secret.key beside the SQLite file; 0600)"),
        ("--max-connections-per-address", "HOSTED_MAX_CONNECTIONS_PER_ADDRESS",
         "connections at once from one peer address (default 128; 0 = none, e.g. behind a balancer)"),
        ("--max-buffered-bytes", "HOSTED_MAX_BUFFERED_BYTES", "request bodies held at once, all connections (default 67108864)"),
        ("--decode-threads", "HOSTED_DECODE_THREADS", "threads that decode uploaded photos (default: one per two cores)"),
        ("--decode-queue", "HOSTED_DECODE_QUEUE", "uploads waiting for a decode thread; one more gets 503 (default 16)"),
        ("--connection-timeout", "HOSTED_CONNECTION_TIMEOUT", "seconds a connection may sit idle (default 15)"),
        ("--header-timeout", "HOSTED_HEADER_TIMEOUT", "seconds a connection has to send a request's headers, however slowly (default 10)"),
        ("--min-body-rate", "HOSTED_MIN_BODY_RATE", "bytes per second a request body must keep up with after 5 s (default 8192; 0 = none)"),
        ("--sweep-interval", "HOSTED_SWEEP_INTERVAL", "seconds between lifecycle sweeps: expiry, retention, pruning (default 30)"),
        ("--shutdown-delay", "HOSTED_SHUTDOWN_DELAY", "seconds to keep serving after SIGTERM with /readyz at 503 (default 0)"),
        ("--metrics-listen", "HOSTED_METRICS_LISTEN", "address and port of GET /metrics (Prometheus text; off by default)"),
        ("--max-long-polls", "HOSTED_MAX_LONG_POLLS", "long-polls waiting at once per account and per address (default 64)"),
        ("--webhook-retry-schedule", "HOSTED_WEBHOOK_RETRY_SCHEDULE",
         "comma-separated seconds between webhook attempts (default 5,300,1800,7200,18000,36000,50400,72000,86400; ±10 % jitter)"),
        ("--webhook-timeout", "HOSTED_WEBHOOK_TIMEOUT", "seconds one webhook attempt may take (default 10)"),
        ("--webhook-hosts-file", "HOSTED_WEBHOOK_HOSTS_FILE", "dev mode: resolve webhook hosts from this hosts(5) file only, never DNS"),
        ("--artifact-store", "HOSTED_ARTIFACT_STORE",
         "database (default) or s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true] (docs/artifacts.md)"),
        ("--orphan-grace", "HOSTED_ORPHAN_GRACE_SECONDS", "seconds before an object with no row is deleted (default 3600)"),
    ]

    var configuration: Configuration
    var options: [String: String] = [:]
    var positionals: [String] = []
    /// The command's own options without a value that were given (`--test`).
    var switches: Set<String> = []
    var wantsHelp = false

    /// A usage mistake, reported with the command's help.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `arguments` over the environment's configuration; `optionNames` are the command's own options.
    init(_ arguments: [String], environment: [String: String], optionNames: Set<String> = [], switchNames: Set<String> = []) throws {
        configuration = try Configuration.fromEnvironment(environment)
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
            } else if switchNames.contains(argument) {
                switches.insert(argument)
            } else if argument == "--dev" {
                try configuration.apply(setting: "HOSTED_DEV_MODE", value: "on")
            } else if argument.hasPrefix("--") {
                let (name, inline) = Self.split(argument)
                guard let value = inline ?? remaining.popFirst() else {
                    throw UsageError(description: "\(name) needs a value")
                }
                if let flag = Self.configurationFlags.first(where: { $0.flag == name }) {
                    try configuration.apply(setting: flag.variable, value: value)
                } else if optionNames.contains(name) {
                    options[name] = value
                } else {
                    throw UsageError(description: "unknown option \(name)")
                }
            } else {
                positionals.append(argument)
            }
        }
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    static var configurationHelp: String {
        let lines = configurationFlags.map { entry in
            entry.flag.count > 18
                ? "  \(entry.flag)\n  \(String(repeating: " ", count: 18)) \(entry.help)\n  \(String(repeating: " ", count: 18)) env \(entry.variable)"
                : "  \(entry.flag.padding(toLength: 18, withPad: " ", startingAt: 0)) \(entry.help)\n"
                    + "  \(String(repeating: " ", count: 18)) env \(entry.variable)"
        }
        return (["  --dev               dev mode: SMS outbox page, DigiLocker simulator, loopback http return URLs\n"
                 + "                      env HOSTED_DEV_MODE=on"] + lines).joined(separator: "\n")
            + "\n  HOSTED_SECRET_KEY (env only): the secret key (OTP pepper, encryption of queued messages);"
            + "\n      default: read from HOSTED_SECRET_KEY_FILE. Required with PostgreSQL outside dev mode"
            + "\n      unless that file exists; never stored in the database (see docs/security.md)"
            + "\n  HOSTED_SMS_RELAY_SECRET (env only): HMAC key signing requests to the SMS relay"
            + "\n  HOSTED_DIGILOCKER_AUTHORIZE_URL, _TOKEN_URL, _API_URL, _CLIENT_ID, _CLIENT_SECRET (env only):"
            + "\n      the DigiLocker partner client (default: the simulator in dev mode; see docs/digilocker.md)"
    }
}
