import Foundation

/// A customer's webhook endpoint: where messages for the account's events go. Its signing
/// secrets are not here: they exist in clear only while a message is signed (the store keeps
/// them sealed with the service's secret key).
public struct WebhookEndpoint: Equatable, Sendable {
    public enum Status: String, Sendable {
        case enabled, disabled
    }

    /// Why an endpoint is disabled.
    public enum DisabledReason: String, Sendable {
        /// The customer disabled it.
        case manual
        /// A delivery was answered 410 Gone.
        case gone
        /// No success through five days of failures.
        case failing
    }

    public let id: ObjectID
    public let accountID: ObjectID
    public var url: String
    public var events: EventFilter
    public var description: String?
    public var status: Status
    public var disabledReason: DisabledReason?
    public let createdAt: Date

    public init(id: ObjectID, accountID: ObjectID, url: String, events: EventFilter, description: String?,
                status: Status, disabledReason: DisabledReason?, createdAt: Date) {
        self.id = id
        self.accountID = accountID
        self.url = url
        self.events = events
        self.description = description
        self.status = status
        self.disabledReason = disabledReason
        self.createdAt = createdAt
    }

    public static let maximumDescriptionLength = 500
    /// How long a rotated-out secret goes on signing beside the new one.
    public static let rotationOverlap: TimeInterval = 24 * 3600
    /// An endpoint with no success for this long while failing is disabled.
    public static let failingLimit: TimeInterval = 5 * 24 * 3600
    /// Endpoints an account may have in one mode (today only live): with the per-account share
    /// of delivery capacity, what bounds one account's messages per event.
    public static let perAccountLimit = 16
    /// Attempts in flight for one account at once, across every process: one account's hanging
    /// receivers hold at most this many delivery slots, never the whole process's.
    public static let inFlightPerAccount = 4
}

/// The event types an endpoint receives: `*` (all), `verification.*`, or named types.
public struct EventFilter: Equatable, Sendable {
    /// The entries as given, deduplicated, in order.
    public let entries: [String]

    public static let all = EventFilter(checked: ["*"])
    /// What an entry may be besides a known event type.
    static let wildcards: Set<String> = ["*", "verification.*"]

    init(checked entries: [String]) { self.entries = entries }

    /// Checks every entry: 1 to 32 distinct entries, each `*`, `verification.*` or a known event type.
    public static func parse(_ entries: [String]) throws(DomainError) -> EventFilter {
        func fail(_ field: String, _ message: String) -> DomainError {
            .invalidRequest(detail: "The events list is not valid: \(field) \(message).",
                            errors: [FieldError(field: field, message: message)], code: .invalidRequest)
        }
        guard !entries.isEmpty, entries.count <= 32 else { throw fail("events", "must list 1 to 32 event types") }
        var seen: Set<String> = []
        var kept: [String] = []
        for (index, entry) in entries.enumerated() {
            guard wildcards.contains(entry) || EventType(rawValue: entry) != nil else {
                throw fail("events[\(index)]", "must be \"*\", \"verification.*\" or an event type such as verification.approved")
            }
            guard seen.insert(entry).inserted else { throw fail("events[\(index)]", "repeats an earlier entry") }
            kept.append(entry)
        }
        return EventFilter(checked: kept)
    }

    /// Rebuilds a filter the store kept (its entries were checked when it was written).
    public init(stored entries: [String]) { self.entries = entries }

    public func matches(_ type: String) -> Bool {
        entries.contains { $0 == "*" || $0 == type || ($0 == "verification.*" && type.hasPrefix("verification.")) }
    }
}
