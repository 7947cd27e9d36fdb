/// Who caused an event: an API key (`key_…`), the user in the journey, an operator (`op_…`), or
/// the service itself (expiry, retention).
public struct EventActor: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case apiKey = "api_key"
        case journey
        case `operator`
        case system
    }

    public let kind: Kind
    public let id: String?

    public init(_ kind: Kind, id: String? = nil) {
        self.kind = kind
        self.id = id
    }

    public static let journey = EventActor(.journey)
    public static let system = EventActor(.system)
    public static func apiKey(_ id: ObjectID) -> EventActor { EventActor(.apiKey, id: id.rawValue) }

    /// One text for one actor (`operator:op_…`), as a verification's approvals list them.
    public var reference: String { id.map { "\(kind.rawValue):\($0)" } ?? kind.rawValue }

    /// Who this actor is as a pair of eyes under four eyes: an operator is themself, but an
    /// account's API keys are together one reviewer (`api_key`) — one backend, whichever of
    /// its keys it holds, so a second key must not stand in for a second person.
    public var reviewer: String { Self.reviewer(ofReference: reference) }

    /// The reviewer a stored reference (an entry of a verification's approvals) stands for.
    public static func reviewer(ofReference reference: String) -> String {
        reference.hasPrefix(Kind.apiKey.rawValue + ":") ? Kind.apiKey.rawValue : reference
    }
}
