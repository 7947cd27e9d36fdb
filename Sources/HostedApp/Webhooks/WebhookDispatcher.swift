import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedObservability
import HostedOutbound
import HostedStorage

/// Delivers webhook messages, in every `serve` process. One thread leases due attempts from the
/// store and hands each to a worker; at most `maximumInFlight` run at once in the process and at
/// most `perEndpoint` to one endpoint, so a slow endpoint holds its own share and no more; the
/// store leases accounts in turn and at most `perAccount` attempts of one account at once in
/// all processes, so one account's slow receivers leave the other slots to the others. It
/// wakes when a message is queued anywhere (the change feed: `NOTIFY` on PostgreSQL), else
/// every half second for retries that have come due. Each attempt re-checks the URL and the
/// addresses its host resolves to, connects only to the address it checked, signs with a
/// fresh timestamp, and records the outcome while it still holds the lease; a process that
/// dies mid-attempt leaves the lease to run out, and another attempt is made — at least once,
/// never lost.
///
/// `@unchecked Sendable`: `inFlight` and `total` are only touched while holding `lock`,
/// `pending` while holding `condition`.
final class WebhookDispatcher: @unchecked Sendable {
    let service: WebhookService
    let client: PinnedHTTPClient
    let schedule: RetrySchedule
    let log: any ServerLog
    let maximumInFlight: Int
    let perEndpoint: Int
    let perAccount: Int

    private let lock = NSLock()
    private let condition = NSCondition()
    private var pending = false
    private let thread = ServiceThread(name: "hosted.webhooks")
    private var inFlight: [String: Int] = [:]
    private var total = 0
    private let finished = DispatchGroup()

    /// Attempts by result.
    let metrics: Metrics?

    init(service: WebhookService, client: PinnedHTTPClient, schedule: RetrySchedule, log: any ServerLog,
         maximumInFlight: Int = 16, perEndpoint: Int = 4, perAccount: Int = WebhookEndpoint.inFlightPerAccount,
         metrics: Metrics? = nil) {
        self.metrics = metrics
        self.service = service
        self.client = client
        self.schedule = schedule
        self.log = log
        self.maximumInFlight = maximumInFlight
        self.perEndpoint = perEndpoint
        self.perAccount = perAccount
    }

    /// How long a lease outlives the longest attempt.
    var lease: TimeInterval { client.timeout + 10 }

    func start() {
        thread.start { [self] in loop() }
    }

    /// Stops leasing; waits (up to the timeout and a little) for attempts in flight.
    func stop() {
        guard thread.stop() else { return }
        nudge()
        _ = finished.wait(timeout: .now() + client.timeout + 2)
    }

    /// Something may be due now.
    func nudge() {
        condition.lock()
        pending = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        finished.enter()
        defer { finished.leave() }
        while thread.isRunning {
            let leased = dispatchDue()
            condition.lock()
            // A full batch may have more behind it: look again at once.
            if !pending && !leased {
                _ = condition.wait(until: Date().addingTimeInterval(0.5))
            }
            pending = false
            condition.unlock()
        }
    }

    /// Leases what this process has room for and starts it; true when the batch filled the room
    /// (more may be due).
    @discardableResult
    func dispatchDue() -> Bool {
        lock.lock()
        let room = maximumInFlight - total
        let busy = inFlight.filter { $0.value >= perEndpoint }.map(\.key)
        lock.unlock()
        guard room > 0 else { return false }
        let claimed: [WebhookStore.Claimed]
        do {
            claimed = try service.claimDue(lease: lease, limit: room, excluding: busy, perAccount: perAccount)
        } catch {
            log.error("webhooks: cannot lease deliveries: \(String(reflecting: error))", requestID: nil)
            return false
        }
        var started = 0
        for attempt in claimed {
            lock.lock()
            let count = inFlight[attempt.endpointID, default: 0]
            let admitted = count < perEndpoint && total < maximumInFlight
            if admitted {
                inFlight[attempt.endpointID] = count + 1
                total += 1
            }
            lock.unlock()
            guard admitted else {
                try? service.release(attempt)
                continue
            }
            started += 1
            finished.enter()
            // A thread of its own per attempt (at most `maximumInFlight`), not a Dispatch
            // queue: libdispatch on Linux runs about one thread per core and adds more only
            // slowly while they block, so attempts to hanging receivers held back the others
            // (a delivery waited seconds for a free thread while the slots were free).
            let worker = Thread { [self] in
                defer {
                    lock.lock()
                    inFlight[attempt.endpointID, default: 1] -= 1
                    if inFlight[attempt.endpointID] == 0 { inFlight[attempt.endpointID] = nil }
                    total -= 1
                    lock.unlock()
                    finished.leave()
                    nudge()
                }
                deliver(attempt)
            }
            worker.name = "hosted.webhook"
            worker.start()
        }
        return started > 0 && claimed.count == room
    }

    /// One attempt, start to record.
    func deliver(_ attempt: WebhookStore.Claimed) {
        let started = DispatchTime.now()
        let outcome = send(attempt)
        let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000)
        let succeeded = outcome.status.map { (200...299).contains($0) } ?? false
        metrics?.increment("hosted_webhook_attempts_total", help: "Webhook delivery attempts, by result and the receiver's status class.",
                           labels: [("result", succeeded ? "succeeded" : "failed"),
                                    ("status_class", outcome.status.map { "\($0 / 100)xx" } ?? "none")])
        var error = outcome.error ?? (succeeded ? nil : outcome.status.map { "HTTP \($0)" })
        do {
            error = try service.record(attempt, status: outcome.status, retryAfter: outcome.retryAfter, error: outcome.error,
                                       durationMilliseconds: elapsed, schedule: schedule).error
        } catch let failure {
            log.error("webhooks: cannot record \(attempt.id): \(String(reflecting: failure))", requestID: nil)
        }
        if !succeeded {
            // Never the URL (it may hold a token) or any header: ids and the outcome only.
            log.error("webhooks: \(attempt.id) (\(attempt.eventID) to \(attempt.endpointID)) attempt \(attempt.attempt) failed: \(error ?? "?")",
                      requestID: nil)
        }
    }

    /// Checks the target again and sends the signed message.
    func send(_ attempt: WebhookStore.Claimed) -> PinnedHTTPClient.Outcome {
        let destination: (url: String, keys: [[UInt8]])
        do {
            guard let found = try service.destination(of: attempt) else { return .init(error: "endpoint deleted") }
            destination = found
        } catch {
            return .init(error: "database unavailable")
        }
        let checked: (WebhookURLPolicy.Target, address: [UInt8])
        do {
            checked = try service.target(destination.url)
        } catch {
            return .init(error: "address not allowed")
        }
        let keys = destination.keys
        guard !keys.isEmpty else { return .init(error: "signing secret unavailable") }
        let body = Array(attempt.payload.utf8)
        let timestamp = service.timestamp()
        let headers = [
            ("Content-Type", "application/json"),
            ("webhook-id", attempt.eventID),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.header(id: attempt.eventID, timestamp: timestamp, body: body, keys: keys)),
        ]
        return client.post(checked.0, to: checked.address, headers: headers, body: body)
    }
}

extension WebhookDispatcher {
    /// Every attempt due now, one after another on the calling thread (tests): returns how many.
    func deliverDueNow() -> Int {
        var done = 0
        while let batch = try? service.claimDue(lease: lease, limit: maximumInFlight, excluding: [], perAccount: perAccount),
              !batch.isEmpty {
            for attempt in batch { deliver(attempt) }
            done += batch.count
        }
        return done
    }
}
