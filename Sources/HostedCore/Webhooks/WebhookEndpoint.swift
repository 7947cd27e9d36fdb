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
    /// False for a test-mode endpoint: it hears only test verifications' events.
    public let livemode: Bool

    public init(id: ObjectID, accountID: ObjectID, url: String, events: EventFilter, description: String?,
                status: Status, disabledReason: DisabledReason?, createdAt: Date, livemode: Bool = true) {
        self.id = id
        self.accountID = accountID
        self.url = url
        self.events = events
        self.description = description
        self.status = status
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.livemode = livemode
    }

    /// The account and mode it belongs to.
    public var tenancy: Tenancy { Tenancy(accountID: accountID, livemode: livemode) }

    public static let maximumDescriptionLength = 500
    /// How long a rotated-out secret goes on signing beside the new one.
    public static let rotationOverlap: TimeInterval = 24 * 3600
    /// An endpoint with no success for this long while failing is disabled.
    public static let failingLimit: TimeInterval = 5 * 24 * 3600
    /// Endpoints an account may have in one mode (live or test): with the per-account share
    /// of delivery capacity, what bounds one account's messages per event.
    public static let perAccountLimit = 16
    /// Attempts in flight for one account at once, across every process: one account's hanging
    /// receivers hold at most this many delivery slots, never the whole process's.
    public static let inFlightPerAccount = 4
}
