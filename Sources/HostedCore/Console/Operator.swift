import Foundation

/// A person of the customer's team who reviews verifications of one account in the console.
public struct Operator: Equatable, Sendable {
    public let id: ObjectID
    public let accountID: ObjectID
    public let email: String
    public let role: OperatorRole
    public let status: OperatorStatus
    public let createdAt: Date
    public let lastSignInAt: Date?

    public init(id: ObjectID, accountID: ObjectID, email: String, role: OperatorRole, status: OperatorStatus,
                createdAt: Date, lastSignInAt: Date?) {
        self.id = id
        self.accountID = accountID
        self.email = email
        self.role = role
        self.status = status
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
    }

    /// The actor its console actions are recorded under.
    public var actor: EventActor { EventActor(.operator, id: id.rawValue) }
}
