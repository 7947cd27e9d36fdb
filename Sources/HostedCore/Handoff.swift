import Foundation

/// A single-use sign-in address minted for one visit. Only the SHA-256 of its secret is stored;
/// the secret itself travels in the URL fragment.
public struct Handoff: Equatable, Sendable {
    public let id: ObjectID
    public let verificationID: ObjectID
    public let accountID: ObjectID
    /// For this visit, instead of the verification's return URL.
    public let returnURL: String?
    public let createdAt: Date
    public let expiresAt: Date

    public init(id: ObjectID, verificationID: ObjectID, accountID: ObjectID, returnURL: String?, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.verificationID = verificationID
        self.accountID = accountID
        self.returnURL = returnURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Lifetime bounds in seconds: default 300, accepted 30…900.
    public static let defaultLifetime = 300
    public static let lifetimeRange = 30...900

    /// Checks a requested lifetime.
    public static func lifetime(_ requested: Int?) throws(DomainError) -> Int {
        guard let requested else { return defaultLifetime }
        guard lifetimeRange.contains(requested) else {
            throw .invalidRequest(detail: "expires_in_seconds must be \(lifetimeRange.lowerBound) to \(lifetimeRange.upperBound).",
                                  errors: [FieldError(field: "expires_in_seconds", message: "must be \(lifetimeRange.lowerBound) to \(lifetimeRange.upperBound)")])
        }
        return requested
    }
}
