import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// `/v1/verifications`: create (idempotent per user and workflow), read (ETag, long-poll, rate
/// limit), list, update, cancel, redact. Parses, calls `VerificationService` or
/// `VerificationReadService`, answers.
struct VerificationRoutes {
    let guards: APIGuards
    let service: VerificationService
    let reads: VerificationReadService

    static let maximumWait = 30

    func register(in routes: inout Router.Builder) {
        let keyedCreate = guards.idempotent { request, context, _ in
            let ticket = reads.ticket()
            let (verification, created) = try service.create(tenancy: try context.tenancy(), try Self.createInput(request),
                                                             by: try context.apiActor())
            return reads.respond(verification, status: created ? 201 : 200, ticket: ticket)
        }
        routes.addDeferrable("POST", "/v1/verifications") { request, context in
            guard request.headers["Idempotency-Key"] == nil else { return .ready(try keyedCreate(request, context)) }
            return try reads.createWithoutKey(request, context: context)
        }
        routes.add("GET", "/v1/verifications", guards.authenticated { request, context, _ in
            let (filter, parameters) = try Self.listInput(request)
            return try reads.list(try context.tenancy(), filter: filter, parameters: parameters)
        })
        routes.addDeferrable("GET", "/v1/verifications/{id}") { request, context in
            let tenancy = try context.tenancy()
            return try reads.read(request, id: try context.verificationID(), wait: try Self.wait(request), tenancy, context: context)
        }
        routes.add("PATCH", "/v1/verifications/{id}", guards.authenticated { request, context, _ in
            let id = try context.verificationID()
            var body = try JSONObject(body: request.body)
            let mobile = body.string("mobile")
            let returnURL = body.string("return_url")
            let metadata = body.stringMap("metadata")
            try body.finish()
            let updated = try service.update(tenancy: try context.tenancy(), id: id, mobile: mobile,
                                              returnURL: returnURL.map { .some($0) }, metadata: metadata, by: try context.apiActor())
            return reads.respond(updated)
        })
        routes.add("POST", "/v1/verifications/{id}/cancel", guards.idempotent { request, context, _ in
            let body = try JSONObject(body: request.body)
            try body.finish()
            return reads.respond(try service.cancel(tenancy: try context.tenancy(), id: try context.verificationID(), by: try context.apiActor()))
        })
        routes.add("POST", "/v1/verifications/{id}/redact", guards.idempotent { request, context, _ in
            let body = try JSONObject(body: request.body)
            try body.finish()
            return reads.respond(try service.redact(tenancy: try context.tenancy(), id: try context.verificationID(), by: try context.apiActor()))
        })
    }

    /// A create's body, type-checked.
    static func createInput(_ request: Request) throws -> VerificationService.CreateInput {
        var body = try JSONObject(body: request.body)
        let input = VerificationService.CreateInput(
            userID: body.string("user_id", required: true), workflowKey: body.string("workflow", required: true),
            mobile: body.string("mobile", required: true), returnURL: body.string("return_url"),
            metadata: body.stringMap("metadata"))
        try body.finish()
        return input
    }

    /// `?wait=N`: seconds of long-poll, 0 to `maximumWait`.
    static func wait(_ request: Request) throws -> Int {
        guard let raw = request.queryValue("wait") else { return 0 }
        guard let seconds = Int(raw), (0...maximumWait).contains(seconds) else {
            throw DomainError.invalidRequest(detail: "wait must be a whole number of seconds from 0 to \(maximumWait).",
                                             errors: [FieldError(field: "wait", message: "must be 0 to \(maximumWait)")])
        }
        return seconds
    }

    /// `?user_id=&workflow=&status=&limit=&starting_after=`, checked.
    static func listInput(_ request: Request) throws -> (VerificationStore.Filter, ListParameters) {
        var errors: [FieldError] = []
        let parameters = ListParameters(request, known: ["user_id", "workflow", "status", "limit", "starting_after"],
                                        cursor: .verification, noun: "a verification id", errors: &errors)
        var status: VerificationStatus?
        if let raw = request.queryValue("status") {
            status = VerificationStatus(rawValue: raw)
            if status == nil { errors.append(FieldError(field: "status", message: "is not a verification status")) }
        }
        try ListParameters.refuse(errors)
        let filter = VerificationStore.Filter(userID: request.queryValue("user_id"), workflowKey: request.queryValue("workflow"),
                                              status: status)
        return (filter, parameters)
    }
}
