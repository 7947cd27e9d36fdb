import Foundation
import HostedCore
import HostedStorage

/// Everything `hosted` reads from its environment and flags. Each field documents its default.
public struct Configuration: Sendable {
    /// `HOSTED_DATABASE_URL` / `--database-url`; default `sqlite:./data/hosted.sqlite`.
    public var database: DatabaseURL = .default
    /// `HOSTED_LISTEN` / `--listen`; default `127.0.0.1:8080`.
    public var listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080)
    /// `HOSTED_PUBLIC_URL` / `--public-url`; default `http://` + the listen address (`127.0.0.1`
    /// for a wildcard one: `0.0.0.0:9000` gives `http://127.0.0.1:9000`). Base of every URL
    /// handed out.
    public var publicURL: URL {
        get { configuredPublicURL ?? Self.defaultPublicURL(listen: listen) }
        set { configuredPublicURL = newValue }
    }
    /// The public URL that was set; nil means "follow the listen address".
    private var configuredPublicURL: URL?
    /// `HOSTED_DEV_MODE` / `--dev`; default off.
    public var devMode = false
    /// `HOSTED_SECRET_KEY`; default none: the key is read from `secretKeyFile`.
    public var secretKey: String?
    /// `HOSTED_SECRET_KEY_FILE`; default `secret.key` beside the SQLite file (created mode 0600 on
    /// first start). With PostgreSQL there is no default outside dev mode (`./data/secret.key`
    /// in dev mode): production nodes must be given the same key.
    public var secretKeyFile: String?
    /// `HOSTED_TRUSTED_PROXIES` / `--trusted-proxies` (comma-separated addresses); default none.
    public var trustedProxies: [String] = []
    /// `HOSTED_DB_POOL_SIZE` / `--db-pool-size`; default one connection per HTTP worker thread.
    public var databasePoolSize = Configuration.defaultThreads
    /// `HOSTED_THREADS` / `--threads`; default two HTTP workers per core: handlers block on the
    /// database, so a core whose worker waits on a query needs another to run. Measured on 2 cores
    /// (`bench/run.sh`'s sizing rows, docs/performance.md): 4 workers served the most polls with
    /// the lowest p99; 6 and 12 fewer, with a longer tail (more threads than the cores can run,
    /// each holding a database connection).
    public var threads = Configuration.defaultThreads

    static let defaultThreads = 2 * ProcessInfo.processInfo.activeProcessorCount
    /// `HOSTED_PUBLIC_DIR` / `--public-dir`; default `./public`, else `public/` beside the package
    /// the binary was built from.
    public var publicDirectory: URL = Configuration.defaultPublicDirectory()

    /// `HOSTED_SMS_RELAY_URL`; default none (dev mode writes to the outbox instead). HTTPS only.
    public var smsRelayURL: URL?
    /// `HOSTED_SMS_RELAY_SECRET`: key of the HMAC signature on relay requests.
    public var smsRelaySecret: String?
    /// `HOSTED_DIGILOCKER_AUTHORIZE_URL`, `…_TOKEN_URL`, `…_API_URL`, `…_CLIENT_ID`,
    /// `…_CLIENT_SECRET`; default none — dev mode then uses the built-in simulator.
    public var digiLocker = DigiLockerSettings()
    /// `HOSTED_POLL_RATE` / `--poll-rate`; default 1 request per second sustained, per verification.
    public var pollRate: Double = 1
    /// `HOSTED_POLL_BURST` / `--poll-burst`; default 10 requests at once, per verification.
    public var pollBurst = 10
    /// `HOSTED_MAX_CONNECTIONS_PER_ADDRESS`; default 128 connections at once from one peer
    /// address, 0 for no limit (set it to 0, or higher, behind a load balancer, whose address
    /// every connection then has).
    public var connectionsPerAddress = 128
    /// `HOSTED_MAX_BUFFERED_BYTES`; default 64 MiB of request bodies held at once across all
    /// connections (eight full-size uploads); past it a new body is refused with 503.
    public var maximumBufferedBytes = 64 << 20
    /// `HOSTED_DECODE_THREADS` / `--decode-threads`; default one per two cores (at least one):
    /// uploaded photos are decoded on these threads, never on the HTTP workers, so a burst of
    /// uploads cannot take every core or every worker.
    public var decodeThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// `HOSTED_DECODE_QUEUE` / `--decode-queue`; default 16 uploads waiting for a decode thread;
    /// one more is answered 503 `server_busy` with `Retry-After`.
    public var decodeQueueCapacity = 16
    /// `HOSTED_CONNECTION_TIMEOUT`; default 15 seconds a connection may sit idle (a long-poll
    /// waiting for its answer is not idle).
    public var connectionTimeoutSeconds = 15
    /// `HOSTED_HEADER_TIMEOUT`; default 10 seconds a new connection has to send its request line
    /// and headers, however slowly they trickle (a kept-alive connection: the idle timeout plus
    /// this, after its previous answer); then it is closed.
    public var headerTimeoutSeconds = 10
    /// `HOSTED_MIN_BODY_RATE`; default 8192 bytes per second a request body must keep up with,
    /// counted from 5 seconds after its headers; a slower one is cut. 0 for no minimum.
    public var minimumBodyBytesPerSecond = 8 << 10
    /// `HOSTED_MAX_LONG_POLLS`; default 64 long-polls waiting at once per API key and as many
    /// per client address; one more is refused with 429.
    public var maximumLongPolls = 64
    /// `HOSTED_METRICS_LISTEN` / `--metrics-listen`: where `GET /metrics` is served (its own
    /// address, never the public one); off when unset.
    public var metricsListen: ListenAddress?
    /// `HOSTED_SHUTDOWN_DELAY`: seconds `serve` keeps serving after SIGTERM with `/readyz`
    /// answering 503, before it stops accepting connections (for balancers that poll readiness);
    /// default 0.
    public var shutdownDelaySeconds: TimeInterval = 0
    /// `HOSTED_SWEEP_INTERVAL`; default every 30 seconds the background work runs the lifecycle
    /// sweeps: expiry, retention, pruning of internal tables.
    public var sweepIntervalSeconds: TimeInterval = 30
    /// `HOSTED_WEBHOOK_RETRY_SCHEDULE`; comma-separated seconds between a webhook's attempts
    /// (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), each with ±10 % jitter.
    public var webhookRetrySchedule = RetrySchedule.standard
    /// `HOSTED_WEBHOOK_TIMEOUT`; default 10 seconds for one webhook attempt, connection included.
    public var webhookTimeoutSeconds: TimeInterval = 10
    /// `HOSTED_WEBHOOK_HOSTS_FILE` (dev mode only): webhook host names resolve from this
    /// hosts(5)-style file alone, never DNS, so tests decide what a name is.
    public var webhookHostsFile: String?
    /// `HOSTED_DISABLE_MEMOS`: comma-separated caches and memos to build off (`Memo`'s names, e.g.
    /// `callers,rendered`), for measuring what each buys; default none. Answers do not change.
    public var disabledMemos: Set<Memo> = []
    /// `HOSTED_ANALYTICS`: `on` (the default) or `off`, which records no journey signal
    /// (docs/analytics.md; the benchmark compares the two).
    public var analyticsEnabled = true
    /// `HOSTED_ARTIFACT_STORE` / `--artifact-store`: `database` (the default: bytes in the
    /// database) or `s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true]`
    /// (docs/artifacts.md); with `HOSTED_S3_ACCESS_KEY_ID` and `HOSTED_S3_SECRET_ACCESS_KEY`.
    public var artifactStore = ArtifactStoreSetting.database
    /// `HOSTED_S3_ACCESS_KEY_ID` (or `HOSTED_S3_ACCESS_KEY_ID_FILE`); default none. May hold `:`.
    public var s3AccessKeyID: String?
    /// `HOSTED_S3_SECRET_ACCESS_KEY` (or `HOSTED_S3_SECRET_ACCESS_KEY_FILE`); default none.
    public var s3SecretAccessKey: String?
    /// `HOSTED_ORPHAN_GRACE_SECONDS`; default 3600: an object written with no row after this
    /// long is deleted by the sweeper.
    public var orphanGraceSeconds: TimeInterval = 3600
    /// `HOSTED_BENCH_UNSIGNED_RESULTS=1`, for the benchmark only (bench/results.sh): the return
    /// URL carries no signed result, so a submit with and without signing can be compared.
    public var benchUnsignedResults = false

    public init() {}

    /// Whether `memo` is built on (`disabledMemos`).
    func keeps(_ memo: Memo) -> Bool { !disabledMemos.contains(memo) }

    /// Where a server listening on `listen` is reached when no public URL is set: that address,
    /// over http, with a wildcard host (every interface) read as this machine's loopback.
    static func defaultPublicURL(listen: ListenAddress) -> URL {
        let wildcard = ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(listen.host)
        let address = wildcard ? ListenAddress(host: "127.0.0.1", port: listen.port) : listen
        // A listen address is numeric (an IPv4 address or a bracketed IPv6 one), always a valid authority.
        return URL(string: "http://\(address)")!
    }

    /// A numeric address and port to listen on, e.g. `127.0.0.1:8080` or `[::1]:8080`.
    public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
        public var host: String
        public var port: UInt16

        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }

        public init?(_ text: String) {
            let hostPart: Substring
            let portPart: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
                hostPart = text[text.index(after: text.startIndex)..<close]
                portPart = text[text.index(close, offsetBy: 2)...]
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                hostPart = text[..<colon]
                portPart = text[text.index(after: colon)...]
            }
            guard let port = UInt16(portPart), !hostPart.isEmpty else { return nil }
            self.host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// A configuration value that could not be used.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the `HOSTED_*` variables of `environment`.
    public static func fromEnvironment(_ environment: [String: String]) throws(Invalid) -> Configuration {
        var configuration = Configuration()
        for (name, value) in environment where name.hasPrefix("HOSTED_") {
            try configuration.apply(setting: name, value: value)
        }
        return configuration
    }

    /// Sets one option by its environment name (`HOSTED_LISTEN`) — flags map onto these names.
    public mutating func apply(setting name: String, value: String) throws(Invalid) {
        switch name {
        case "HOSTED_DATABASE_URL":
            guard let url = DatabaseURL(value) else {
                throw Invalid(description: "\(name) must be sqlite:PATH or postgres://…")
            }
            database = url
        case "HOSTED_LISTEN":
            guard let address = ListenAddress(value) else {
                throw Invalid(description: "\(name) must be ADDRESS:PORT, e.g. 127.0.0.1:8080 or [::1]:8080")
            }
            listen = address
        case "HOSTED_PUBLIC_URL":
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  url.host != nil, url.query == nil, url.fragment == nil, url.user == nil
            else { throw Invalid(description: "\(name) must be an absolute http(s) URL without query or fragment") }
            publicURL = URL(string: value.hasSuffix("/") ? String(value.dropLast()) : value)!
        case "HOSTED_DEV_MODE":
            switch value.lowercased() {
            case "1", "true", "yes", "on": devMode = true
            case "0", "false", "no", "off", "": devMode = false
            default: throw Invalid(description: "\(name) must be on or off")
            }
        case "HOSTED_SECRET_KEY":
            guard value.utf8.count >= 32 else { throw Invalid(description: "\(name) must be at least 32 characters") }
            secretKey = value
        case "HOSTED_SECRET_KEY_FILE":
            guard !value.isEmpty else { throw Invalid(description: "\(name) must be a path") }
            secretKeyFile = value
        case "HOSTED_TRUSTED_PROXIES":
            trustedProxies = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case "HOSTED_DB_POOL_SIZE":
            guard let size = Int(value), (1...256).contains(size) else { throw Invalid(description: "\(name) must be 1…256") }
            databasePoolSize = size
        case "HOSTED_THREADS":
            guard let threads = Int(value), (1...256).contains(threads) else { throw Invalid(description: "\(name) must be 1…256") }
            self.threads = threads
        case "HOSTED_SMS_RELAY_URL":
            guard let url = URL(string: value), url.scheme?.lowercased() == "https", url.host != nil else {
                throw Invalid(description: "\(name) must be an https URL")
            }
            smsRelayURL = url
        case "HOSTED_SMS_RELAY_SECRET":
            guard value.utf8.count >= 16 else { throw Invalid(description: "\(name) must be at least 16 characters") }
            smsRelaySecret = value
        case "HOSTED_POLL_RATE":
            guard let rate = Double(value), rate > 0, rate <= 1000 else {
                throw Invalid(description: "\(name) must be more than 0 and at most 1000 requests per second")
            }
            pollRate = rate
        case "HOSTED_POLL_BURST":
            guard let burst = Int(value), (1...1_000_000).contains(burst) else { throw Invalid(description: "\(name) must be 1…1000000") }
            pollBurst = burst
        case "HOSTED_MAX_CONNECTIONS_PER_ADDRESS":
            guard let limit = Int(value), (0...100_000).contains(limit) else { throw Invalid(description: "\(name) must be 0…100000") }
            connectionsPerAddress = limit
        case "HOSTED_MAX_BUFFERED_BYTES":
            guard let bytes = Int(value), (1 << 20...1 << 34).contains(bytes) else {
                throw Invalid(description: "\(name) must be 1048576…17179869184 bytes")
            }
            maximumBufferedBytes = bytes
        case "HOSTED_DECODE_THREADS":
            guard let threads = Int(value), (1...64).contains(threads) else { throw Invalid(description: "\(name) must be 1…64") }
            decodeThreads = threads
        case "HOSTED_DECODE_QUEUE":
            guard let capacity = Int(value), (0...10_000).contains(capacity) else { throw Invalid(description: "\(name) must be 0…10000") }
            decodeQueueCapacity = capacity
        case "HOSTED_CONNECTION_TIMEOUT":
            guard let seconds = Int(value), (1...3600).contains(seconds) else { throw Invalid(description: "\(name) must be 1…3600 seconds") }
            connectionTimeoutSeconds = seconds
        case "HOSTED_HEADER_TIMEOUT":
            guard let seconds = Int(value), (1...3600).contains(seconds) else { throw Invalid(description: "\(name) must be 1…3600 seconds") }
            headerTimeoutSeconds = seconds
        case "HOSTED_MIN_BODY_RATE":
            guard let rate = Int(value), (0...(1 << 30)).contains(rate) else {
                throw Invalid(description: "\(name) must be 0…1073741824 bytes per second")
            }
            minimumBodyBytesPerSecond = rate
        case "HOSTED_SWEEP_INTERVAL":
            guard let seconds = Int(value), (1...86_400).contains(seconds) else { throw Invalid(description: "\(name) must be 1…86400 seconds") }
            sweepIntervalSeconds = TimeInterval(seconds)
        case "HOSTED_WEBHOOK_RETRY_SCHEDULE":
            guard let schedule = RetrySchedule(parsing: value) else {
                throw Invalid(description: "\(name) must be 1…20 comma-separated whole seconds, each at most 2592000")
            }
            webhookRetrySchedule = schedule
        case "HOSTED_WEBHOOK_TIMEOUT":
            guard let seconds = Int(value), (1...300).contains(seconds) else { throw Invalid(description: "\(name) must be 1…300 seconds") }
            webhookTimeoutSeconds = TimeInterval(seconds)
        case "HOSTED_WEBHOOK_HOSTS_FILE":
            guard !value.isEmpty else { throw Invalid(description: "\(name) must be a file path") }
            webhookHostsFile = value
        case "HOSTED_SHUTDOWN_DELAY":
            guard let seconds = Int(value), (0...120).contains(seconds) else { throw Invalid(description: "\(name) must be 0…120 seconds") }
            shutdownDelaySeconds = TimeInterval(seconds)
        case "HOSTED_METRICS_LISTEN":
            guard let address = ListenAddress(value) else {
                throw Invalid(description: "\(name) must be ADDRESS:PORT, e.g. 127.0.0.1:9090")
            }
            metricsListen = address
        case "HOSTED_MAX_LONG_POLLS":
            guard let limit = Int(value), (1...100_000).contains(limit) else { throw Invalid(description: "\(name) must be 1…100000") }
            maximumLongPolls = limit
        case "HOSTED_DIGILOCKER_AUTHORIZE_URL", "HOSTED_DIGILOCKER_TOKEN_URL", "HOSTED_DIGILOCKER_API_URL":
            guard let url = URL(string: value.hasSuffix("/") ? String(value.dropLast()) : value),
                  let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && Self.isLoopback(url.host)),
                  url.host != nil, url.fragment == nil, url.user == nil
            else { throw Invalid(description: "\(name) must be an https URL (http only on a loopback address)") }
            switch name {
            case "HOSTED_DIGILOCKER_AUTHORIZE_URL": digiLocker.authorizeURL = url
            case "HOSTED_DIGILOCKER_TOKEN_URL": digiLocker.tokenURL = url
            default: digiLocker.apiURL = url
            }
        case "HOSTED_DIGILOCKER_CLIENT_ID":
            guard !value.isEmpty, value.utf8.count <= 200 else { throw Invalid(description: "\(name) must be 1…200 characters") }
            digiLocker.clientID = value
        case "HOSTED_DIGILOCKER_CLIENT_SECRET":
            guard value.utf8.count >= 8 else { throw Invalid(description: "\(name) must be at least 8 characters") }
            digiLocker.clientSecret = value
        case "HOSTED_DISABLE_MEMOS":
            var memos: Set<Memo> = []
            for entry in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
                guard let memo = Memo(rawValue: entry) else {
                    throw Invalid(description: "\(name): no memo \(entry); the names are "
                                  + Memo.allCases.map(\.rawValue).joined(separator: ", "))
                }
                memos.insert(memo)
            }
            disabledMemos = memos
        case "HOSTED_ANALYTICS":
            guard value == "on" || value == "off" else { throw Invalid(description: "\(name) must be on or off") }
            analyticsEnabled = value == "on"
        case "HOSTED_BENCH_UNSIGNED_RESULTS":
            guard value == "0" || value == "1" else { throw Invalid(description: "\(name) must be 0 or 1") }
            benchUnsignedResults = value == "1"
        case "HOSTED_PUBLIC_DIR":
            publicDirectory = URL(fileURLWithPath: value, isDirectory: true)
        default:
            // Unknown HOSTED_* variables belong to later features or to tests; they are ignored.
            _ = try applyArtifactStoreSetting(name, value: value)
        }
    }

    /// Settings that only make sense together: refused at `serve` rather than discovered by the
    /// first user who reaches the step.
    public func checkForServing() throws(Invalid) {
        let digiLockerSet = [digiLocker.authorizeURL != nil, digiLocker.tokenURL != nil, digiLocker.apiURL != nil,
                             digiLocker.clientID != nil, digiLocker.clientSecret != nil]
        if !devMode && digiLockerSet.contains(true) && digiLockerSet.contains(false) {
            throw Invalid(description: "set all of HOSTED_DIGILOCKER_AUTHORIZE_URL, _TOKEN_URL, _API_URL, _CLIENT_ID and "
                          + "_CLIENT_SECRET, or none (dev mode fills the missing ones with the simulator)")
        }
        if (smsRelayURL == nil) != (smsRelaySecret == nil) {
            throw Invalid(description: "set both HOSTED_SMS_RELAY_URL and HOSTED_SMS_RELAY_SECRET, or neither")
        }
        try checkArtifactStore()
    }

    /// Where the secret key is kept when not given in `secretKey` (nil: nowhere to look).
    public var resolvedSecretKeyFile: String? {
        if let secretKeyFile { return secretKeyFile }
        switch database {
        case .sqlite(let path):
            return ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("secret.key")
        case .postgres:
            return devMode ? "data/secret.key" : nil
        }
    }

    static func isLoopback(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return host == "localhost" || host == "[::1]" || host == "::1" || host.hasPrefix("127.")
    }

    static func defaultPublicDirectory() -> URL {
        let local = URL(fileURLWithPath: "public", isDirectory: true)
        if FileManager.default.fileExists(atPath: local.path) { return local }
        // The source tree's public/ (…/Sources/HostedApp/Wiring/Configuration.swift → …/public).
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("public", isDirectory: true)
    }
}
