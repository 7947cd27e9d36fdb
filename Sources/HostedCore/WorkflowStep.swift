/// One step of a workflow, with the options its type takes.
public struct WorkflowStep: Equatable, Sendable, Codable {
    public let id: String
    public let type: StepType
    /// `premises_photos` only: how many photos, `min...max`.
    public let min: Int?
    public let max: Int?
    /// `digilocker` only: the documents requested.
    public let documents: [String]?

    public init(id: String, type: StepType, min: Int? = nil, max: Int? = nil, documents: [String]? = nil) {
        self.id = id
        self.type = type
        self.min = min
        self.max = max
        self.documents = documents
    }
}
