import Foundation
import HostedCore
import Testing

/// Decodes steps the way the API receives them (StepInput has no public memberwise init).
private func steps(_ json: String) -> [StepInput] {
    do {
        return try JSONDecoder().decode([StepInput].self, from: Data(json.utf8))
    } catch {
        Issue.record("bad test JSON \(json): \(error)")
        return []
    }
}

private typealias ValidWorkflow = (key: String, name: String, steps: [WorkflowStep])

/// What `Workflow.validate` did: the result, or the rejection's code and field errors.
private enum WorkflowOutcome {
    case valid(ValidWorkflow)
    case rejected(code: String, errors: [FieldError])
    case otherError(DomainError)

    var value: ValidWorkflow? {
        if case .valid(let value) = self { return value }
        return nil
    }

    var fields: [String]? {
        if case .rejected(_, let errors) = self { return errors.map(\.field) }
        return nil
    }
}

private func validate(key: String? = "kyc_basic", name: String? = "Basic KYC", steps: [StepInput]?) -> WorkflowOutcome {
    do throws(DomainError) {
        return .valid(try Workflow.validate(key: key, name: name, steps: steps))
    } catch {
        guard case .invalidRequest(_, let errors, let code) = error else { return .otherError(error) }
        return .rejected(code: code.rawValue, errors: errors)
    }
}

private func validate(key: String? = "kyc_basic", name: String? = "Basic KYC", json: String) -> WorkflowOutcome {
    validate(key: key, name: name, steps: steps(json))
}

private let oneStep = #"[{"type": "selfie"}]"#

@Suite struct WorkflowValidationTests {
    // MARK: Valid workflows and defaults

    @Test func acceptsTheDesignExample() {
        let json = """
        [{"type": "profile"}, {"type": "selfie"},
         {"type": "premises_photos", "min": 2, "max": 4},
         {"type": "digilocker", "documents": ["aadhaar"]}]
        """
        let result = validate(json: json)
        guard let workflow = result.value else {
            Issue.record("rejected: \(result)")
            return
        }
        #expect(workflow.key == "kyc_basic")
        #expect(workflow.name == "Basic KYC")
        #expect(workflow.steps == [
            WorkflowStep(id: "profile", type: .profile),
            WorkflowStep(id: "selfie", type: .selfie),
            WorkflowStep(id: "premises_photos", type: .premisesPhotos, min: 2, max: 4),
            WorkflowStep(id: "digilocker", type: .digilocker, documents: ["aadhaar"]),
        ])
    }

    @Test func fillsInDefaults() {
        let json = """
        [{"type": "profile"}, {"type": "selfie"}, {"type": "premises_photos"},
         {"type": "document"}, {"type": "digilocker"}]
        """
        let result = validate(json: json)
        guard let workflow = result.value else {
            Issue.record("rejected: \(result)")
            return
        }
        #expect(workflow.steps.map(\.id) == ["profile", "selfie", "premises_photos", "document", "digilocker"])
        #expect(workflow.steps == [
            WorkflowStep(id: "profile", type: .profile),
            WorkflowStep(id: "selfie", type: .selfie),
            WorkflowStep(id: "premises_photos", type: .premisesPhotos, min: 1, max: 4),
            WorkflowStep(id: "document", type: .document),
            WorkflowStep(id: "digilocker", type: .digilocker, documents: ["aadhaar"]),
        ])
    }

    @Test(arguments: StepType.allCases)
    func everyStepTypeIsAccepted(_ type: StepType) {
        let result = validate(json: #"[{"type": "\#(type.rawValue)"}]"#)
        #expect(result.value?.steps.first?.type == type, "\(result)")
        #expect(result.value?.steps.first?.id == type.rawValue)
    }

    @Test func keepsExplicitIDsAndOrder() {
        let json = #"[{"type": "selfie", "id": "face_2"}, {"type": "selfie", "id": "face_1"}, {"type": "selfie"}]"#
        #expect(validate(json: json).value?.steps.map(\.id) == ["face_2", "face_1", "selfie"])
    }

    @Test(arguments: [
        (#"{"type": "premises_photos", "min": 2}"#, 2, 4),
        (#"{"type": "premises_photos", "min": 6}"#, 6, 6),
        (#"{"type": "premises_photos", "max": 2}"#, 1, 2),
        (#"{"type": "premises_photos", "min": 1, "max": 1}"#, 1, 1),
        (#"{"type": "premises_photos", "min": 10, "max": 10}"#, 10, 10),
        (#"{"type": "premises_photos", "min": 1, "max": 10}"#, 1, 10),
        (#"{"type": "premises_photos", "min": null, "max": null}"#, 1, 4),
    ])
    func premisesPhotoBounds(_ step: String, _ min: Int, _ max: Int) {
        let result = validate(json: "[\(step)]")
        #expect(result.value?.steps.first?.min == min, "\(step): \(result)")
        #expect(result.value?.steps.first?.max == max, "\(step): \(result)")
    }

    @Test func digilockerKeepsRequestedDocumentsInOrder() {
        let json = #"[{"type": "digilocker", "documents": ["pan", "driving_license", "aadhaar"]}]"#
        #expect(validate(json: json).value?.steps.first?.documents == ["pan", "driving_license", "aadhaar"])
    }

    @Test func trimsTheName() {
        #expect(validate(name: "  Basic KYC \n", json: oneStep).value?.name == "Basic KYC")
    }

    @Test(arguments: ["a", "kyc_basic", "kyc_2", "_", "0", String(repeating: "k", count: 64)])
    func acceptsKey(_ key: String) {
        #expect(validate(key: key, json: oneStep).value?.key == key)
    }

    @Test func acceptsNameOf200CharactersAndTwentySteps() {
        let name = String(repeating: "n", count: 200)
        let json = "[" + (0..<20).map { #"{"type": "selfie", "id": "s\#($0)"}"# }.joined(separator: ",") + "]"
        let result = validate(name: name, json: json)
        #expect(result.value?.name == name)
        #expect(result.value?.steps.count == 20)
    }

    // MARK: Rejections

    @Test(arguments: ["KYC", "Kyc_basic", "", String(repeating: "k", count: 65), "kyc-basic", "kyc basic",
                      "kyc.basic", "ky\u{00E7}", " kyc", "kyc\n", "kyc/1"])
    func rejectsKey(_ key: String) {
        let result = validate(key: key, json: oneStep)
        #expect(result.fields == ["key"], "\(key.debugDescription): \(result)")
    }

    @Test func rejectsMissingKeyNameAndSteps() {
        let result = validate(key: nil, name: nil, steps: nil)
        #expect(result.fields == ["key", "name", "steps"], "\(result)")
    }

    @Test(arguments: ["", " ", "   \t\n ", String(repeating: "n", count: 201), " " + String(repeating: "n", count: 201) + " ",
                      "Basic\u{0}KYC", "Basic\u{7}KYC"])
    func rejectsName(_ name: String) {
        let result = validate(name: name, json: oneStep)
        #expect(result.fields == ["name"], "\(name.debugDescription): \(result)")
    }

    @Test(arguments: [0, 21, 50])
    func rejectsStepCount(_ count: Int) {
        let json = "[" + (0..<count).map { #"{"type": "selfie", "id": "s\#($0)"}"# }.joined(separator: ",") + "]"
        let result = validate(json: json)
        #expect(result.fields == ["steps"], "\(count) steps: \(result)")
    }

    @Test func rejectsTheRejectionWithInvalidRequestCode() {
        guard case .rejected(let code, _) = validate(key: "BAD", json: oneStep) else {
            Issue.record("not rejected")
            return
        }
        #expect(code == "invalid_request")
    }

    @Test(arguments: [
        (#"[{"type": "selfie"}, {"type": "selfie"}]"#, "steps[1].id"),
        (#"[{"type": "profile", "id": "x"}, {"type": "selfie", "id": "x"}]"#, "steps[1].id"),
        (#"[{"type": "profile", "id": "selfie"}, {"type": "selfie"}]"#, "steps[1].id"),
        (#"[{"type": "selfie"}, {"type": "profile"}, {"type": "selfie", "id": "selfie"}]"#, "steps[2].id"),
    ])
    func rejectsDuplicateStepIDs(_ json: String, _ field: String) {
        let result = validate(json: json)
        #expect(result.fields == [field], "\(json): \(result)")
    }

    @Test(arguments: [
        #"[{"type": "passport"}]"#,
        #"[{"type": "SELFIE"}]"#,
        #"[{"type": ""}]"#,
        #"[{"id": "selfie"}]"#,
        #"[{"type": null}]"#,
        #"[{"type": "premisesPhotos"}]"#,
    ])
    func rejectsUnknownOrMissingType(_ json: String) {
        let result = validate(json: json)
        #expect(result.fields == ["steps[0].type"], "\(json): \(result)")
    }

    @Test func unknownTypeIsReportedAtItsIndex() {
        let result = validate(json: #"[{"type": "selfie"}, {"type": "profile"}, {"type": "liveness"}]"#)
        #expect(result.fields == ["steps[2].type"], "\(result)")
    }

    @Test(arguments: ["", "Selfie", "selfie-1", "selfie 1", String(repeating: "s", count: 65)])
    func rejectsStepID(_ id: String) {
        let result = validate(json: #"[{"type": "selfie", "id": "\#(id)"}]"#)
        #expect(result.fields == ["steps[0].id"], "\(id.debugDescription): \(result)")
    }

    @Test(arguments: [
        (#"{"type": "premises_photos", "min": 0}"#, "steps[0].min"),
        (#"{"type": "premises_photos", "min": -1, "max": 4}"#, "steps[0].min"),
        (#"{"type": "premises_photos", "min": 11}"#, "steps[0].min"),
        (#"{"type": "premises_photos", "min": 11, "max": 10}"#, "steps[0].min"),
        (#"{"type": "premises_photos", "min": 3, "max": 2}"#, "steps[0].max"),
        (#"{"type": "premises_photos", "min": 10, "max": 9}"#, "steps[0].max"),
        (#"{"type": "premises_photos", "max": 0}"#, "steps[0].max"),
        (#"{"type": "premises_photos", "max": 11}"#, "steps[0].max"),
        (#"{"type": "premises_photos", "min": 2, "max": 11}"#, "steps[0].max"),
    ])
    func rejectsPremisesPhotoBounds(_ step: String, _ field: String) {
        let result = validate(json: "[\(step)]")
        guard let fields = result.fields else {
            Issue.record("\(step): accepted \(result)")
            return
        }
        #expect(fields.contains(field), "\(step): \(fields)")
        #expect(fields.allSatisfy { $0 == "steps[0].min" || $0 == "steps[0].max" }, "\(step): \(fields)")
    }

    @Test(arguments: [
        #"{"type": "selfie", "min": 1}"#,
        #"{"type": "selfie", "max": 4}"#,
        #"{"type": "selfie", "min": 1, "max": 4}"#,
        #"{"type": "profile", "min": 1}"#,
        #"{"type": "document", "max": 2}"#,
        #"{"type": "digilocker", "min": 1}"#,
    ])
    func rejectsMinAndMaxOnOtherSteps(_ step: String) {
        let result = validate(json: "[\(step)]")
        guard let fields = result.fields, !fields.isEmpty else {
            Issue.record("\(step): accepted \(result)")
            return
        }
        #expect(fields.allSatisfy { $0 == "steps[0].min" || $0 == "steps[0].max" }, "\(step): \(fields)")
    }

    @Test(arguments: [
        #"{"type": "digilocker", "documents": ["passport"]}"#,
        #"{"type": "digilocker", "documents": ["aadhaar", "voter_id"]}"#,
        #"{"type": "digilocker", "documents": ["AADHAAR"]}"#,
        #"{"type": "digilocker", "documents": ["aadhaar", "aadhaar"]}"#,
        #"{"type": "digilocker", "documents": ["pan", "aadhaar", "pan"]}"#,
        #"{"type": "digilocker", "documents": []}"#,
        #"{"type": "digilocker", "documents": [""]}"#,
    ])
    func rejectsDigilockerDocuments(_ step: String) {
        let result = validate(json: "[\(step)]")
        #expect(result.fields == ["steps[0].documents"], "\(step): \(result)")
    }

    @Test(arguments: ["profile", "selfie", "premises_photos", "document"])
    func rejectsDocumentsOnOtherSteps(_ type: String) {
        let result = validate(json: #"[{"type": "\#(type)", "documents": ["aadhaar"]}]"#)
        #expect(result.fields == ["steps[0].documents"], "\(type): \(result)")
    }

    @Test func reportsEveryProblemAtOnce() {
        let json = """
        [{"type": "nope"},
         {"type": "premises_photos", "min": 0},
         {"type": "profile", "documents": ["aadhaar"]},
         {"type": "digilocker", "documents": []},
         {"type": "selfie"}, {"type": "selfie"}]
        """
        let result = validate(key: "Bad-Key", name: "   ", json: json)
        guard case .rejected(let code, let errors) = result else {
            Issue.record("not rejected: \(result)")
            return
        }
        #expect(code == "invalid_request")
        #expect(Set(errors.map(\.field)) == [
            "key", "name", "steps[0].type", "steps[1].min", "steps[2].documents", "steps[3].documents", "steps[5].id",
        ])
        #expect(errors.allSatisfy { !$0.message.isEmpty })
    }

    @Test func reportsEveryProblemOfOneStep() {
        let result = validate(json: #"[{"type": "selfie", "id": "Bad", "min": 1, "documents": ["aadhaar"]}]"#)
        #expect(Set(result.fields ?? []) == ["steps[0].id", "steps[0].min", "steps[0].documents"], "\(result)")
    }

    @Test func stepsAreCheckedEvenWhenKeyAndNameFail() {
        let result = validate(key: "", name: "", json: #"[{"type": "selfie", "min": 1}]"#)
        #expect(result.fields == ["key", "name", "steps[0].min"], "\(result)")
    }
}

// MARK: - VerificationRules

extension WorkflowValidationTests {
    /// Nested so that the `WorkflowValidationTests` filter runs it too.
    @Suite struct VerificationRulesTests {
        @Test(arguments: ["a", "user_123", "USER-42", "usr:42@acme.example", "A.b_c:d@e-f", "0",
                          "auth0|5f7c8ec7c33c6c004bbafe82", "google-oauth2|1234", "a+b@x.in", "\u{0917}\u{094D}\u{0930}\u{093E}\u{0939}\u{0915}-42",
                          "a b", " user", "user/1", "user#1", "user%20", "\u{00FC}ser", "\u{7528}\u{6237}", "user\u{00A0}1", "😀",
                          String(repeating: "u", count: 255), String(repeating: "ग", count: 255)])
        func acceptsUserID(_ id: String) {
            #expect(VerificationRules.isValidUserID(id))
        }

        @Test(arguments: ["", String(repeating: "u", count: 256), String(repeating: "ग", count: 256), "user\n", "user\t1",
                          "\u{0}", "a\u{7F}", "a\u{85}", "\u{1B}[31m"])
        func rejectsUserID(_ id: String) {
            #expect(!VerificationRules.isValidUserID(id), "\(id.debugDescription)")
        }

        @Test(arguments: ["+919876543210", "+14155552671", "+12345678", "+123456789012345", "+447911123456"])
        func acceptsE164Mobile(_ mobile: String) {
            #expect(VerificationRules.isValidMobile(mobile))
        }

        @Test(arguments: ["919876543210", "+0123456789", "+91 98765 43210", "+1234567", "+1234567890123456",
                          "", "+", "+9", "++919876543210", "+91-9876543210", "+919876543210 ", " +919876543210",
                          "+91987654321a", "+\u{FF19}\u{FF11}9876543210", "00919876543210", "+91\u{0}9876543210"])
        func rejectsMobile(_ mobile: String) {
            #expect(!VerificationRules.isValidMobile(mobile), "\(mobile.debugDescription)")
        }

        @Test func limits() {
            #expect(VerificationRules.maximumMetadataKeys == 20)
            #expect(VerificationRules.maximumMetadataKeyLength == 40)
            #expect(VerificationRules.maximumMetadataValueLength == 500)
        }

        @Test func acceptsEmptyMetadata() {
            #expect(VerificationRules.metadataErrors([:]).isEmpty)
        }

        @Test func acceptsMetadataAtEveryLimit() {
            var metadata: [String: String] = [:]
            for index in 0..<20 {
                let key = String(format: "k%02d", index) + String(repeating: "x", count: 37)
                metadata[key] = String(repeating: "v", count: 500)
            }
            #expect(metadata.count == 20)
            #expect(metadata.keys.allSatisfy { $0.count == 40 })
            #expect(VerificationRules.metadataErrors(metadata).isEmpty)
        }

        @Test func rejects21Keys() {
            let metadata = Dictionary(uniqueKeysWithValues: (0..<21).map { ("key\($0)", "v") })
            #expect(VerificationRules.metadataErrors(metadata).map(\.field) == ["metadata"])
        }

        @Test func rejectsKeyOf41Characters() {
            let key = String(repeating: "k", count: 41)
            #expect(VerificationRules.metadataErrors([key: "v"]).map(\.field) == ["metadata.\(key)"])
        }

        @Test func rejectsEmptyKey() {
            #expect(VerificationRules.metadataErrors(["": "v"]).map(\.field) == ["metadata."])
        }

        @Test func rejectsKeyWithControlCharacter() {
            #expect(VerificationRules.metadataErrors(["a\nb": "v"]).count == 1)
        }

        @Test func rejectsValueOf501Characters() {
            let errors = VerificationRules.metadataErrors(["order": String(repeating: "v", count: 501)])
            #expect(errors.map(\.field) == ["metadata.order"])
        }

        @Test func acceptsEmptyValue() {
            #expect(VerificationRules.metadataErrors(["order": ""]).isEmpty)
        }

        @Test func reportsEveryMetadataProblemUnderTheGivenField() {
            let longKey = String(repeating: "k", count: 41)
            var metadata = Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0)", "v") })
            metadata[longKey] = String(repeating: "v", count: 501)
            let errors = VerificationRules.metadataErrors(metadata, field: "meta")
            // Too many keys, then the long key's two problems (key too long, value too long).
            #expect(errors.map(\.field) == ["meta", "meta.\(longKey)", "meta.\(longKey)"])
        }
    }
}
