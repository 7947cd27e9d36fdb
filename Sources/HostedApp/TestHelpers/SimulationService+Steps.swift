import Foundation
import HostedCore
import HostedImaging
import HostedStorage

/// `complete_steps`: every pending step filled with the built-in samples, in three parts so no
/// photo is decoded on an HTTP worker — `plan` (what each step gets, checked against the state
/// before anything changes), `decode` (the photos on the decode queue, one after another, through
/// the journey's own decode and measure) and `completeSteps` (back on a worker: sign-in when
/// nobody has, then each step through the journey's own calls).
extension SimulationService {
    /// What one pending step gets.
    enum PlannedStep: Sendable {
        case profile(stepID: String)
        case photos(stepID: String, type: StepType, bounds: ClosedRange<Int>, photos: [[UInt8]])
        case digilocker(stepID: String, documents: [[UInt8]])
    }

    struct Plan: Sendable {
        let verification: Verification
        /// Nobody has signed in yet (`created`): the user signs in first.
        let signsIn: Bool
        let steps: [PlannedStep]

        /// Every photo to decode, in the order the steps take them.
        var photos: [(bytes: [UInt8], type: StepType)] {
            steps.flatMap { step -> [(bytes: [UInt8], type: StepType)] in
                guard case .photos(_, let type, _, let photos) = step else { return [] }
                return photos.map { (bytes: $0, type: type) }
            }
        }
    }

    typealias Decoded = (image: NormalizedImage, measures: PhotoMeasures?)

    /// What `complete_steps` will do to the verification, or the status machine's conflict when
    /// its state allows no step to change (submitted, decided, closed): nothing is written here.
    func plan(tenancy: Tenancy, id: ObjectID) throws -> Plan {
        let current = try verification(tenancy: tenancy, id: id)
        // The machine's own answer, asked of a copy: a step can change only while it is editable.
        var probe = current
        if let first = current.steps.first {
            try probe.apply(.stepCompleted(stepID: first.id), at: clock.now(), by: .system, simulated: true)
        }
        // Premises photos that still count (not superseded) are compared with new ones: the
        // samples go on from there.
        var premisesInUse = current.steps.filter { $0.type == .premisesPhotos }.flatMap(\.captures).filter { !$0.superseded }.count
        var steps: [PlannedStep] = []
        for step in current.steps where step.completedAt == nil {
            let definition = try journey.definition(of: step.id, in: current)
            switch step.type {
            case .profile:
                steps.append(.profile(stepID: step.id))
            case .digilocker:
                steps.append(.digilocker(stepID: step.id, documents: try SimulationSamples.digiLockerDocuments(definition.documents ?? ["aadhaar"])))
            case .selfie, .premisesPhotos, .document:
                guard let bounds = JourneyService.imageBounds(definition) else { continue }
                let photos = try samples.photos(for: step.type, count: bounds.lowerBound - step.artifacts.count, offset: premisesInUse)
                if step.type == .premisesPhotos { premisesInUse += photos.count }
                steps.append(.photos(stepID: step.id, type: step.type, bounds: bounds, photos: photos))
            }
        }
        return Plan(verification: current, signsIn: current.status == .created, steps: steps)
    }

    /// Decodes and measures the plan's photos on the decode queue, one after another; calls
    /// `completion` once, on a decode thread (or at once when there is none to decode, or when
    /// the queue is full: 503 `server_busy`).
    func decode(_ plan: Plan, completion: @escaping @Sendable (Result<[Decoded], DomainError>) -> Void) {
        Self.decode(plan.photos, from: 0, done: [], journey: journey, completion: completion)
    }

    private static func decode(_ photos: [(bytes: [UInt8], type: StepType)], from index: Int, done: [Decoded], journey: JourneyService,
                               completion: @escaping @Sendable (Result<[Decoded], DomainError>) -> Void) {
        guard index < photos.count else { return completion(.success(done)) }
        let queued = journey.decode(photos[index].bytes, for: photos[index].type) { result in
            switch result {
            case .success(let decoded):
                decode(photos, from: index + 1, done: done + [(image: decoded.0, measures: decoded.1)], journey: journey,
                       completion: completion)
            case .failure(let error):
                completion(.failure(error))
            }
        }
        if !queued { completion(.failure(.decodesBusy)) }
    }

    /// Carries out `plan` with its decoded photos, on a worker: sign-in first when nobody has,
    /// then each step by the journey's own calls (the profile form, each photo with its capture
    /// checks, the step's completion, the DigiLocker documents), every event the test key's and
    /// simulated. Each step is its own transaction, as the person's would be.
    func completeSteps(_ plan: Plan, decoded: [Decoded], by actor: EventActor) throws -> Verification {
        var current = plan.verification
        if plan.signsIn {
            current = try apply(.signedIn(method: Self.signInMethod), tenancy: current.tenancy, id: current.id, by: actor)
        }
        var photos = decoded[...]
        for step in plan.steps {
            switch step {
            case .profile(let stepID):
                current = try journey.submitProfile(current, stepID: stepID, fullName: SimulationSamples.fullName,
                                                    dateOfBirth: SimulationSamples.dateOfBirth, simulatedBy: actor)
            case .photos(let stepID, _, let bounds, let bytes):
                for _ in bytes {
                    guard let photo = photos.popFirst() else { break }
                    _ = try journey.addImage(photo.image, measures: photo.measures, to: current, stepID: stepID, bounds: bounds,
                                             simulatedBy: actor)
                }
                current = try journey.completeStep(current, stepID: stepID, simulatedBy: actor)
            case .digilocker(let stepID, let documents):
                let now = clock.now()
                current = try journey.changeStep(current, stepID, simulatedBy: actor) { state, verification, connection in
                    state.artifacts = []
                    for content in documents {
                        let id = ObjectID(.artifact, using: random)
                        try journey.artifacts.insert(id: id, verificationID: verification.id, stepID: stepID,
                                                     contentType: "application/json", content: content, at: now, on: connection)
                        state.artifacts.append(id.rawValue)
                    }
                    state.completedAt = now
                }
            }
        }
        return current
    }
}
