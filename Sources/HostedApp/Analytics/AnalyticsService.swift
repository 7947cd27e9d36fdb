import Dispatch
import Foundation
import HostedCore
import HostedObservability
import HostedStorage

/// Journey analytics' front door: it records the journey's signals and reads the funnel.
///
/// A signal never blocks or slows the journey: the request only adds one to a count held in
/// memory (under a lock, no I/O) and goes on. This process's recording queue writes what has
/// gathered every `flushInterval` (50 ms): one upsert per distinct count, `count = count + n`,
/// so a burst of page views costs a handful of statements, not one each. A failure is logged
/// (never the user's problem) and counted in `hosted_analytics_signals_dropped_total`; at most
/// `backlogLimit` distinct counts wait, beyond that new ones are dropped (memory stays bounded
/// when the database is slow). What a crash loses is at most the last interval's counts.
/// Reads write what is waiting first, so an answer includes every signal this process was
/// handed before it.
///
/// `@unchecked Sendable`: `pending`, `firsts`, `noted`, `scheduled` and `workflowLabels` are
/// only touched while holding `lock`; the rest is immutable or thread-safe.
final class AnalyticsService: @unchecked Sendable {
    let store: AnalyticsStore
    let clock: any WallClock
    let log: any ServerLog
    let metrics: Metrics
    /// `HOSTED_ANALYTICS=off` records nothing (for the benchmark, or a deployment that wants none).
    let enabled: Bool

    static let backlogLimit = 10_000
    static let flushInterval: TimeInterval = 0.05
    /// Distinct workflows named in `hosted_journey_stage_total`; later ones count as `other`.
    static let workflowLabelLimit = 50
    /// First views this process has already written, so a reload costs no statement at all.
    static let notedLimit = 50_000

    /// Whose count it is: a verification the caller holds, or only its id (the page served, a
    /// sign-in), whose account, workflow and version the upsert reads from its row.
    enum Owner: Hashable {
        case known(account: String, livemode: Bool, workflow: String, version: Int)
        case verification(String)
    }

    struct CountKey: Hashable {
        let owner: Owner
        let signal: AnalyticsStore.Signal
        let day: AnalyticsDay
    }

    struct FirstKey: Hashable {
        let verificationID: String
        let step: String
        let deviceClass: DeviceClass
    }

    private let queue = DispatchQueue(label: "hosted.analytics")
    private let lock = NSLock()
    private var pending: [CountKey: Int] = [:]
    /// First views waiting to be written, with their time; `opened` is counted only for one
    /// that turns out to be the first.
    private var firsts: [FirstKey: Date] = [:]
    private var noted: Set<FirstKey> = []
    private var scheduled = false
    private var workflowLabels: Set<String> = []

    init(store: AnalyticsStore, clock: any WallClock, log: any ServerLog, metrics: Metrics, enabled: Bool) {
        self.store = store
        self.clock = clock
        self.log = log
        self.metrics = metrics
        self.enabled = enabled
    }

    // MARK: Signals the server sees

    /// The journey page was served for `verificationID` (an unknown id counts nothing), counted
    /// once per verification and device class: a reload is not a new visit.
    func opened(verificationID: String, userAgent: String?, referer: String?) {
        note(first: FirstKey(verificationID: verificationID, step: "", deviceClass: DeviceClass(userAgent: userAgent, referer: referer)))
    }

    /// A sign-in on the journey (a handoff or an SMS code), before a session names the workflow.
    func signedIn(verificationID: String, userAgent: String?) {
        add(.verification(verificationID), .init(.signedIn, deviceClass: DeviceClass(userAgent: userAgent)))
    }

    /// A signal of a signed-in journey: a step viewed or completed, the camera unavailable,
    /// continuing elsewhere, the submit.
    func record(_ signal: JourneySignal, step: String = "", in verification: Verification, userAgent: String?) {
        let device = DeviceClass(userAgent: userAgent)
        if signal == .stepViewed { note(first: FirstKey(verificationID: verification.id.rawValue, step: step, deviceClass: device)) }
        add(owner(of: verification), .init(signal, step: step, deviceClass: device))
    }

    /// A photo taken out of its step (`DELETE …/images/{artifact}`): a retake, counted once per
    /// reason when the photo had failed its checks. `verification` is as it was before the removal.
    func removed(photo artifactID: String, step stepID: String, in verification: Verification, userAgent: String?) {
        guard let step = verification.steps.first(where: { $0.id == stepID }),
              let quality = step.captures.first(where: { $0.id == artifactID })?.quality, !quality.passed
        else { return }
        let device = DeviceClass(userAgent: userAgent)
        for reason in quality.reasons {
            add(owner(of: verification), .init(.captureRetake, step: stepID, reason: reason.rawValue, deviceClass: device))
            // Labelled by the step's type, not its id: a customer names its steps, the set of types is fixed.
            if enabled {
                metrics.increment("hosted_capture_retakes_total", help: "Photos replaced after a failed capture check, by step type and reason.",
                                  labels: [("step", step.type.rawValue), ("reason", reason.rawValue)])
            }
        }
    }

    // MARK: Reading

    /// The funnel of `tenancy`'s verifications created in `range` (one workflow, or all).
    func funnel(tenancy: Tenancy, workflowKey: String?, range: AnalyticsRange) throws -> JourneyFunnel {
        flush()
        return try store.funnel(tenancy: tenancy, workflowKey: workflowKey, range: range)
    }

    /// The account's workflow keys (the console's filter offers them).
    func workflowKeys(accountID: ObjectID) throws -> [String] {
        try store.workflowKeys(accountID: accountID.rawValue)
    }

    /// The range a query asks for (UTC days, the last 30 by default), or nil with its field errors.
    func range(from: String?, to: String?, errors: inout [FieldError]) -> AnalyticsRange? {
        AnalyticsRange.parse(from: from, to: to, today: AnalyticsDay(clock.now()), errors: &errors)
    }

    /// Writes every signal handed to this process so far.
    func flush() {
        queue.sync { write() }
    }

    // MARK: Gathering and writing

    private func owner(of verification: Verification) -> Owner {
        .known(account: verification.accountID.rawValue, livemode: verification.livemode, workflow: verification.workflowKey,
               version: verification.workflowVersion)
    }

    private func add(_ owner: Owner, _ signal: AnalyticsStore.Signal) {
        guard enabled else { return }
        let key = CountKey(owner: owner, signal: signal, day: AnalyticsDay(clock.now()))
        lock.lock()
        let admitted = pending[key] != nil || pending.count + firsts.count < Self.backlogLimit
        if admitted { pending[key, default: 0] += 1 }
        let schedule = admitted && !scheduled
        if schedule { scheduled = true }
        lock.unlock()
        if !admitted { return dropped("backlog", 1) }
        if schedule { queue.asyncAfter(deadline: .now() + Self.flushInterval) { [self] in write() } }
    }

    private func note(first key: FirstKey) {
        guard enabled else { return }
        let now = clock.now()
        lock.lock()
        let known = noted.contains(key) || firsts[key] != nil
        let admitted = known || pending.count + firsts.count < Self.backlogLimit
        if !known && admitted { firsts[key] = now }
        let schedule = !known && admitted && !scheduled
        if schedule { scheduled = true }
        lock.unlock()
        if !admitted { return dropped("backlog", 1) }
        if schedule { queue.asyncAfter(deadline: .now() + Self.flushInterval) { [self] in write() } }
    }

    /// On the queue: takes what has gathered and writes it.
    private func write() {
        lock.lock()
        let (counts, views) = (pending, firsts)
        (pending, firsts, scheduled) = ([:], [:], false)
        if noted.count + views.count > Self.notedLimit { noted.removeAll(keepingCapacity: true) }
        noted.formUnion(views.keys)
        lock.unlock()
        for (key, at) in views {
            attempt(1) {
                guard try store.noteFirst(verificationID: key.verificationID, step: key.step, deviceClass: key.deviceClass, at: at),
                      key.step.isEmpty
                else { return }
                if let workflow = try store.count(.init(.opened, deviceClass: key.deviceClass), verificationID: key.verificationID, at: at) {
                    stage(.opened, workflow: workflow, by: 1)
                }
            }
        }
        for (key, amount) in counts {
            attempt(amount) {
                switch key.owner {
                case .known(let account, let livemode, let workflow, let version):
                    try store.count(key.signal, accountID: account, livemode: livemode, workflowKey: workflow, workflowVersion: version, at: key.day.start,
                                    by: amount)
                    if key.signal.signal.isStage { stage(key.signal.signal, workflow: workflow, by: amount) }
                case .verification(let id):
                    if let workflow = try store.count(key.signal, verificationID: id, at: key.day.start, by: amount), key.signal.signal.isStage {
                        stage(key.signal.signal, workflow: workflow, by: amount)
                    }
                }
            }
        }
    }

    private func attempt(_ amount: Int, _ write: () throws -> Void) {
        do {
            try write()
        } catch {
            // Never the user's problem: the journey has long moved on.
            log.error("journey analytics: \(amount) signal(s) not recorded: \(error)", requestID: nil)
            dropped("error", amount)
        }
    }

    private func dropped(_ why: String, _ amount: Int) {
        metrics.increment("hosted_analytics_signals_dropped_total", help: "Journey signals not recorded, by why (backlog, error).",
                          labels: [("why", why)], by: Double(amount))
    }

    /// `hosted_journey_stage_total`, with at most `workflowLabelLimit` workflow names.
    private func stage(_ signal: JourneySignal, workflow: String, by amount: Int) {
        var name = workflow
        lock.lock()
        if !workflowLabels.contains(name) {
            if workflowLabels.count < Self.workflowLabelLimit { workflowLabels.insert(name) } else { name = "other" }
        }
        lock.unlock()
        metrics.increment("hosted_journey_stage_total", help: "Journeys reaching a stage (opened, signed_in, submitted), by workflow.",
                          labels: [("workflow", name), ("stage", signal.rawValue)], by: Double(amount))
    }
}
