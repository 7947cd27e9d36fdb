import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedObservability
import HostedOutbound
import HostedStorage

/// Opens the store, applies pending migrations (when `migrate` is true) and builds the routes:
/// the shared parts first (`Foundations`), then one factory per feature, each registering its
/// routes behind the middleware it needs.
public func buildApplication(configuration: Configuration, migrate: Bool = true,
                             log: any ServerLog = StandardErrorLog(),
                             clock: any WallClock = SystemWallClock(),
                             random: any RandomSource = SecureRandom()) throws -> Application {
    // Before any thread of the server exists (docs/security.md, "Uploads are decoded and re-encoded").
    ProcessMemory.limitAllocatorArenas()
    // The key first: a node that would run without one must not touch the database at all.
    let secretKey = try SecretKey.load(configuration, random: random)
    try configuration.checkArtifactStore()
    let database = try configuration.database.open(poolSize: configuration.databasePoolSize)
    let migrator = try Migrator(dialect: database.dialect)
    if migrate { try migrator.migrate(database, clock: clock) }
    let base = Foundations(configuration: configuration, database: database, secretKey: secretKey, clock: clock, random: random, log: log)
    // Rows written before migration 0029 are sealed before anything is answered.
    if migrate { while try base.verifications.sealUnsealed() > 0 {} }

    var routes = Router.Builder()
    let draining = DrainFlag()
    base.registerOperations(migrator: migrator, draining: draining, in: &routes)
    let messaging = base.makeMessaging()
    let signIn = base.makeSignIn(messaging: messaging)
    let verifications = base.makeVerifications()
    let results = base.makeResultSigning()
    // One key made at start if none exists (any number of nodes at once: see SigningKeyStore).
    if migrate { try results.ensureKey() }
    let journey = try base.makeJourney(signIn: signIn, results: results)
    let background = messaging.background
    let decisions = DecisionService(verifications: base.verifications, notes: ReviewNoteStore(database: database, sealing: base.sealing), workflows: base.workflows,
                                    smsBox: messaging.box, publicURL: configuration.publicURL, messageQueued: { background.nudge() },
                                    clock: clock, random: random)
    let webhooks = base.makeWebhooks()
    let analytics = base.makeAnalytics()
    let branding = try base.makeBranding()
    let accountRoutes = AccountRoutes(branding: branding, accounts: base.accounts, guards: base.guards)
    routes.group(base.apiKeys) { routes in
        accountRoutes.register(in: &routes)
        WorkflowRoutes(guards: base.guards, service: WorkflowService(workflows: base.workflows, clock: clock,
                                                                    devMode: configuration.devMode)).register(in: &routes)
        ReturnURLRoutes(guards: base.guards, registry: base.registry).register(in: &routes)
        VerificationRoutes(guards: base.guards, service: verifications.service, reads: verifications).register(in: &routes)
        ArtifactRoutes(guards: base.guards, service: verifications.service).register(in: &routes)
        HandoffRoutes(guards: base.guards, signIn: signIn).register(in: &routes)
        EventRoutes(guards: base.guards, service: EventService(verifications: base.verifications, events: base.events)).register(in: &routes)
        DecisionRoutes(guards: base.guards, decisions: decisions, reads: verifications).register(in: &routes)
        WebhookRoutes(guards: base.guards, service: webhooks.service, wake: { base.changes.publish(WebhookStore.wakeKey) })
            .register(in: &routes)
        TestHelperRoutes(service: SimulationService(verifications: base.verifications, workflows: base.workflows, journey: journey.service,
                                                    samples: .load(from: configuration.publicDirectory), clock: clock, random: random),
                         reads: verifications).register(in: &routes)
    }
    JourneyRoutes(signIn: signIn, files: base.files, publicDirectory: configuration.publicDirectory, publicURL: configuration.publicURL,
                  trustedProxies: base.trustedProxies, cookies: base.cookies, analytics: analytics).register(in: &routes)
    base.registerJourneyAPI(journey: journey, signIn: signIn, messaging: messaging, analytics: analytics, in: &routes)
    let console = ConsoleService(operators: base.operators, rateLimits: base.rateLimits, secretKey: secretKey,
                                 publicURL: configuration.publicURL, clock: clock, random: random)
    try base.registerConsole(console, decisions: decisions, in: &routes)
    base.registerAnalytics(analytics, console: console, in: &routes)
    base.registerBranding(branding, decodes: journey.decodes, console: console, accounts: accountRoutes, in: &routes)
    base.registerEvidence(base.makeEvidence(signer: results.detachedSignature(over:)), console: console, in: &routes)
    base.registerResults(results, in: &routes)
    if configuration.devMode { base.registerDev(in: &routes) }
    let router = routes.build()
    return Application(configuration: configuration, database: database, migrator: migrator, accounts: base.accounts,
                       metrics: base.metrics, console: console,
                       responder: ErrorBoundary(next: router, log: log), log: log, longPoll: base.longPoll, routeTable: router.table,
                       changes: base.changes, background: messaging.background, webhooks: webhooks.dispatcher, draining: draining,
                       decodes: journey.decodes, repeatedCreates: verifications.repeats)
}

/// What every feature is built from: the configuration, the store and its change feed, the
/// stores more than one feature reads, the clock, randomness, log and metrics.
struct Foundations {
    let configuration: Configuration
    let database: any Database
    let secretKey: SecretKey
    let clock: any WallClock
    let random: any RandomSource
    let log: any ServerLog
    let metrics = Metrics()
    let changes: any ChangeFeed
    let longPoll: LongPoll
    let accounts: AccountService
    let apiKeys: APIKeyAuthentication
    let guards: APIGuards
    let policy: ReturnURLPolicy
    let registry: ReturnURLRegistry
    let workflows: WorkflowStore
    let returnURLs: ReturnURLStore
    let events: EventStore
    /// Seals personal fields, notes, stored answers and database artifacts with each verification's data key.
    let sealing: PersonalSealing
    let verifications: VerificationStore
    let artifacts: ArtifactStore
    let rateLimits: RateLimitStore
    let operators: OperatorStore
    let files: StaticFiles
    let cookies: JourneyCookies
    let trustedProxies: TrustedProxies

    init(configuration: Configuration, database: any Database, secretKey: SecretKey, clock: any WallClock, random: any RandomSource,
         log: any ServerLog) {
        self.configuration = configuration
        self.database = database
        self.secretKey = secretKey
        self.clock = clock
        self.random = random
        self.log = log
        sealing = PersonalSealing(secretKey: secretKey.bytes(), random: random)
        changes = switch configuration.database {
        case .postgres(let url): PostgresChangeFeed(url: url, database: database)
        case .sqlite: LocalChangeFeed()
        }
        longPoll = LongPoll(feed: changes, limitPerOwner: configuration.maximumLongPolls)
        accounts = AccountService(database: database, clock: clock, random: random, remembersCallers: configuration.keeps(.callers))
        apiKeys = APIKeyAuthentication(accounts: accounts)
        guards = APIGuards(idempotency: IdempotencyStore(database: database, sealing: sealing), clock: clock)
        policy = ReturnURLPolicy(devMode: configuration.devMode)
        workflows = WorkflowStore(database: database, keepsDecodedSteps: configuration.keeps(.steps))
        returnURLs = ReturnURLStore(database: database)
        registry = ReturnURLRegistry(store: returnURLs, policy: policy, random: random, clock: clock)
        events = EventStore(database: database, random: random)
        var memos = VerificationStore.Memos()
        (memos.decodedRows, memos.localReads, memos.openReads) = (configuration.keeps(.rows), configuration.keeps(.localReads),
                                                                  configuration.keeps(.open))
        verifications = VerificationStore(database: database, changes: changes, sealing: sealing, events: events, clock: clock, memos: memos)
        artifacts = ArtifactStore(database: database, keys: sealing.keys, objects: Self.artifactObjects(configuration, database: database, keys: sealing.keys,
                                                                                    log: log))
        rateLimits = RateLimitStore(database: database)
        operators = OperatorStore(database: database)
        files = StaticFiles(root: configuration.publicDirectory, keepsGzipCopies: configuration.keeps(.gzip))
        cookies = JourneyCookies(publicURL: configuration.publicURL)
        trustedProxies = TrustedProxies(configuration.trustedProxies)
        ServiceMetrics.registerGauges(metrics, database: database, queues: QueueStatisticsStore(database: database), longPoll: longPoll,
                                      clock: clock)
    }
}
