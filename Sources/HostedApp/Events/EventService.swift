import HostedCore
import HostedStorage

/// The hash-chained event log as the customer reads it: one verification's chain, and the
/// account's feed, oldest first, cursor-paged.
struct EventService: Sendable {
    let verifications: VerificationStore
    let events: EventStore

    /// One page of a verification's chain.
    func chain(tenancy: Tenancy, verificationID: ObjectID, page: ListParameters) throws -> ([Event], hasMore: Bool) {
        guard let found = try Self.cursor({
            try verifications.events(tenancy: tenancy, id: verificationID, limit: page.limit, startingAfter: page.startingAfter)
        }) else { throw DomainError.notFound(what: "verification") }
        return found
    }

    /// One page of the account's feed in the caller's mode, filtered.
    func feed(tenancy: Tenancy, filter: EventStore.Filter, page: ListParameters) throws -> ([Event], hasMore: Bool) {
        try Self.cursor { try events.list(tenancy: tenancy, filter: filter, limit: page.limit, startingAfter: page.startingAfter) }
    }

    /// Runs a listing, turning an unknown cursor into a field error.
    private static func cursor<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is EventStore.UnknownCursor {
            throw DomainError.invalidRequest(detail: "starting_after is not an event of this account.",
                                             errors: [FieldError(field: "starting_after", message: "no such event")])
        }
    }
}
