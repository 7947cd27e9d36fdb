import HostedCore
import HostedHTTP
import HostedStorage

/// `GET/POST /v1/workflows`, `GET /v1/workflows/{key}`.
struct WorkflowRoutes {
    let guards: APIGuards
    let workflows: WorkflowStore
    let clock: any WallClock
    /// Dev mode lets expiry and retention go down to one second.
    let devMode: Bool

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/workflows", guards.authenticated { _, _, account in
            let all = try workflows.latestWorkflows(accountID: account.id)
            return try .json(APIObjects.ListBody(url: "/v1/workflows", has_more: false, data: all.map(APIObjects.WorkflowBody.init)))
        })
        routes.add("POST", "/v1/workflows", guards.idempotent { request, _, account in
            var body = try JSONObject(body: request.body)
            let key = body.string("key", required: true)
            let name = body.string("name", required: true)
            let steps = body.objects("steps", as: StepInput.self, fields: StepInput.fields)
            let expiresAfter = body.int("expires_after_seconds")
            let redactAfter = body.int("retention", member: "redact_after_seconds")
            let approvals = body.int("review", member: "approvals_required")
            try body.finish()
            let valid = try Workflow.validate(key: key, name: name, steps: steps)
            let lifecycle = try WorkflowLifecycle.validate(expiresAfterSeconds: expiresAfter.map(Int64.init),
                                                           redactAfterSeconds: redactAfter.map(Int64.init), devMode: devMode)
            let review = try WorkflowReview.validate(approvalsRequired: approvals)
            let workflow = try workflows.createVersion(accountID: account.id, key: valid.key, name: valid.name,
                                                       steps: valid.steps, lifecycle: lifecycle, review: review, at: clock.now())
            return try .json(APIObjects.WorkflowBody(workflow), status: 201)
        })
        routes.add("GET", "/v1/workflows/{key}", guards.authenticated { _, context, account in
            guard let workflow = try workflows.workflow(accountID: account.id, key: context.parameters["key"] ?? "") else {
                throw DomainError.notFound(what: "workflow")
            }
            return try .json(APIObjects.WorkflowBody(workflow))
        })
    }
}
