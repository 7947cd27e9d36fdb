import Dispatch
import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

// MARK: - Webhooks below HTTP: the transactional outbox, leases, retries, recovery

extension StoreContractTests {
    @Suite struct WebhookTests {
        let lifecycle = LifecycleTests()

        func endpoint(_ webhooks: WebhookStore, _ account: ObjectID, events: [String] = ["*"],
                      status: WebhookEndpoint.Status = .enabled) throws -> WebhookEndpoint {
            let endpoint = WebhookEndpoint(id: ObjectID(.webhookEndpoint, using: SecureRandom()), accountID: account,
                                           url: "https://hooks.example.com/in", events: try EventFilter.parse(events),
                                           description: nil, status: status, disabledReason: nil, createdAt: t0)
            try webhooks.create(endpoint, sealedSecret: "c2VhbGVk")
            return endpoint
        }

        func pending(_ db: any Database, _ endpoint: WebhookEndpoint) throws -> [(event: String, type: String, payload: String)] {
            try db.query("""
                SELECT event_id, event_type, payload FROM webhook_deliveries
                WHERE endpoint_id = \(endpoint.id.rawValue) AND status = 'pending' ORDER BY created_at, event_type
                """).map { (try $0.string("event_id"), try $0.string("event_type"), try $0.string("payload")) }
        }

        @Test(arguments: Backend.allCases)
        func everyEventIsQueuedForEachMatchingEnabledEndpointInItsTransaction(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend) { db, store, _, account in
                let webhooks = WebhookStore(database: db)
                let all = try endpoint(webhooks, account)
                let decisions = try endpoint(webhooks, account, events: ["verification.approved", "verification.rejected"])
                let family = try endpoint(webhooks, account, events: ["verification.*"])
                let off = try endpoint(webhooks, account, status: .disabled)
                let otherAccount = try endpoint(webhooks, try makeAccount(db, name: "Other"))
                var v = try lifecycle.create(store, account)
                v = try lifecycle.change(store, v, .signedIn(method: .sms))
                // A change that throws rolls back with its event and its messages.
                struct Refused: Error {}
                #expect(throws: Refused.self) {
                    try store.update(accountID: account, id: v.id, at: t0) { verification in
                        try verification.apply(.canceled, at: t0, by: LifecycleTests.actor)
                        throw Refused()
                    }
                }
                let events = try EventStore(database: db).chain(verificationID: v.id)
                #expect(events.map(\.type) == ["verification.created", "verification.signed_in"])
                let queued = try pending(db, all)
                #expect(queued.map(\.event) == events.map(\.id.rawValue))
                #expect(try pending(db, family).count == 2)
                #expect(try pending(db, decisions).isEmpty && pending(db, off).isEmpty && pending(db, otherAccount).isEmpty)
                // Byte for byte what WebhookMessage writes (on PostgreSQL the trigger writes it).
                #expect(queued[0].payload == WebhookMessage.body(for: events[0], status: .created))
                #expect(queued[1].payload == WebhookMessage.body(for: events[1], status: .inProgress))
                // The thin body names the event, its sequence and the status right after it.
                let body = try #require(try JSONSerialization.jsonObject(with: Data(queued[1].payload.utf8)) as? [String: Any])
                let data = try #require(body["data"] as? [String: Any])
                #expect(body["type"] as? String == "verification.signed_in")
                #expect(data["id"] as? String == events[1].id.rawValue && data["sequence"] as? Int == 2)
                #expect(data["status"] as? String == "in_progress" && data["verification_id"] as? String == v.id.rawValue)
            }
        }

        @Test(arguments: Backend.allCases)
        func aLeaseGoesToOneWorkerAndALostLeaseRecordsNothing(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend, poolSize: 8) { db, store, _, account in
                let webhooks = WebhookStore(database: db)
                let hook = try endpoint(webhooks, account)
                for index in 0..<40 { _ = try lifecycle.create(store, account, user: "u\(index)") }
                // Eight workers lease at once: every attempt goes to exactly one of them.
                let leased = Collected<String>()
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    while let batch = try? webhooks.claim(at: t0, lease: 60, limit: 3, excluding: [], perAccount: 100), !batch.isEmpty {
                        for claimed in batch { leased.append(claimed.id) }
                    }
                }
                #expect(leased.all.count == 40 && Set(leased.all).count == 40)
                #expect(try webhooks.claim(at: t0, lease: 60, limit: 10, excluding: [], perAccount: 100).isEmpty)
                // Past the lease the attempt is leased again; the first worker's late result is refused.
                let later = t0.addingTimeInterval(61)
                let first = try #require(try webhooks.claim(at: later, lease: 60, limit: 1, excluding: [], perAccount: 100).first)
                let again = try #require(try webhooks.claim(at: later.addingTimeInterval(61), lease: 60, limit: 40, excluding: [], perAccount: 100)
                    .first { $0.id == first.id })
                let ok = WebhookStore.Result(succeeded: true, responseStatus: 200, error: nil, durationMilliseconds: 3,
                                             nextAttemptAt: nil, disable: nil)
                #expect(try !webhooks.complete(first, ok, at: later, failingLimit: 3600))
                #expect(try webhooks.complete(again, ok, at: later, failingLimit: 3600))
                #expect(try webhooks.claim(at: later.addingTimeInterval(200), lease: 60, limit: 100, excluding: [hook.id.rawValue], perAccount: 100).isEmpty)
            }
        }

        @Test(arguments: Backend.allCases)
        func aFailureSchedulesTheNextAttemptAndGoneDisablesTheEndpoint(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend) { db, store, _, account in
                let webhooks = WebhookStore(database: db)
                let hook = try endpoint(webhooks, account)
                _ = try lifecycle.create(store, account)
                let first = try #require(try webhooks.claim(at: t0, lease: 60, limit: 1, excluding: [], perAccount: 100).first)
                let retryAt = t0.addingTimeInterval(5)
                #expect(try webhooks.complete(first, .init(succeeded: false, responseStatus: 500, error: "HTTP 500", durationMilliseconds: 9,
                                                           nextAttemptAt: retryAt, disable: nil), at: t0, failingLimit: 3600))
                #expect(try webhooks.claim(at: t0.addingTimeInterval(4), lease: 60, limit: 5, excluding: [], perAccount: 100).isEmpty)  // not due yet
                let second = try #require(try webhooks.claim(at: retryAt, lease: 60, limit: 5, excluding: [], perAccount: 100).first)
                #expect(second.attempt == 2 && second.eventID == first.eventID && second.payload == first.payload)
                let (log, _) = try webhooks.deliveries(accountID: account, endpointID: hook.id, limit: 10, startingAfter: nil)
                #expect(log.map(\.status.rawValue) == ["pending", "failed"] && log[1].responseStatus == 500 && log[1].nextAttemptAt == retryAt)
                // 410: the endpoint is disabled at once, and nothing more is leased for it.
                #expect(try webhooks.complete(second, .init(succeeded: false, responseStatus: 410, error: "HTTP 410", durationMilliseconds: 2,
                                                            nextAttemptAt: nil, disable: .gone), at: retryAt, failingLimit: 3600))
                let disabled = try #require(try webhooks.endpoint(accountID: account, id: hook.id))
                #expect(disabled.status == .disabled && disabled.disabledReason == .gone)
                _ = try lifecycle.create(store, account, user: "after")  // a disabled endpoint gets no messages
                #expect(try pending(db, hook).isEmpty)
            }
        }

        @Test(arguments: Backend.allCases)
        func failingForFiveDaysDisablesAndASuccessResetsTheClock(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend) { db, store, _, account in
                let webhooks = WebhookStore(database: db)
                let hook = try endpoint(webhooks, account)
                let limit: TimeInterval = 5 * 24 * 3600
                var time = t0
                _ = try lifecycle.create(store, account)
                func fail(at time: Date, next: Date) throws {
                    let claimed = try #require(try webhooks.claim(at: time, lease: 60, limit: 1, excluding: [], perAccount: 100).first)
                    try webhooks.complete(claimed, .init(succeeded: false, responseStatus: nil, error: "timeout", durationMilliseconds: 10_000,
                                                         nextAttemptAt: next, disable: nil), at: time, failingLimit: limit)
                }
                try fail(at: time, next: time.addingTimeInterval(3 * 24 * 3600))
                time = time.addingTimeInterval(3 * 24 * 3600)
                try fail(at: time, next: time.addingTimeInterval(3 * 24 * 3600))
                #expect(try webhooks.endpoint(accountID: account, id: hook.id)?.status == .enabled)  // three days in
                time = time.addingTimeInterval(3 * 24 * 3600)
                try fail(at: time, next: time.addingTimeInterval(60))
                let disabled = try #require(try webhooks.endpoint(accountID: account, id: hook.id))
                #expect(disabled.status == .disabled && disabled.disabledReason == .failing)
            }
        }

        @Test(arguments: Backend.allCases)
        func recoverQueuesOnlyWhatWasNotDeliveredSinceTheTime(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend) { db, store, clock, account in
                let webhooks = WebhookStore(database: db)
                let hook = try endpoint(webhooks, account)
                _ = try lifecycle.create(store, account, user: "delivered")
                _ = try lifecycle.create(store, account, user: "failed")
                let claimed = try webhooks.claim(at: t0, lease: 60, limit: 2, excluding: [], perAccount: 100)
                try #require(claimed.count == 2)
                try webhooks.complete(claimed[0], .init(succeeded: true, responseStatus: 200, error: nil, durationMilliseconds: 1,
                                                        nextAttemptAt: nil, disable: nil), at: t0, failingLimit: 3600)
                try webhooks.complete(claimed[1], .init(succeeded: false, responseStatus: 500, error: "HTTP 500", durationMilliseconds: 1,
                                                        nextAttemptAt: nil, disable: nil), at: t0, failingLimit: 3600)
                let body: (Event, VerificationStatus) -> String = { WebhookMessage.body(for: $0, status: $1) }
                #expect(try webhooks.recover(accountID: account, endpointID: hook.id, since: t0.addingTimeInterval(1), at: t0, payload: body) == 0)
                #expect(try webhooks.recover(accountID: account, endpointID: hook.id, since: t0, at: t0, payload: body) == 1)
                let requeued = try pending(db, hook)
                #expect(requeued.map(\.event) == [claimed[1].eventID])
                // Pending already: a second recovery queues nothing more.
                #expect(try webhooks.recover(accountID: account, endpointID: hook.id, since: t0, at: clock.now(), payload: body) == 0)
                let next = try #require(try webhooks.claim(at: t0, lease: 60, limit: 5, excluding: [], perAccount: 100).first)
                #expect(next.attempt == 2)
            }
        }

        @Test(arguments: Backend.allCases)
        func accountsTakeTurnsAndOneAccountHoldsAtMostItsShareOfLeases(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend, poolSize: 8) { db, store, _, noisy in
                let webhooks = WebhookStore(database: db)
                for _ in 0..<16 { _ = try endpoint(webhooks, noisy) }
                for index in 0..<3 { _ = try lifecycle.create(store, noisy, user: "n\(index)") }  // 48 messages due at t0
                // The noisy account's receivers hang: a process with 16 free slots leases only its share.
                let first = try webhooks.claim(at: t0, lease: 60, limit: 16, excluding: [], perAccount: 4)
                #expect(first.count == 4 && first.allSatisfy { $0.accountID == noisy.rawValue })
                #expect(try webhooks.claim(at: t0, lease: 60, limit: 16, excluding: [], perAccount: 4).isEmpty)
                // Another account's first message, due after all of those, is leased at once.
                let quiet = try makeAccount(db, name: "Quiet")
                _ = try endpoint(webhooks, quiet)
                _ = try lifecycle.create(store, quiet, user: "q")
                let later = t0.addingTimeInterval(1)
                try db.query("UPDATE webhook_deliveries SET next_attempt_at = \(later) WHERE account_id = \(quiet.rawValue)")
                let next = try webhooks.claim(at: later, lease: 60, limit: 12, excluding: [], perAccount: 4)
                #expect(next.map(\.accountID) == [quiet.rawValue])
                // Past the leases, accounts take turns: each one's oldest before anyone's second.
                for index in 0..<3 { _ = try lifecycle.create(store, quiet, user: "q\(index)") }
                let turns = try webhooks.claim(at: t0.addingTimeInterval(120), lease: 60, limit: 4, excluding: [], perAccount: 100)
                #expect(turns.filter { $0.accountID == noisy.rawValue }.count == 2 && turns.filter { $0.accountID == quiet.rawValue }.count == 2)
            }
        }

        @Test(arguments: Backend.allCases)
        func theShareHoldsWhenManyWorkersLeaseAtOnce(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend, poolSize: 8) { db, store, _, account in
                let webhooks = WebhookStore(database: db)
                for _ in 0..<8 { _ = try endpoint(webhooks, account) }
                for index in 0..<5 { _ = try lifecycle.create(store, account, user: "u\(index)") }  // 40 messages
                // Eight workers (eight connections: on PostgreSQL, as eight processes would) lease at once.
                let leased = Collected<String>()
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    for _ in 0..<5 {
                        for claimed in (try? webhooks.claim(at: t0, lease: 60, limit: 2, excluding: [], perAccount: 3)) ?? [] {
                            leased.append(claimed.id)
                        }
                    }
                }
                #expect(leased.all.count == 3 && Set(leased.all).count == 3)
            }
        }

        @Test(arguments: Backend.allCases)
        func anAccountHasAtMostSixteenEndpoints(_ backend: Backend) throws {
            guard backend.isAvailable else { return }
            try lifecycle.withStore(backend, poolSize: 8) { db, _, _, account in
                let webhooks = WebhookStore(database: db)
                // Created from many connections at once, never past the limit.
                let made = Collected<Bool>()
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    for _ in 0..<3 {
                        let endpoint = WebhookEndpoint(id: ObjectID(.webhookEndpoint, using: SecureRandom()), accountID: account,
                                                       url: "https://hooks.example.com/in", events: EventFilter(stored: ["*"]),
                                                       description: nil, status: .enabled, disabledReason: nil, createdAt: t0)
                        if let created = try? webhooks.create(endpoint, sealedSecret: "c2VhbGVk") { made.append(created) }
                    }
                }
                #expect(made.all.filter { $0 }.count == WebhookEndpoint.perAccountLimit && made.all.count == 24)
                #expect(try webhooks.list(accountID: account, limit: 100, startingAfter: nil).0.count == 16)
                _ = try endpoint(webhooks, try makeAccount(db, name: "Other"))  // another account has its own room
            }
        }
    }
}
