import Foundation
import HostedCore
import HostedStorage

/// The rules of creating and changing verifications, over the stores.
struct VerificationService: Sendable {
    let verifications: VerificationStore
    let workflows: WorkflowStore
    let returnURLs: ReturnURLStore
    let policy: ReturnURLPolicy
    let clock: any WallClock
    let random: any RandomSource

    /// What a customer sends to create a verification (already type-checked).
    struct CreateInput {
        var userID: String?
        var workflowKey: String?
        var mobile: String?
        var returnURL: String?
        var metadata: [String: String]?
    }

    /// Creates a verification, or returns the open one for the same user and workflow.
    func create(accountID: ObjectID, _ input: CreateInput) throws -> (Verification, created: Bool) {
        var errors: [FieldError] = []
        if let userID = input.userID, !VerificationRules.isValidUserID(userID) {
            errors.append(FieldError(field: "user_id", message: "must be 1 to 255 characters, none of them a control character"))
        }
        if let mobile = input.mobile, !VerificationRules.isValidMobile(mobile) {
            errors.append(FieldError(field: "mobile", message: "must be an E.164 number such as +919876543210", code: "mobile_invalid"))
        }
        errors += VerificationRules.metadataErrors(input.metadata ?? [:])
        var workflow: Workflow?
        if let key = input.workflowKey {
            workflow = try workflows.workflow(accountID: accountID, key: key)
            if workflow == nil { errors.append(FieldError(field: "workflow", message: "no such workflow")) }
        }
        guard errors.isEmpty, let userID = input.userID, let mobile = input.mobile, let workflow else {
            throw DomainError.invalidRequest(detail: "The verification is not valid.", errors: errors)
        }
        let returnURL = try input.returnURL.map { try registeredReturnURL($0, accountID: accountID) }
        let now = clock.now()
        let verification = Verification(
            id: ObjectID(.verification, using: random), accountID: accountID, userID: userID, workflowKey: workflow.key,
            workflowVersion: workflow.version, status: .created, mobile: mobile, returnURL: returnURL,
            metadata: input.metadata ?? [:], steps: workflow.steps.map { StepState(id: $0.id, type: $0.type) },
            createdAt: now, updatedAt: now)
        return try verifications.createOrFetchOpen(verification)
    }

    /// Changes mobile, return URL or metadata while the verification is still editable.
    func update(accountID: ObjectID, id: ObjectID, mobile: String?, returnURL: String??, metadata: [String: String]?) throws -> Verification {
        var errors: [FieldError] = []
        if let mobile, !VerificationRules.isValidMobile(mobile) {
            errors.append(FieldError(field: "mobile", message: "must be an E.164 number such as +919876543210", code: "mobile_invalid"))
        }
        if let metadata { errors += VerificationRules.metadataErrors(metadata) }
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The update is not valid.", errors: errors) }
        let checkedReturnURL: String?? = try returnURL.map { url in try url.map { try registeredReturnURL($0, accountID: accountID) } }
        return try verifications.update(accountID: accountID, id: id, at: clock.now()) { verification in
            guard verification.status.isEditable else { throw Self.closed(verification, action: "changed") }
            if let mobile { verification.mobile = mobile }
            if let checkedReturnURL { verification.returnURL = checkedReturnURL }
            if let metadata { verification.metadata = metadata }
        }
    }

    /// Cancels; already-canceled is answered as is, a decided or expired one is refused.
    func cancel(accountID: ObjectID, id: ObjectID) throws -> Verification {
        let now = clock.now()
        return try verifications.update(accountID: accountID, id: id, at: now) { verification in
            try verification.apply(.canceled, at: now)
        }
    }

    private func registeredReturnURL(_ text: String, accountID: ObjectID) throws -> String {
        try policy.requireRegistered(text, registered: try returnURLs.list(accountID: accountID).map(\.url)).url
    }

    static func closed(_ verification: Verification, action: String) -> DomainError {
        .conflict(detail: "The verification is \(verification.status.rawValue) and can no longer be \(action).",
                  code: .verificationClosed)
    }
}
