import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedObservability
import HostedOutbound
import HostedStorage

/// The wired service: store, services and the HTTP responder. `main` and the tests build it the
/// same way, through `buildApplication(configuration:)`.
public struct Application: Sendable {
    public let configuration: Configuration
    public let database: any Database
    public let migrator: Migrator
    public let accounts: AccountService
    /// What `GET /metrics` shows.
    public let metrics: Metrics
    /// Operators of the console (the `hosted operators` commands use it).
    public let console: ConsoleService
    public let responder: any HTTPResponder
    public let log: any ServerLog
    let longPoll: LongPoll
    /// Every route served, as (method, pattern).
    public let routeTable: [(method: String, pattern: String)]

    let changes: any ChangeFeed
    let background: BackgroundWork
    let webhooks: WebhookDispatcher

    let draining: DrainFlag
    /// The threads uploads are decoded on.
    let decodes: DecodeQueue
    /// The answers kept for repeated creates (tests look at how many).
    let repeatedCreates: RepeatedCreates

    /// Readiness (`/readyz`) answers 503 from now on, while everything else is still served:
    /// the first step of stopping, so a balancer that checks readiness stops sending here.
    public func beginDraining() { draining.set() }

    /// Answers waiting long-polls at once (call when shutting down).
    public func releaseWaiters() { longPoll.closeAll() }

    /// Starts this process's share of the background work (`serve` does; tests call
    /// `runBackgroundWork()` instead, to decide when it happens).
    public func startBackgroundWork() {
        background.start()
        webhooks.start()
    }

    /// One pass of the background work on the calling thread: queued SMS sent, expired rows pruned.
    public func runBackgroundWork() { background.runOnce() }

    /// Every webhook attempt due now, made on the calling thread (tests); returns how many.
    @discardableResult
    public func runWebhookDeliveries() -> Int { webhooks.deliverDueNow() }

    /// Stops listening for changes and closes the store.
    public func close() {
        background.stop()
        webhooks.stop()
        longPoll.closeAll()
        decodes.stop()
        changes.stop()
        database.close()
    }

    /// A server for this application on the configured address.
    public func makeServer() -> HTTPServer {
        HTTPServer(configuration: .init(host: configuration.listen.host, port: configuration.listen.port,
                                        threads: configuration.threads,
                                        connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
                                        headerTimeoutSeconds: configuration.headerTimeoutSeconds,
                                        connectionsPerAddress: configuration.connectionsPerAddress,
                                        maximumBufferedBytes: configuration.maximumBufferedBytes,
                                        minimumBodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
                                        trustedProxies: TrustedProxies(configuration.trustedProxies)),
                   responder: responder, log: log, metrics: metrics)
    }

    /// The server of `GET /metrics` on `HOSTED_METRICS_LISTEN`, if it is set.
    public func makeMetricsServer() -> HTTPServer? {
        guard let address = configuration.metricsListen else { return nil }
        return HTTPServer(configuration: .init(host: address.host, port: address.port, threads: 2, connectionTimeoutSeconds: 15,
                                               connectionsPerAddress: 16, maximumBufferedBytes: 1 << 20),
                          responder: ServiceMetrics.responder(metrics), log: log)
    }
}

/// Opens the store, applies pending migrations (when `migrate` is true) and builds the routes.
public func buildApplication(configuration: Configuration, migrate: Bool = true,
                             log: any ServerLog = StandardErrorLog(),
                             clock: any WallClock = SystemWallClock(),
                             random: any RandomSource = SecureRandom()) throws -> Application {
    // The key first: a node that would run without one must not touch the database at all.
    let secretKey = try SecretKey.load(configuration, random: random)
    let database = try configuration.database.open(poolSize: configuration.databasePoolSize)
    let migrator = try Migrator(dialect: database.dialect)
    if migrate { try migrator.migrate(database, clock: clock) }
    let accounts = AccountService(database: database, clock: clock, random: random)
    let changes: any ChangeFeed = switch configuration.database {
    case .postgres(let url): PostgresChangeFeed(url: url, database: database)
    case .sqlite: LocalChangeFeed()
    }
    let longPoll = LongPoll(feed: changes, limitPerOwner: configuration.maximumLongPolls)
    let metrics = Metrics()
    ServiceMetrics.registerGauges(metrics, database: database, longPoll: longPoll, clock: clock)
    let guards = APIGuards(idempotency: IdempotencyStore(database: database), clock: clock)
    let policy = ReturnURLPolicy(devMode: configuration.devMode)
    let workflows = WorkflowStore(database: database)
    let returnURLs = ReturnURLStore(database: database)
    let registry = ReturnURLRegistry(store: returnURLs, policy: policy, random: random, clock: clock)
    let events = EventStore(database: database, random: random)
    let verifications = VerificationStore(database: database, changes: changes, events: events, clock: clock)
    let files = StaticFiles(root: configuration.publicDirectory)
    let signInStore = SignInStore(database: database)
    let sender: any SMSSender = if configuration.devMode {
        OutboxSMSSender(store: signInStore, clock: clock, random: random)
    } else if let url = configuration.smsRelayURL, let secret = configuration.smsRelaySecret {
        RelaySMSSender(url: url, secret: secret, clock: clock)
    } else {
        UnconfiguredSMSSender()
    }
    let rateLimits = RateLimitStore(database: database)
    let smsBox = SecretBox.derive(from: secretKey.bytes(), label: "hosted/sms-queue/v1")
    let background = BackgroundWork(
        sms: SMSDelivery(queue: SMSQueueStore(database: database), sender: sender, box: smsBox, clock: clock, log: log, metrics: metrics),
        verifications: verifications, pruning: PruningStore(database: database), clock: clock, log: log,
        sweepInterval: configuration.sweepIntervalSeconds)
    let signIn = SignInService(store: signInStore, verifications: verifications, workflows: workflows, returnURLs: returnURLs, policy: policy,
                               rateLimits: rateLimits, sender: sender, codeKey: secretKey,
                               numberHashKey: SignInService.numberHashKey(from: secretKey), smsBox: smsBox,
                               codeQueued: { background.nudge() },
                               publicURL: configuration.publicURL, clock: clock, random: random, log: log)

    var routes = Router.Builder()
    let draining = DrainFlag()
    HealthRoutes(database: database, migrator: migrator, draining: draining).register(in: &routes)
    AssetRoutes(files: files).register(in: &routes)
    routes.add("GET", "/v1/openapi.yaml") { request, _ in
        try files.response(for: configuration.publicDirectory.appendingPathComponent("openapi.yaml"), request: request)
    }
    // The customer API, behind API-key authentication (a body is read only for a live key).
    let renderedVerifications = ReadMemo<VerificationRoutes.Rendered>()
    changes.subscribe { key in renderedVerifications.forget(key) }
    // Only SQLite keeps answers to repeats (PostgreSQL has no count of local commits to check).
    let repeatedCreates = RepeatedCreates(capacity: database.localCommits == nil ? 0 : 1024)
    changes.subscribe { _ in repeatedCreates.forgetAll() }
    let verificationRoutes = VerificationRoutes(
        guards: guards,
        service: VerificationService(verifications: verifications, workflows: workflows, returnURLs: returnURLs,
                                     policy: policy, clock: clock, random: random),
        store: verifications, longPoll: longPoll,
        verificationJSON: APIObjects.VerificationJSON(publicURL: configuration.publicURL), clock: clock,
        pollRate: configuration.pollRate, pollBurst: configuration.pollBurst, pollLeases: PollLeases(rate: configuration.pollRate, burst: configuration.pollBurst),
        rendered: renderedVerifications, repeats: repeatedCreates)
    let apiKeys = APIKeyAuthentication(accounts: accounts)
    routes.group(apiKeys) { routes in
        AccountRoutes().register(in: &routes)
        WorkflowRoutes(guards: guards, workflows: workflows, clock: clock, devMode: configuration.devMode).register(in: &routes)
        ReturnURLRoutes(guards: guards, registry: registry).register(in: &routes)
        verificationRoutes.register(in: &routes)
        HandoffRoutes(guards: guards, signIn: signIn).register(in: &routes)
        EventRoutes(guards: guards, verifications: verifications, events: events).register(in: &routes)
    }
    let cookies = JourneyCookies(publicURL: configuration.publicURL)
    let journey = JourneyRoutes(signIn: signIn, files: files, publicDirectory: configuration.publicDirectory,
                                publicURL: configuration.publicURL, trustedProxies: TrustedProxies(configuration.trustedProxies),
                                cookies: cookies)
    journey.register(in: &routes)
    let artifacts = ArtifactStore(database: database)
    let decodes = DecodeQueue(normalizer: try VipsImageNormalizer(), threads: configuration.decodeThreads,
                              capacity: configuration.decodeQueueCapacity)
    let journeyService = JourneyService(verifications: verifications, workflows: workflows, artifacts: artifacts,
                                        decodes: decodes, returnURLs: registry,
                                        clock: clock, random: random)
    let digiLockerStore = DigiLockerStore(database: database)
    let digiLocker = configuration.digiLocker.resolved(publicURL: configuration.publicURL, devMode: configuration.devMode)
    let digiLockerRoutes = DigiLockerRoutes(
        service: DigiLockerService(store: digiLockerStore, journey: journeyService, rateLimits: rateLimits,
                                   provider: digiLocker.map(DigiLockerProvider.init), key: secretKey, clock: clock, random: random),
        log: log, cookies: cookies, publicURL: configuration.publicURL)
    // Signed-in journey calls: a body (an 8 MB photo) is read only from the page's origin with a live session.
    let continuations = ContinuationRoutes(
        service: ContinuationService(store: ContinuationStore(database: database), signIn: signIn, journey: journeyService,
                                     verifications: verifications, rateLimits: rateLimits, sender: sender, smsBox: smsBox,
                                     publicURL: configuration.publicURL, clock: clock, random: random,
                                     messageQueued: { background.nudge() }),
        longPoll: longPoll, cookies: cookies)
    routes.group(SameOrigin(publicURL: configuration.publicURL)) { routes in
        routes.group(JourneySessionAuthentication(signIn: signIn)) { routes in
            JourneyStepRoutes(service: journeyService).register(in: &routes)
            digiLockerRoutes.registerStart(in: &routes)
            continuations.registerSignedIn(in: &routes)
        }
        continuations.registerOpen(in: &routes)
    }
    digiLockerRoutes.registerCallback(in: &routes)
    let reviewNotes = ReviewNoteStore(database: database)
    let decisions = DecisionService(verifications: verifications, notes: reviewNotes, clock: clock, random: random)
    routes.group(apiKeys) { routes in
        DecisionRoutes(guards: guards, decisions: decisions, verifications: verifications, artifacts: artifacts,
                       respond: { verificationRoutes.respond($0, status: $1) }).register(in: &routes)
    }
    // The operator console: its own session cookie, and the same decision rules as the API.
    let operatorStore = OperatorStore(database: database)
    let console = ConsoleService(operators: operatorStore, rateLimits: rateLimits, secretKey: secretKey, publicURL: configuration.publicURL,
                                 clock: clock, random: random)
    ConsoleRoutes(console: console,
                  review: ConsoleReview(verifications: verifications, workflows: workflows, artifacts: artifacts, events: events,
                                        notes: reviewNotes, operators: operatorStore,
                                        thumbnails: try VipsImageNormalizer(maximumEdge: 960, quality: 80)),
                  decisions: decisions, files: files, publicDirectory: configuration.publicDirectory,
                  publicURL: configuration.publicURL, trustedProxies: TrustedProxies(configuration.trustedProxies)).register(in: &routes)
    let webhookStore = WebhookStore(database: database)
    let resolver: any HostResolver = if configuration.devMode, let file = configuration.webhookHostsFile {
        HostsFileResolver(path: file)
    } else {
        SystemResolver()
    }
    let webhookService = WebhookService(store: webhookStore,
                                        box: SecretBox.derive(from: secretKey.bytes(), label: "hosted/webhook-secrets/v1"),
                                        policy: WebhookURLPolicy(devMode: configuration.devMode), resolver: resolver,
                                        clock: clock, random: random)
    let webhooks = WebhookDispatcher(service: webhookService,
                                     client: PinnedHTTPClient(timeout: configuration.webhookTimeoutSeconds, devMode: configuration.devMode),
                                     schedule: configuration.webhookRetrySchedule, log: log, metrics: metrics)
    changes.subscribe { key in
        if key == nil || key == WebhookStore.wakeKey { webhooks.nudge() }
    }
    routes.group(apiKeys) { routes in
        WebhookRoutes(guards: guards, service: webhookService, wake: { changes.publish(WebhookStore.wakeKey) }).register(in: &routes)
    }
    if configuration.devMode {
        DevRoutes(store: signInStore, webhooks: webhookStore).register(in: &routes)
        if let digiLocker {
            DigiLockerSimulatorRoutes(store: digiLockerStore, endpoints: digiLocker, clock: clock, random: random).register(in: &routes)
        }
    }
    let router = routes.build()
    return Application(configuration: configuration, database: database, migrator: migrator, accounts: accounts, metrics: metrics,
                       console: console,
                       responder: ErrorBoundary(next: router, log: log), log: log, longPoll: longPoll, routeTable: router.table,
                       changes: changes, background: background, webhooks: webhooks, draining: draining, decodes: decodes,
                       repeatedCreates: repeatedCreates)
}
