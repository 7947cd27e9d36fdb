import Foundation
import HostedCore
import HostedImaging
import HostedStorage

/// Photos with their capture checks: measured on the decode thread, judged by the core
/// (`CaptureChecks`), kept with the step (`Capture`), retaken without losing the earlier photo.
extension JourneyService {
    /// Decodes an upload on the decode queue, measures the stored copy (faces on selfies) and
    /// calls `completion` there; false (nothing started) when the queue is full.
    func decode(_ bytes: [UInt8], for step: StepType,
                completion: @escaping @Sendable (Result<(NormalizedImage, PhotoMeasures?), DomainError>) -> Void) -> Bool {
        // Decoded and re-encoded before anything is stored: what is kept is the photo's pixels,
        // never the uploaded file (EXIF position, trailing HTML, a header with no image).
        decodes.submitMeasured(bytes, detectingFaces: step == .selfie) { result in
            completion(result.mapError { _ in Self.imageInvalid })
        }
    }

    static let imageInvalid = DomainError.invalidRequest(
        detail: "The file must be an undamaged JPEG or PNG photo of at most 8 MB and 50 megapixels "
            + "(16 if progressive or interlaced), 8 bits per colour.", code: .imageInvalid)

    /// Adds one decoded image to an image step with the checks' verdict on it; returns the
    /// artifact id, the step's image count and the verdict (nil when the photo could not be measured).
    func addImage(_ image: NormalizedImage, measures: PhotoMeasures?, location: CaptureLocation? = nil, to verification: Verification,
                  stepID: String,
                  bounds: ClosedRange<Int>, simulatedBy: EventActor? = nil) throws -> (ObjectID, count: Int, quality: CaptureQuality?) {
        let id = ObjectID(.artifact, using: random)
        // Before the step's transaction: with an object store this is the PUT (never a network
        // call with a transaction open); a failure answers 503 and commits no row and no step change.
        let prepared = try artifacts.prepare(image.bytes, id: id, verificationID: verification.id, accountID: verification.accountID,
                                             at: clock.now())
        var count = 0
        var quality: CaptureQuality?
        _ = try changeStep(verification, stepID, simulatedBy: simulatedBy) { step, current, connection in
            guard step.artifacts.count < bounds.upperBound else {
                throw DomainError.conflict(detail: "This step takes at most \(bounds.upperBound) image(s).", code: .tooManyImages)
            }
            guard step.attempts < CaptureRules.maximumAttempts else {
                throw DomainError.conflict(detail: "This step has had \(CaptureRules.maximumAttempts) photos, the most it takes.",
                                           code: .tooManyImages)
            }
            let now = clock.now()
            try artifacts.insert(prepared, id: id, verificationID: current.id, stepID: stepID, contentType: image.contentType,
                                 at: now, on: connection)
            step.attempts += 1
            let compared = CaptureRules.comparedHashes(for: step.type, in: current.steps.filter { $0.id != stepID } + [step])
            quality = measures.map { CaptureQuality($0, step: step.type, attempt: step.attempts, earlierHashes: compared) }
            step.captures.append(Capture(id: id.rawValue, contentType: image.contentType, capturedAt: now, quality: quality,
                                         hash: measures?.hash, width: image.width, height: image.height, location: location))
            step.artifacts.append(id.rawValue)
            count = step.artifacts.count
        }
        return (id, count, quality)
    }

    /// A retake: the image leaves the step, and its capture stays, superseded, for the reviewer
    /// (its bytes go with the verification's redaction).
    func removeImage(_ verification: Verification, stepID: String, artifactID: String) throws {
        _ = try changeStep(verification, stepID) { step, _, _ in
            guard step.artifacts.contains(artifactID) else { throw DomainError.notFound(what: "image") }
            step.artifacts.removeAll { $0 == artifactID }
            for index in step.captures.indices where step.captures[index].id == artifactID {
                step.captures[index].superseded = true
            }
        }
    }

    /// Completes an image step whose image count is within its bounds. A photo that fails its
    /// checks is kept flagged (`accepted_by_user`); where the workflow requires passing photos
    /// (`quality: "require"`), that needs `keepAnyway` from the third attempt on, else 409
    /// `capture_quality`.
    func completeStep(_ verification: Verification, stepID: String, keepAnyway: Bool = false,
                      simulatedBy: EventActor? = nil) throws -> Verification {
        let definition = try definition(of: stepID, in: verification)
        guard let bounds = Self.imageBounds(definition) else {
            throw DomainError.conflict(detail: "This step is completed by its own form.", code: .stepIncomplete)
        }
        return try changeStep(verification, stepID, simulatedBy: simulatedBy) { step, _, _ in
            guard bounds.contains(step.artifacts.count) else {
                throw DomainError.invalidRequest(detail: "This step needs \(bounds.lowerBound) to \(bounds.upperBound) image(s).",
                                                 code: .stepIncomplete)
            }
            let failing = step.captures.indices.filter { index in
                let capture = step.captures[index]
                return step.artifacts.contains(capture.id) && capture.quality.map { !$0.passed } == true
            }
            if !failing.isEmpty && definition.qualityMode == .require {
                guard keepAnyway, step.attempts >= CaptureRules.keepAnywayFromAttempt else {
                    let reasons = Set(failing.flatMap { step.captures[$0].quality?.reasons ?? [] }).map(\.rawValue).sorted()
                    throw DomainError.conflict(
                        detail: "A photo of this step does not pass its checks (\(reasons.joined(separator: ", "))); retake it"
                            + (step.attempts >= CaptureRules.keepAnywayFromAttempt ? " or keep it anyway." : "."),
                        code: .captureQuality)
                }
            }
            for index in failing { step.captures[index].quality?.acceptedByUser = true }
            step.completedAt = clock.now()
        }
    }
}
