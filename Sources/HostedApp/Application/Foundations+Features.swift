import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedObservability
import HostedOutbound
import HostedStorage

/// One factory per feature: what it needs from `Foundations`, built in one place.
extension Foundations {
    /// Health, readiness, static assets and the OpenAPI document.
    func registerOperations(migrator: Migrator, draining: DrainFlag, in routes: inout Router.Builder) {
        HealthRoutes(database: database, migrator: migrator, draining: draining, artifactStore: artifacts.objects).register(in: &routes)
        AssetRoutes(files: files).register(in: &routes)
        let files = self.files
        let document = configuration.publicDirectory.appendingPathComponent("openapi.yaml")
        routes.add("GET", "/v1/openapi.yaml") { request, _ in try files.response(for: document, request: request) }
    }

    /// Texting: the sender the configuration names, the sealed queue and the background work
    /// that empties it (and sweeps expired rows).
    struct Messaging {
        let sender: any SMSSender
        let box: SecretBox
        let signInStore: SignInStore
        let background: BackgroundWork
    }

    func makeMessaging() -> Messaging {
        let signInStore = SignInStore(database: database)
        let sender: any SMSSender = if configuration.devMode {
            OutboxSMSSender(store: signInStore, clock: clock, random: random)
        } else if let url = configuration.smsRelayURL, let secret = configuration.smsRelaySecret {
            RelaySMSSender(url: url, secret: secret, clock: clock)
        } else {
            UnconfiguredSMSSender()
        }
        let box = SecretBox.derive(from: secretKey.bytes(), label: "hosted/sms-queue/v1")
        let background = BackgroundWork(
            sms: SMSDelivery(queue: SMSQueueStore(database: database), sender: sender, box: box, clock: clock, log: log, metrics: metrics,
                             senderName: BrandingService.senderNames(database: database)),
            verifications: verifications, pruning: PruningStore(database: database), clock: clock, log: log,
            sweepInterval: configuration.sweepIntervalSeconds, artifactSweep: artifactSweep())
        return Messaging(sender: sender, box: box, signInStore: signInStore, background: background)
    }

    func makeSignIn(messaging: Messaging) -> SignInService {
        let background = messaging.background
        return SignInService(store: messaging.signInStore, continuations: ContinuationStore(database: database), verifications: verifications, workflows: workflows, returnURLs: returnURLs,
                             policy: policy, rateLimits: rateLimits, sender: messaging.sender, codeKey: secretKey,
                             numberHashKey: SignInService.numberHashKey(from: secretKey), smsBox: messaging.box,
                             codeQueued: { background.nudge() },
                             publicURL: configuration.publicURL, clock: clock, random: random, log: log)
    }

    /// Creating and reading verifications, with the memos a read keeps (forgotten on every change).
    func makeVerifications() -> VerificationReadService {
        let rendered = ReadMemo<VerificationReadService.Rendered>(capacity: configuration.keeps(.rendered) ? 1024 : 0)
        changes.subscribe { key in rendered.forget(key) }
        // Only SQLite keeps answers to repeats (PostgreSQL has no count of local commits to check).
        let repeats = RepeatedCreates(capacity: database.localCommits == nil || !configuration.keeps(.repeats) ? 0 : 1024)
        changes.subscribe { _ in repeats.forgetAll() }
        let service = VerificationService(verifications: verifications, workflows: workflows, returnURLs: returnURLs, artifacts: artifacts,
                                          policy: policy, clock: clock, random: random)
        return VerificationReadService(service: service, store: verifications, longPoll: longPoll,
                                       verificationJSON: APIObjects.VerificationJSON(publicURL: configuration.publicURL), clock: clock,
                                       pollRate: configuration.pollRate, pollBurst: configuration.pollBurst,
                                       pollLeases: configuration.keeps(.leases) ? PollLeases(rate: configuration.pollRate, burst: configuration.pollBurst)
                                           : PollLeases(size: 1),
                                       rendered: rendered, repeats: repeats)
    }

    /// The journey's steps, with the threads photos are decoded on.
    func makeJourney(signIn: SignInService, results: ResultSigning) throws -> (service: JourneyService, decodes: DecodeQueue) {
        let decodes = DecodeQueue(normalizer: try VipsImageNormalizer(), measurer: try VipsPhotoMeasurer(),
                                  threads: configuration.decodeThreads,
                                  capacity: configuration.decodeQueueCapacity)
        return (JourneyService(verifications: verifications, workflows: workflows, artifacts: artifacts, decodes: decodes,
                               returnURLs: registry, results: results, clock: clock, random: random), decodes)
    }

    /// The journey's API: steps, DigiLocker and continuing on another device. A body (an 8 MB
    /// photo) is read only from the page's origin with a live session.
    func registerJourneyAPI(journey: (service: JourneyService, decodes: DecodeQueue), signIn: SignInService, messaging: Messaging,
                            analytics: AnalyticsService, in routes: inout Router.Builder) {
        let background = messaging.background
        let digiLockerStore = DigiLockerStore(database: database)
        let digiLocker = configuration.digiLocker.resolved(publicURL: configuration.publicURL, devMode: configuration.devMode)
        let simulator = DigiLockerSettings.simulator(publicURL: configuration.publicURL)
        let digiLockerService = DigiLockerService(store: digiLockerStore, journey: journey.service, rateLimits: rateLimits,
                                                  provider: digiLocker.map(DigiLockerProvider.init),
                                                  testProvider: DigiLockerProvider(endpoints: simulator), key: secretKey, clock: clock,
                                                  random: random)
        let digiLockerRoutes = DigiLockerRoutes(service: digiLockerService, log: log, cookies: cookies, publicURL: configuration.publicURL)
        let continuations = ContinuationRoutes(
            service: ContinuationService(store: ContinuationStore(database: database), signIn: signIn, journey: journey.service,
                                         verifications: verifications, workflows: workflows, webhooks: WebhookStore(database: database),
                                         accounts: AccountStore(database: database), rateLimits: rateLimits, sender: messaging.sender,
                                         smsBox: messaging.box, publicURL: configuration.publicURL, clock: clock, random: random,
                                         messageQueued: { background.nudge() }),
            longPoll: longPoll, cookies: cookies)
        routes.group(SameOrigin(publicURL: configuration.publicURL)) { routes in
            routes.group(JourneySessionAuthentication(signIn: signIn)) { routes in
                JourneyStepRoutes(service: journey.service, analytics: analytics).register(in: &routes)
                AnalyticsRoutes(service: analytics).registerJourney(in: &routes)
                digiLockerRoutes.registerStart(in: &routes)
                continuations.registerSignedIn(in: &routes)
            }
            continuations.registerOpen(in: &routes)
        }
        digiLockerRoutes.registerCallback(in: &routes)
        // Served in every mode: test verifications use it without dev mode; outside dev mode it
        // grants consent only to a test verification's round trip.
        let devMode = configuration.devMode
        DigiLockerSimulatorRoutes(simulator: DigiLockerSimulator(store: digiLockerStore, clock: clock, random: random),
                                  endpoints: devMode ? digiLocker ?? simulator : simulator,
                                  admits: { [digiLockerService] state in try digiLockerService.simulatorAdmits(state: state, devMode: devMode) })
            .register(in: &routes)
    }

    /// The operator console: its own session cookie, and the same decision rules as the API.
    func registerConsole(_ console: ConsoleService, decisions: DecisionService, in routes: inout Router.Builder) throws {
        let review = ConsoleReview(verifications: verifications, workflows: workflows, artifacts: artifacts, events: events,
                                   notes: decisions.notes, operators: operators,
                                   thumbnails: try VipsImageNormalizer(maximumEdge: 960, quality: 80))
        ConsoleRoutes(console: console, review: review, decisions: decisions, files: files, publicDirectory: configuration.publicDirectory,
                      publicURL: configuration.publicURL, trustedProxies: trustedProxies).register(in: &routes)
    }

    /// Webhook endpoints and the dispatcher, woken by every change to the delivery queue.
    func makeWebhooks() -> (service: WebhookService, dispatcher: WebhookDispatcher) {
        let resolver: any HostResolver = if configuration.devMode, let file = configuration.webhookHostsFile {
            HostsFileResolver(path: file)
        } else {
            SystemResolver()
        }
        let service = WebhookService(store: WebhookStore(database: database),
                                     box: SecretBox.derive(from: secretKey.bytes(), label: "hosted/webhook-secrets/v1"),
                                     policy: WebhookURLPolicy(devMode: configuration.devMode), resolver: resolver,
                                     clock: clock, random: random)
        let dispatcher = WebhookDispatcher(service: service,
                                           client: PinnedHTTPClient(timeout: configuration.webhookTimeoutSeconds, devMode: configuration.devMode),
                                           schedule: configuration.webhookRetrySchedule, log: log, metrics: metrics)
        changes.subscribe { key in
            if key == nil || key == WebhookStore.wakeKey { dispatcher.nudge() }
        }
        return (service, dispatcher)
    }

    /// Dev mode only: the SMS outbox and the newest webhook messages.
    func registerDev(in routes: inout Router.Builder) {
        DevRoutes(service: DevService(signIn: SignInStore(database: database), webhooks: WebhookStore(database: database)))
            .register(in: &routes)
    }
}
