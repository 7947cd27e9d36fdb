import Foundation

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
    /// Continuing on another device: how the phone proves it sees the computer, and what a report does.
    public let continuation: WorkflowContinuation

    public init(accountID: ObjectID, key: String, name: String, version: Int, steps: [WorkflowStep], createdAt: Date,
                lifecycle: WorkflowLifecycle = WorkflowLifecycle(), review: WorkflowReview = WorkflowReview(),
                continuation: WorkflowContinuation = WorkflowContinuation()) {
        self.accountID = accountID
        self.key = key
        self.name = name
        self.version = version
        self.steps = steps
        self.createdAt = createdAt
        self.lifecycle = lifecycle
        self.review = review
        self.continuation = continuation
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
