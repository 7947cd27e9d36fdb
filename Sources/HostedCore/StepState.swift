import Foundation

/// One step's progress within a verification.
public struct StepState: Equatable, Sendable, Codable {
    public let id: String
    public let type: StepType
    public var completedAt: Date?
    /// Ids of the artifacts captured for this step, in capture order.
    public var artifacts: [String]

    public init(id: String, type: StepType, completedAt: Date? = nil, artifacts: [String] = []) {
        self.id = id
        self.type = type
        self.completedAt = completedAt
        self.artifacts = artifacts
    }

    /// `pending` or `completed`, as the API and the journey page show it.
    public var statusName: String { completedAt == nil ? "pending" : "completed" }

    enum CodingKeys: String, CodingKey { case id, type, completedAt, artifacts }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decode(StepType.self, forKey: .type)
        completedAt = try container.decodeIfPresent(Date.self, forKey: .completedAt)
        // Rows written before steps had artifacts have none.
        artifacts = try container.decodeIfPresent([String].self, forKey: .artifacts) ?? []
    }
}
