import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// Journey analytics over HTTP: the page's own signals (`POST /j/{id}/api/signals`), the
/// customer API's funnel (`GET /v1/analytics/funnel`) and the console's (`/console/analytics`
/// and `GET /console/api/analytics/funnel`), all through `AnalyticsService`.
struct AnalyticsRoutes {
    let service: AnalyticsService

    /// Inside `SameOrigin` and `JourneySessionAuthentication`: the page says which step it
    /// shows, that the camera is not available, or that the user continues on another device.
    /// 202 at once, whatever becomes of the signal.
    func registerJourney(in routes: inout Router.Builder) {
        routes.add("POST", "/j/{id}/api/signals", bodyLimit: 1024) { request, context in
            let (_, verification) = try context.journey()
            var body = try JSONObject(body: request.body)
            let name = body.string("signal", required: true)
            let step = body.string("step")
            try body.finish()
            var errors: [FieldError] = []
            let signal = name.flatMap(JourneySignal.init(rawValue:)).flatMap { JourneySignal.fromPage.contains($0) ? $0 : nil }
            if signal == nil, name != nil {
                errors.append(FieldError(field: "signal", message: "must be step_viewed, camera_unavailable or continued_elsewhere"))
            }
            if let step, !verification.steps.contains(where: { $0.id == step }) {
                errors.append(FieldError(field: "step", message: "is not a step of this verification"))
            } else if step == nil, signal == .stepViewed {
                errors.append(FieldError(field: "step", message: "is required for step_viewed", code: .required))
            }
            guard errors.isEmpty, let signal else { throw DomainError.invalidRequest(detail: "The signal is not valid.", errors: errors) }
            service.record(signal, step: step ?? "", in: verification, userAgent: request.headers["User-Agent"])
            return Response(status: 202)
        }
    }

    /// Inside `APIKeyAuthentication`: the account's funnel.
    func registerAPI(guards: APIGuards, in routes: inout Router.Builder) {
        routes.add("GET", "/v1/analytics/funnel", guards.authenticated { request, context, _ in
            try funnel(request, tenancy: try context.tenancy())
        })
    }

    /// The console's page (the console's one shell) and, inside `ConsoleSessionAuthentication`,
    /// the operator's account's funnel.
    func registerConsolePage(page: @escaping RouteHandler, in routes: inout Router.Builder) {
        routes.add("GET", "/console/analytics", page)
    }

    func registerConsole(in routes: inout Router.Builder) {
        routes.add("GET", "/console/api/analytics/funnel") { request, context in
            let op = try context.signedInOperator()
            return try funnel(request, tenancy: ConsoleMode.tenancy(op, request), workflows: try service.workflowKeys(accountID: op.accountID))
        }
    }

    /// `workflows` (the console's): the account's workflow keys, added for the page's filter.
    private func funnel(_ request: Request, tenancy: Tenancy, workflows: [String]? = nil) throws -> Response {
        var errors = request.query.filter { !["workflow", "from", "to"].contains($0.name) }
            .map { FieldError(field: $0.name, message: "is not a known parameter") }
        let workflow = request.queryValue("workflow").flatMap { $0.isEmpty ? nil : $0 }
        if let workflow, workflow.utf8.count > 64 || workflow.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.append(FieldError(field: "workflow", message: "must be a workflow key"))
        }
        let range = service.range(from: request.queryValue("from"), to: request.queryValue("to"), errors: &errors)
        guard errors.isEmpty, let range else { throw DomainError.invalidRequest(detail: "The query is not valid.", errors: errors) }
        let funnel = try service.funnel(tenancy: tenancy, workflowKey: workflow, range: range)
        var response = Response.json(bytes: Self.json(funnel, range: range, workflow: workflow, workflows: workflows))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// `{"object": "analytics.funnel", "from", "to", "workflow", "stages", "steps", "retakes", "devices"}`.
    static func json(_ funnel: JourneyFunnel, range: AnalyticsRange, workflow: String?, workflows: [String]? = nil) -> [UInt8] {
        var object = JSONText.Object()
        object.string("object", "analytics.funnel")
        object.string("from", range.from.text)
        object.string("to", range.to.text)
        object.string("workflow", workflow)
        object.objects("stages", funnel.stages) { item, stage in
            item.string("stage", stage.stage.rawValue)
            item.int("count", stage.count)
            item.number("conversion", stage.conversion)
        }
        object.objects("steps", funnel.steps) { item, step in
            item.string("step", step.step)
            item.int("viewed", step.viewed)
            item.int("completed", step.completed)
            if let median = step.medianSeconds { item.number("median_seconds", median, decimals: 1) } else { item.raw("median_seconds", "null") }
        }
        object.objects("retakes", funnel.retakes) { item, retake in
            item.string("step", retake.step)
            item.string("reason", retake.reason)
            item.int("count", retake.count)
        }
        object.objects("devices", funnel.devices) { item, device in
            item.string("class", device.deviceClass)
            item.int("opened", device.opened)
            item.int("submitted", device.submitted)
        }
        if let workflows { object.strings("workflows", workflows) }
        return object.finish()
    }
}
