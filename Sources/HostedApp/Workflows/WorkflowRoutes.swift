import HostedCore
import HostedHTTP

/// `GET/POST /v1/workflows`, `GET /v1/workflows/{key}`.
struct WorkflowRoutes {
    let guards: APIGuards
    let service: WorkflowService

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/v1/workflows", guards.authenticated { _, _, account in
            let all = try service.latest(accountID: account.id)
            return try .json(APIObjects.ListBody(url: "/v1/workflows", has_more: false, data: all.map(APIObjects.WorkflowBody.init)))
        })
        routes.add("POST", "/v1/workflows", guards.idempotent { request, _, account in
            var body = try JSONObject(body: request.body)
            var input = WorkflowService.CreateInput(
                key: body.string("key", required: true), name: body.string("name", required: true),
                steps: body.objects("steps", as: StepInput.self, fields: StepInput.fields),
                expiresAfterSeconds: body.int("expires_after_seconds"),
                redactAfterSeconds: body.int("retention", member: "redact_after_seconds"))
            let review = body.ints("review", members: ["approvals_required", "max_resubmissions"])
            input.approvalsRequired = review?["approvals_required"]
            input.maxResubmissions = review?["max_resubmissions"]
            let continuation = body.stringMap("continuation")
            for name in (continuation ?? [:]).keys.sorted() where !["matching", "on_report"].contains(name) {
                body.addError("continuation.\(name)", "is not a known field")
            }
            input.continuationMatching = continuation?["matching"]
            input.continuationOnReport = continuation?["on_report"]
            try body.finish()
            return try .json(APIObjects.WorkflowBody(try service.create(accountID: account.id, input)), status: 201)
        })
        routes.add("GET", "/v1/workflows/{key}", guards.authenticated { _, context, account in
            try .json(APIObjects.WorkflowBody(try service.workflow(accountID: account.id, key: context.parameters["key"] ?? "")))
        })
    }
}
