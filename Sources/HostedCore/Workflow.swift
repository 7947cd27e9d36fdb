import Foundation

/// The kinds of step a workflow can hold.
public enum StepType: String, Sendable, CaseIterable, Codable {
    case profile
    case selfie
    case premisesPhotos = "premises_photos"
    case document
    case digilocker
}

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

/// A named, versioned, ordered list of steps. Re-posting a key makes a new version; a
/// verification pins the version it was created with.
public struct Workflow: Equatable, Sendable {
    public let accountID: ObjectID
    public let key: String
    public let name: String
    public let version: Int
    public let steps: [WorkflowStep]
    public let createdAt: Date
    public let lifecycle: WorkflowLifecycle
    public let review: WorkflowReview

    public init(accountID: ObjectID, key: String, name: String, version: Int, steps: [WorkflowStep], createdAt: Date,
                lifecycle: WorkflowLifecycle = WorkflowLifecycle(), review: WorkflowReview = WorkflowReview()) {
        self.accountID = accountID
        self.key = key
        self.name = name
        self.version = version
        self.steps = steps
        self.createdAt = createdAt
        self.lifecycle = lifecycle
        self.review = review
    }

    /// Documents DigiLocker can return.
    public static let digilockerDocuments: Set<String> = ["aadhaar", "pan", "driving_license"]
    static let maximumSteps = 20
    static let maximumPhotos = 10

    /// Checks a workflow definition and fills in defaults; every problem found is reported at once.
    public static func validate(key: String?, name: String?, steps: [StepInput]?) throws(DomainError) -> (key: String, name: String, steps: [WorkflowStep]) {
        var errors: [FieldError] = []
        if key.map(isIdentifier) != true {
            errors.append(FieldError(field: "key", message: "must be 1 to 64 characters of a-z, 0-9 and _"))
        }
        let trimmedName = name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if trimmedName.isEmpty || trimmedName.count > 200 || trimmedName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.append(FieldError(field: "name", message: "must be 1 to 200 printable characters"))
        }
        var result: [WorkflowStep] = []
        if let steps, (1...maximumSteps).contains(steps.count) {
            var seen: Set<String> = []
            for (index, input) in steps.enumerated() {
                let field = "steps[\(index)]"
                do {
                    let step = try input.validated(field: field)
                    if !seen.insert(step.id).inserted {
                        errors.append(FieldError(field: "\(field).id", message: "duplicates another step's id"))
                    }
                    result.append(step)
                } catch let stepErrors {
                    errors.append(contentsOf: stepErrors.errors)
                }
            }
        } else {
            errors.append(FieldError(field: "steps", message: "must list 1 to \(maximumSteps) steps"))
        }
        guard errors.isEmpty, let key else {
            throw .invalidRequest(detail: "The workflow is not valid.", errors: errors)
        }
        return (key, trimmedName, result)
    }

    static func isIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }
}

/// A step as a client sent it, before validation.
public struct StepInput: Sendable, Decodable {
    public let type: String?
    public let id: String?
    public let min: Int?
    public let max: Int?
    public let documents: [String]?

    /// The keys a step object may have: any other is refused, as at the top level of a body.
    public static let fields: Set<String> = ["type", "id", "min", "max", "documents"]

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
        guard errors.isEmpty else { throw Errors(errors: errors) }
        return WorkflowStep(id: id, type: type, min: min, max: max, documents: documents)
    }
}
