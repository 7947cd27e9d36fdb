import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// The journey's step calls: the profile form, images (add, remove), completing a step, submit.
struct JourneyStepRoutes {
    let service: JourneyService
    /// Step completions, retakes and submits are counted there (best effort, off the request).
    let analytics: AnalyticsService

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/j/{id}/api/state") { _, context in
            let (session, verification) = try context.journey()
            return try .json(service.state(of: verification, session: session))
        }
        routes.add("POST", "/j/{id}/api/steps/{step}/profile", bodyLimit: 8192) { request, context in
            let (session, verification) = try context.journey()
            var body = try JSONObject(body: request.body)
            let fullName = body.string("full_name", required: true)
            let dateOfBirth = body.string("date_of_birth", required: true)
            try body.finish()
            let updated = try service.submitProfile(verification, stepID: context.parameters["step"] ?? "",
                                                    fullName: fullName, dateOfBirth: dateOfBirth)
            analytics.record(.stepCompleted, step: context.parameters["step"] ?? "", in: verification, userAgent: request.headers["User-Agent"])
            return try .json(service.state(of: updated, session: session))
        }
        // The image is the raw body: 8 MB at most, refused before it is read when larger. It is
        // decoded on the decode queue (the worker moves on); storing it is back on a worker.
        routes.addDeferrable("POST", "/j/{id}/api/steps/{step}/images", bodyLimit: ImageInspector.maximumBytes) { request, context in
            let (_, verification) = try context.journey()
            let stepID = context.parameters["step"] ?? ""
            let (step, bounds) = try service.imageStep(stepID, in: verification)
            let location = try Self.location(in: request, for: step)
            let log = context.log
            return Reply.eventually { settle in
                let queued = service.decode(request.body, for: step.type) { decoded in
                    settle(.onWorker {
                        do {
                            let (image, measures) = try decoded.get()
                            let (id, count, quality) = try service.addImage(image, measures: measures, location: location, to: verification,
                                                                            stepID: stepID, bounds: bounds)
                            return .ready(Self.imageAdded(id, count: count, quality: quality))
                        } catch {
                            return .ready(ErrorBoundary.problem(for: error, log: log).response)
                        }
                    })
                }
                if !queued { settle(.ready(DomainError.decodesBusy.response)) }
            }
        }
        routes.add("DELETE", "/j/{id}/api/steps/{step}/images/{artifact}") { request, context in
            let (_, verification) = try context.journey()
            try service.removeImage(verification, stepID: context.parameters["step"] ?? "", artifactID: context.parameters["artifact"] ?? "")
            analytics.removed(photo: context.parameters["artifact"] ?? "", step: context.parameters["step"] ?? "", in: verification,
                              userAgent: request.headers["User-Agent"])
            return Response(status: 204)
        }
        routes.add("POST", "/j/{id}/api/steps/{step}/complete", bodyLimit: 1024) { request, context in
            let (session, verification) = try context.journey()
            var body = try JSONObject(body: request.body)
            let keepAnyway = body.bool("keep_anyway") ?? false
            try body.finish()
            let updated = try service.completeStep(verification, stepID: context.parameters["step"] ?? "", keepAnyway: keepAnyway)
            analytics.record(.stepCompleted, step: context.parameters["step"] ?? "", in: verification, userAgent: request.headers["User-Agent"])
            return try .json(service.state(of: updated, session: session))
        }
        routes.add("POST", "/j/{id}/api/submit") { request, context in
            let (session, verification) = try context.journey()
            let submitted = try service.submit(verification)
            analytics.record(.submitted, in: verification, userAgent: request.headers["User-Agent"])
            // A second device goes back to the first, which goes on to the return URL.
            let redirect = session.continued ? nil : try service.redirect(after: submitted, visitReturnURL: session.returnURL, nonce: session.nonce)
            // `{"redirect_url":…,"status":…}`, keys sorted as `JSONCoding.encoder` wrote them.
            var object = JSONText.Object()
            object.string("redirect_url", redirect)
            object.string("status", submitted.status.rawValue)
            return .json(bytes: object.finish())
        }
    }

    /// Where a premises photo was taken, from the upload's query (`latitude`, `longitude`,
    /// `accuracy_m`, all three or none), only for a step that asks (`"location": "ask"`).
    static func location(in request: Request, for step: WorkflowStep) throws -> CaptureLocation? {
        let names = ["latitude", "longitude", "accuracy_m"]
        var errors = request.query.filter { !names.contains($0.name) }
            .map { FieldError(field: $0.name, message: "is not a known parameter") }
        let given = names.map { request.queryValue($0) }
        if given.allSatisfy({ $0 == nil }) {
            try ListParameters.refuse(errors)
            return nil
        }
        var location: CaptureLocation?
        if step.location != .ask {
            errors.append(FieldError(field: "latitude", message: "this step does not ask for the location"))
        } else {
            let numbers = given.compactMap { $0.flatMap(Double.init) }
            if numbers.count == 3 { location = CaptureLocation(latitude: numbers[0], longitude: numbers[1], accuracyM: numbers[2]) }
        }
        if step.location == .ask && location == nil {
            errors.append(FieldError(field: "latitude",
                                     message: "latitude (-90 to 90), longitude (-180 to 180) and accuracy_m (0 to 100000) go together"))
        }
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The photo's location is not valid.", errors: errors) }
        return location
    }

    /// The upload's answer: the artifact, the step's image count and the checks' verdict.
    static func imageAdded(_ id: ObjectID, count: Int, quality: CaptureQuality?) -> Response {
        var object = JSONText.Object()
        object.string("artifact_id", id.rawValue)
        object.int("count", count)
        if let quality { object.object("quality") { APIObjects.write(quality, to: &$0) } }
        return .json(bytes: object.finish(), status: 201)
    }
}
