import Foundation
import HostedCore
import HostedStorage

/// The stores' calls as the tests before test mode made them: for an account's live data.
/// Test mode's own tests (`TestModeStoreTests`) name the tenancy.
func live(_ accountID: ObjectID) -> Tenancy { Tenancy(accountID: accountID, livemode: true) }

extension VerificationStore {
    func verification(accountID: ObjectID, id: ObjectID) throws -> Verification? {
        try verification(tenancy: live(accountID), id: id)
    }

    func verification(accountID: ObjectID, id: ObjectID,
                      completion: @escaping @Sendable (Result<Verification?, any Error>) -> Void) {
        verification(tenancy: live(accountID), id: id, completion: completion)
    }

    func openVerification(accountID: ObjectID, userID: String, workflowKey: String) throws -> Verification? {
        try openVerification(tenancy: live(accountID), userID: userID, workflowKey: workflowKey)
    }

    func openVerification(accountID: ObjectID, userID: String, workflowKey: String,
                          completion: @escaping @Sendable (Result<FoundVerification?, any Error>) -> Void) {
        openVerification(tenancy: live(accountID), userID: userID, workflowKey: workflowKey, completion: completion)
    }

    func list(accountID: ObjectID, filter: Filter, limit: Int, startingAfter: ObjectID?) throws -> ([Verification], hasMore: Bool) {
        try list(tenancy: live(accountID), filter: filter, limit: limit, startingAfter: startingAfter)
    }

    func update(accountID: ObjectID, id: ObjectID, at time: Date, _ change: (inout Verification) throws -> Void) throws -> Verification {
        try update(tenancy: live(accountID), id: id, at: time, change)
    }

    func update(accountID: ObjectID, id: ObjectID, at time: Date, skipLocked: Bool = false,
                _ change: (inout Verification, DatabaseConnection) throws -> Void) throws -> Verification {
        try update(tenancy: live(accountID), id: id, at: time, skipLocked: skipLocked, change)
    }

    func redact(accountID: ObjectID, id: ObjectID, at time: Date,
                _ transition: (inout Verification) throws -> Void) throws -> Verification {
        try redact(tenancy: live(accountID), id: id, at: time, transition)
    }

    func polled(accountID: ObjectID, id: ObjectID, bucket: String, at time: Date, interval: TimeInterval,
                burst: Int, cost: Int = 1) throws -> (RateLimitStore.Decision, Verification?) {
        try polled(tenancy: live(accountID), id: id, bucket: bucket, at: time, interval: interval, burst: burst, cost: cost)
    }

    func events(accountID: ObjectID, id: ObjectID, limit: Int, startingAfter: ObjectID?) throws -> ([Event], hasMore: Bool)? {
        try events(tenancy: live(accountID), id: id, limit: limit, startingAfter: startingAfter)
    }

    func queue(accountID: ObjectID, statuses: [VerificationStatus], workflowKey: String?, userID: String?,
               limit: Int, startingAfter: ObjectID?) throws -> ([Verification], hasMore: Bool) {
        try queue(tenancy: live(accountID), statuses: statuses, workflowKey: workflowKey, userID: userID, limit: limit,
                  startingAfter: startingAfter)
    }
}

extension EventStore {
    func list(accountID: ObjectID, filter: Filter, limit: Int, startingAfter: ObjectID?) throws -> ([Event], hasMore: Bool) {
        try list(tenancy: live(accountID), filter: filter, limit: limit, startingAfter: startingAfter)
    }
}

extension WebhookStore {
    func endpoint(accountID: ObjectID, id: ObjectID) throws -> WebhookEndpoint? { try endpoint(tenancy: live(accountID), id: id) }

    func list(accountID: ObjectID, limit: Int, startingAfter: ObjectID?) throws -> ([WebhookEndpoint], hasMore: Bool) {
        try list(tenancy: live(accountID), limit: limit, startingAfter: startingAfter)
    }

    func update(accountID: ObjectID, id: ObjectID, at time: Date, _ change: (inout WebhookEndpoint) throws -> Void) throws -> WebhookEndpoint {
        try update(tenancy: live(accountID), id: id, at: time, change)
    }

    func delete(accountID: ObjectID, id: ObjectID) throws -> Bool { try delete(tenancy: live(accountID), id: id) }

    func rotate(accountID: ObjectID, id: ObjectID, sealedSecret: String, at time: Date, previousUntil: Date) throws -> Bool {
        try rotate(tenancy: live(accountID), id: id, sealedSecret: sealedSecret, at: time, previousUntil: previousUntil)
    }

    func recover(accountID: ObjectID, endpointID: ObjectID, since: Date, at time: Date,
                 payload: (Event, VerificationStatus) -> String) throws -> Int {
        try recover(tenancy: live(accountID), endpointID: endpointID, since: since, at: time, payload: payload)
    }

    func hasEnabledSubscriber(accountID: ObjectID, eventType type: EventType) throws -> Bool {
        try hasEnabledSubscriber(tenancy: live(accountID), eventType: type)
    }
}
