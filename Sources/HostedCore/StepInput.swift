/// A step as a client sent it, before validation.
public struct StepInput: Sendable, Decodable {
    public let type: String?
    public let id: String?
    public let min: Int?
    public let max: Int?
    public let documents: [String]?
    public let quality: String?
    public let location: String?

    /// The keys a step object may have: any other is refused, as at the top level of a body.
    public static let fields: Set<String> = ["type", "id", "min", "max", "documents", "quality", "location"]

    /// Field errors of one step.
    struct Errors: Error {
        let errors: [FieldError]
    }

    func validated(field: String) throws(Errors) -> WorkflowStep {
        var errors: [FieldError] = []
        guard let type = type.flatMap(StepType.init(rawValue:)) else {
            throw Errors(errors: [FieldError(field: "\(field).type", message: "must be one of \(StepType.allCases.map(\.rawValue).joined(separator: ", "))")])
        }
        let id = self.id ?? type.rawValue
        if !Workflow.isIdentifier(id) {
            errors.append(FieldError(field: "\(field).id", message: "must be 1 to 64 characters of a-z, 0-9 and _"))
        }
        var min: Int?
        var max: Int?
        var documents: [String]?
        switch type {
        case .premisesPhotos:
            min = self.min ?? 1
            max = self.max ?? Swift.max(4, min ?? 1)
            if let low = min, !(1...Workflow.maximumPhotos).contains(low) {
                errors.append(FieldError(field: "\(field).min", message: "must be 1 to \(Workflow.maximumPhotos)"))
            }
            if let high = max, !(1...Workflow.maximumPhotos).contains(high) || high < (min ?? 1) {
                errors.append(FieldError(field: "\(field).max", message: "must be min to \(Workflow.maximumPhotos)"))
            }
        case .digilocker:
            let requested = self.documents ?? ["aadhaar"]
            if requested.isEmpty || Set(requested).count != requested.count || !requested.allSatisfy(Workflow.digilockerDocuments.contains) {
                errors.append(FieldError(field: "\(field).documents",
                                         message: "must list distinct documents among \(Workflow.digilockerDocuments.sorted().joined(separator: ", "))"))
            }
            documents = requested
        default:
            break
        }
        if type != .premisesPhotos && (self.min != nil || self.max != nil) {
            errors.append(FieldError(field: "\(field).min", message: "only premises_photos takes min and max"))
        }
        if type != .digilocker && self.documents != nil {
            errors.append(FieldError(field: "\(field).documents", message: "only digilocker takes documents"))
        }
        var quality: CaptureQualityMode?
        if let raw = self.quality {
            quality = CaptureQualityMode(rawValue: raw)
            if ![.selfie, .premisesPhotos, .document].contains(type) {
                errors.append(FieldError(field: "\(field).quality", message: "only selfie, premises_photos and document take quality"))
            } else if quality == nil {
                errors.append(FieldError(field: "\(field).quality", message: "must be guide or require"))
            }
        }
        var location: CaptureLocationMode?
        if let raw = self.location {
            location = CaptureLocationMode(rawValue: raw)
            if type != .premisesPhotos {
                errors.append(FieldError(field: "\(field).location", message: "only premises_photos takes location"))
            } else if location == nil {
                errors.append(FieldError(field: "\(field).location", message: "must be ask"))
            }
        }
        guard errors.isEmpty else { throw Errors(errors: errors) }
        return WorkflowStep(id: id, type: type, min: min, max: max, documents: documents, quality: quality, location: location)
    }
}
