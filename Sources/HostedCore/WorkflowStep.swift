/// One step of a workflow, with the options its type takes.
public struct WorkflowStep: Equatable, Sendable, Codable {
    public let id: String
    public let type: StepType
    /// `premises_photos` only: how many photos, `min...max`.
    public let min: Int?
    public let max: Int?
    /// `digilocker` only: the documents requested.
    public let documents: [String]?
    /// Photo steps only: what a failed capture check means (nil: `guide`).
    public let quality: CaptureQualityMode?
    /// `premises_photos` only: ask the browser for the location at capture (nil: never).
    public let location: CaptureLocationMode?

    public init(id: String, type: StepType, min: Int? = nil, max: Int? = nil, documents: [String]? = nil,
                quality: CaptureQualityMode? = nil, location: CaptureLocationMode? = nil) {
        self.id = id
        self.type = type
        self.min = min
        self.max = max
        self.documents = documents
        self.quality = quality
        self.location = location
    }

    /// What a failed capture check means for this step.
    public var qualityMode: CaptureQualityMode { quality ?? .guide }
}
