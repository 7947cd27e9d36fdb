import Foundation

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
    /// False for an event of a test verification. Shown (and hashed) only when false, so every
    /// chain written before test mode existed still verifies, and the API object is exactly what
    /// the hash covers plus the two hashes.
    public let livemode: Bool

    public init(id: ObjectID, accountID: ObjectID, verificationID: ObjectID, sequence: Int64, type: String,
                actorKind: String, actorID: String?, data: String, createdAt: Date, previousHash: String?, hash: String,
                livemode: Bool = true) {
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
        self.livemode = livemode
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

    /// `chainInput(previousHash: previousHash, canonicalJSON: canonicalJSON)`, written into one
    /// buffer without the intermediate texts (`hosted audit verify` hashes five million of them
    /// at a million verifications).
    public var chainInput: [UInt8] {
        var prefix: [UInt8] = []
        if let previousHash { prefix.append(contentsOf: previousHash.utf8) }
        prefix.append(UInt8(ascii: "\n"))
        var object = JSONText.Object(after: prefix)
        write(into: &object, withHashes: false)
        return object.finish()
    }

    private func members(withHashes: Bool) -> String {
        var object = JSONText.Object()
        write(into: &object, withHashes: withHashes)
        return object.json
    }

    private func write(into object: inout JSONText.Object, withHashes: Bool) {
        object.object("actor") { actor in
            actor.string("id", actorID)
            actor.string("type", actorKind)
        }
        object.timestamp("created_at", createdAt, milliseconds: true)
        object.raw("data", data)
        if withHashes { object.string("hash", hash) }
        object.string("id", id.rawValue)
        if !livemode { object.bool("livemode", false) }
        object.string("object", "event")
        if withHashes { object.string("previous_hash", previousHash) }
        object.int("sequence", Int(sequence))
        object.string("type", type)
        object.string("verification_id", verificationID.rawValue)
    }
}
