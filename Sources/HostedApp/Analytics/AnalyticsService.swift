import Dispatch
import Foundation
import HostedCore
import HostedObservability
import HostedStorage

/// Journey analytics' front door: it records the journey's signals and reads the funnel. A
/// signal never blocks or slows the journey: the request only hands it to this process's
/// recording queue (one serial queue, at most `backlogLimit` waiting) and goes on; the queue
/// writes it with one upsert, and a failure is logged (never the user's problem) and counted in
/// `hosted_analytics_signals_dropped_total`. Reads wait for this process's queue first, so an
/// answer includes every signal this process was handed before it.
///
/// `@unchecked Sendable`: `pending` and `workflowLabels` are only touched while holding `lock`;
/// the rest is immutable or thread-safe (the store, the metrics, the queue).
final class AnalyticsService: @unchecked Sendable {
    let store: AnalyticsStore
    let clock: any WallClock
    let log: any ServerLog
    let metrics: Metrics
    /// `HOSTED_ANALYTICS=off` records nothing (for the benchmark, or a deployment that wants none).
    let enabled: Bool

    /// Signals waiting beyond this are dropped rather than held: memory stays bounded when the
    /// database is slow.
    static let backlogLimit = 10_000
    /// Distinct workflows named in `hosted_journey_stage_total`; later ones count as `other`.
    static let workflowLabelLimit = 50

    private let queue = DispatchQueue(label: "hosted.analytics")
    private let lock = NSLock()
    private var pending = 0
    private var workflowLabels: Set<String> = []

    init(store: AnalyticsStore, clock: any WallClock, log: any ServerLog, metrics: Metrics, enabled: Bool) {
        self.store = store
        self.clock = clock
        self.log = log
        self.metrics = metrics
        self.enabled = enabled
    }

    // MARK: Signals the server sees

    /// The journey page was served for `verificationID` (any text: an unknown id counts nothing).
    func opened(verificationID: String, userAgent: String?, referer: String?) {
        let device = DeviceClass(userAgent: userAgent, referer: referer)
        let now = clock.now()
        enqueue { [self] in
            // Once per verification and device class: a reload is not a new visit.
            guard try store.noteFirst(verificationID: verificationID, step: "", deviceClass: device, at: now) else { return }
            if let workflow = try store.count(.init(.opened, deviceClass: device), verificationID: verificationID, at: now) {
                stage(.opened, workflow: workflow)
            }
        }
    }

    /// A sign-in on the journey (a handoff or an SMS code), before a session exists to name the workflow.
    func signedIn(verificationID: String, userAgent: String?) {
        let device = DeviceClass(userAgent: userAgent)
        let now = clock.now()
        enqueue { [self] in
            if let workflow = try store.count(.init(.signedIn, deviceClass: device), verificationID: verificationID, at: now) {
                stage(.signedIn, workflow: workflow)
            }
        }
    }

    /// A signal of a signed-in journey: a step viewed or completed, the camera unavailable,
    /// continuing elsewhere, the submit.
    func record(_ signal: JourneySignal, step: String = "", in verification: Verification, userAgent: String?) {
        let device = DeviceClass(userAgent: userAgent)
        let now = clock.now()
        let (account, workflow, version, id) = (verification.accountID.rawValue, verification.workflowKey, verification.workflowVersion,
                                                verification.id.rawValue)
        enqueue { [self] in
            if signal == .stepViewed { _ = try store.noteFirst(verificationID: id, step: step, deviceClass: device, at: now) }
            try store.count(.init(signal, step: step, deviceClass: device), accountID: account, workflowKey: workflow,
                            workflowVersion: version, at: now)
            if signal.isStage { stage(signal, workflow: workflow) }
        }
    }

    /// A photo taken out of its step (`DELETE …/images/{artifact}`): a retake, counted once per
    /// reason when the photo had failed its checks. `verification` is as it was before the removal.
    func removed(photo artifactID: String, step stepID: String, in verification: Verification, userAgent: String?) {
        guard let step = verification.steps.first(where: { $0.id == stepID }),
              let quality = step.captures.first(where: { $0.id == artifactID })?.quality, !quality.passed
        else { return }
        let device = DeviceClass(userAgent: userAgent)
        let now = clock.now()
        let (account, workflow, version, type) = (verification.accountID.rawValue, verification.workflowKey, verification.workflowVersion,
                                                  step.type.rawValue)
        let reasons = quality.reasons.map(\.rawValue)
        enqueue { [self] in
            for reason in reasons {
                try store.count(.init(.captureRetake, step: stepID, reason: reason, deviceClass: device), accountID: account,
                                workflowKey: workflow, workflowVersion: version, at: now)
                // Labelled by the step's type, not its id: a customer names its steps, the set of types is fixed.
                metrics.increment("hosted_capture_retakes_total", help: "Photos replaced after a failed capture check, by step type and reason.",
                                  labels: [("step", type), ("reason", reason)])
            }
        }
    }

    // MARK: Reading

    /// The funnel of `accountID`'s verifications created in `range` (one workflow, or all).
    func funnel(accountID: ObjectID, workflowKey: String?, range: AnalyticsRange) throws -> JourneyFunnel {
        flush()
        return try store.funnel(accountID: accountID.rawValue, workflowKey: workflowKey, range: range)
    }

    /// The account's workflow keys (the console's filter offers them).
    func workflowKeys(accountID: ObjectID) throws -> [String] {
        try store.workflowKeys(accountID: accountID.rawValue)
    }

    /// The range a query asks for (UTC days, the last 30 by default), or its field errors.
    func range(from: String?, to: String?, errors: inout [FieldError]) -> AnalyticsRange? {
        AnalyticsRange.parse(from: from, to: to, today: AnalyticsDay(clock.now()), errors: &errors)
    }

    /// Waits until every signal handed to this process so far is written.
    func flush() {
        queue.sync {}
    }

    // MARK: The queue

    private func enqueue(_ write: @escaping @Sendable () throws -> Void) {
        guard enabled else { return }
        lock.lock()
        let admitted = pending < Self.backlogLimit
        if admitted { pending += 1 }
        lock.unlock()
        guard admitted else { return dropped("backlog") }
        queue.async { [self] in
            defer {
                lock.lock()
                pending -= 1
                lock.unlock()
            }
            do {
                try write()
            } catch {
                // Never the user's problem: the journey has already moved on.
                log.error("journey analytics: a signal was not recorded: \(error)", requestID: nil)
                dropped("error")
            }
        }
    }

    private func dropped(_ why: String) {
        metrics.increment("hosted_analytics_signals_dropped_total", help: "Journey signals not recorded, by why (backlog, error).",
                          labels: [("why", why)])
    }

    /// `hosted_journey_stage_total`, with at most `workflowLabelLimit` workflow names.
    private func stage(_ signal: JourneySignal, workflow: String) {
        var name = workflow
        lock.lock()
        if !workflowLabels.contains(name) {
            if workflowLabels.count < Self.workflowLabelLimit { workflowLabels.insert(name) } else { name = "other" }
        }
        lock.unlock()
        metrics.increment("hosted_journey_stage_total", help: "Journeys reaching a stage (opened, signed_in, submitted), by workflow.",
                          labels: [("workflow", name), ("stage", signal.rawValue)])
    }
}
