import Foundation
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Synchronization
import Testing

// MARK: - The webhook message's bytes, as each store writes them

extension StoreContractTests {
    /// Two writers make the message of a verification's event: the trigger on `events` on
    /// PostgreSQL (migration 0011), `WebhookMessage.body` on SQLite (`EventStore.insert`). The
    /// trigger stays for speed (docs/decisions.md, "the outbox on PostgreSQL is a trigger"), so
    /// these tests hold the two to one format: the same events give these exact bytes on both.
    @Suite struct WebhookMessageTests {
        let lifecycle = LifecycleTests()

        /// Random bytes 1, 1, …, then 2, 2, …: the events' ids are known in advance.
        final class CountingRandom: RandomSource {
            private let next = Mutex<UInt8>(1)
            func bytes(_ count: Int) -> [UInt8] {
                Array(repeating: next.withLock { value in defer { value += 1 }; return value }, count: count)
            }
        }

        /// Three events of one verification, each at a time whose milliseconds must be written
        /// as three digits (042, 007, 999), with the status right after each; their messages as
        /// stored for an endpoint that takes every event, in order.
        func storedMessages(_ backend: Backend) throws -> [String]? {
            guard backend.isAvailable else { return nil }
            var messages: [String] = []
            try withMigratedDatabase(backend) { db in
                let account = try makeAccount(db)
                let store = VerificationStore(database: db, changes: LocalChangeFeed(),
                                              events: EventStore(database: db, random: CountingRandom()),
                                              clock: ManualClock(t0))
                let hook = WebhookEndpoint(id: ObjectID(.webhookEndpoint, using: SecureRandom()), accountID: account,
                                           url: "https://hooks.example.com/in", events: try EventFilter.parse(["*"]),
                                           description: nil, status: .enabled, disabledReason: nil, createdAt: t0)
                try WebhookStore(database: db).create(hook, sealedSecret: "c2VhbGVk")
                let created = t0.addingTimeInterval(0.042)
                var verification = Verification(
                    id: try #require(ObjectID(.verification, parsing: "ver_" + String(repeating: "a", count: 26))),
                    accountID: account, userID: "user-1", workflowKey: "kyc", workflowVersion: 1, status: .created,
                    mobile: "+919876543210", returnURL: nil, metadata: [:], steps: [StepState(id: "selfie", type: .selfie)],
                    createdAt: created, updatedAt: created, expiresAt: t0.addingTimeInterval(3600))
                try verification.apply(.created, at: created, by: LifecycleTests.actor)
                try #require(try store.createOrFetchOpen(verification).created)
                verification = try lifecycle.change(store, verification, at: t0.addingTimeInterval(1.007), .signedIn(method: .sms))
                _ = try lifecycle.change(store, verification, at: t0.addingTimeInterval(2.999), .canceled, by: LifecycleTests.actor)
                messages = try db.query("""
                    SELECT payload FROM webhook_deliveries WHERE endpoint_id = \(hook.id.rawValue) ORDER BY created_at
                    """).map { row in try row.string("payload") }
            }
            return messages
        }

        @Test(arguments: Backend.allCases)
        func theStoredMessagesOfKnownEventsAreExactlyTheseBytes(_ backend: Backend) throws {
            guard let messages = try storedMessages(backend) else { return }
            #expect(messages == [
                #"{"type":"verification.created","timestamp":"2026-11-18T11:06:40.042Z","data":{"object":"event","id":"evt_aeaqcaibaeaqcaibaeaqcaibae","verification_id":"ver_aaaaaaaaaaaaaaaaaaaaaaaaaa","sequence":1,"status":"created","livemode":true}}"#,
                #"{"type":"verification.signed_in","timestamp":"2026-11-18T11:06:41.007Z","data":{"object":"event","id":"evt_aibaeaqcaibaeaqcaibaeaqcai","verification_id":"ver_aaaaaaaaaaaaaaaaaaaaaaaaaa","sequence":2,"status":"in_progress","livemode":true}}"#,
                #"{"type":"verification.canceled","timestamp":"2026-11-18T11:06:42.999Z","data":{"object":"event","id":"evt_ambqgaydambqgaydambqgaydam","verification_id":"ver_aaaaaaaaaaaaaaaaaaaaaaaaaa","sequence":3,"status":"canceled","livemode":true}}"#,
            ])
        }

        /// The same events give the same bytes on both stores (skipped without PostgreSQL; the
        /// test above pins each store to the same literal bytes anyway).
        @Test func bothStoresWriteTheSameBytesForTheSameEvents() throws {
            guard Backend.postgres.isAvailable else { return }
            let sqlite = try #require(try storedMessages(.sqlite))
            let postgres = try #require(try storedMessages(.postgres))
            #expect(sqlite.count == 3)
            #expect(Array(sqlite.joined(separator: "\n").utf8) == Array(postgres.joined(separator: "\n").utf8))
        }
    }
}
