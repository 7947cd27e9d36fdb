import Foundation

/// The stable event types (DESIGN.md, "Verification lifecycle").
public enum EventType: String, Sendable, CaseIterable {
    case created = "verification.created"
    case updated = "verification.updated"
    case handoffCreated = "verification.handoff_created"
    case signedIn = "verification.signed_in"
    case stepCompleted = "verification.step_completed"
    case submitted = "verification.submitted"
    case approved = "verification.approved"
    case rejected = "verification.rejected"
    case canceled = "verification.canceled"
    case expired = "verification.expired"
    case redacted = "verification.redacted"
    case reviewNote = "verification.review_note"
    case continuationCreated = "verification.continuation_created"
    case continuationMatched = "verification.continuation_matched"
    case continuationFailed = "verification.continuation_failed"
}

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

/// A value in an event's `data`. Events carry no personal data: step ids, statuses, reason
/// codes, methods — never a name, number, user id or metadata.
public enum EventValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case null

    var json: String {
        switch self {
        case .string(let text):
            var out = ""
            JSONText.appendString(text, to: &out)
            return out
        case .integer(let number): return String(number)
        case .null: return "null"
        }
    }
}

/// An event the status machine produced and the store has not yet written.
public struct EventDraft: Equatable, Sendable {
    public let type: EventType
    public let actor: EventActor
    public let data: [String: EventValue]

    public init(_ type: EventType, actor: EventActor, data: [String: EventValue] = [:]) {
        self.type = type
        self.actor = actor
        self.data = data
    }
}

/// One stored event: an append-only, hash-chained record of a change to a verification.
///
/// `hash` = SHA-256 (hex) of `previous_hash` (the empty string for the first event) + `"\n"` +
/// `canonicalJSON` — the event's JSON without `hash` and `previous_hash`, keys sorted, no spaces.
/// The hash itself is computed where libcrypto is (the store); the text it covers is defined here.
public struct Event: Equatable, Sendable {
    public let id: ObjectID
    public let accountID: ObjectID
    public let verificationID: ObjectID
    public let sequence: Int64
    /// The type as stored (a known `EventType`'s raw value), kept verbatim so a chain verifies
    /// whatever was written.
    public let type: String
    public let actorKind: String
    public let actorID: String?
    /// The data object as canonical JSON text (sorted keys, no spaces).
    public let data: String
    public let createdAt: Date
    public let previousHash: String?
    public let hash: String

    public init(id: ObjectID, accountID: ObjectID, verificationID: ObjectID, sequence: Int64, type: String,
                actorKind: String, actorID: String?, data: String, createdAt: Date, previousHash: String?, hash: String) {
        self.id = id
        self.accountID = accountID
        self.verificationID = verificationID
        self.sequence = sequence
        self.type = type
        self.actorKind = actorKind
        self.actorID = actorID
        self.data = data
        self.createdAt = createdAt
        self.previousHash = previousHash
        self.hash = hash
    }

    /// The canonical JSON text of `data` (keys sorted, no spaces).
    public static func canonicalData(_ data: [String: EventValue]) -> String {
        "{" + data.sorted { $0.key < $1.key }.map { key, value in
            var member = ""
            JSONText.appendString(key, to: &member)
            return member + ":" + value.json
        }.joined(separator: ",") + "}"
    }

    /// The event's JSON without `hash` and `previous_hash`: what the chain covers.
    public var canonicalJSON: String { members(withHashes: false) }

    /// The event object as the API shows it: the canonical members plus both hashes, keys sorted.
    public var json: String { members(withHashes: true) }

    /// The bytes hashed into `hash`, given the previous event's hash (nil for the first).
    public static func chainInput(previousHash: String?, canonicalJSON: String) -> [UInt8] {
        Array(((previousHash ?? "") + "\n" + canonicalJSON).utf8)
    }

    private func members(withHashes: Bool) -> String {
        var object = JSONText.Object()
        var actor = JSONText.Object()
        actor.string("id", actorID)
        actor.string("type", actorKind)
        object.raw("actor", actor.json)
        object.string("created_at", RFC3339.format(createdAt, milliseconds: true))
        object.raw("data", data)
        if withHashes { object.string("hash", hash) }
        object.string("id", id.rawValue)
        object.string("object", "event")
        if withHashes { object.string("previous_hash", previousHash) }
        object.int("sequence", Int(sequence))
        object.string("type", type)
        object.string("verification_id", verificationID.rawValue)
        return object.json
    }
}
