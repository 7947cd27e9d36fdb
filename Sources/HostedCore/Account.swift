import Foundation

/// A customer of Hosted: the owner of API keys, workflows, return URLs and verifications.
public struct Account: Equatable, Sendable {
    public let id: ObjectID
    public let name: String
    public let createdAt: Date

    public init(id: ObjectID, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    /// Longest account name accepted, in characters.
    public static let maximumNameLength = 200

    /// Checks an account name: non-empty after trimming, at most 200 characters, no control characters.
    public static func validateName(_ name: String) throws(DomainError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumNameLength,
              !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidRequest(detail: "The account name must be 1 to \(maximumNameLength) printable characters.",
                                  errors: [FieldError(field: "name", message: "must be 1 to \(maximumNameLength) printable characters")])
        }
        return trimmed
    }
}
