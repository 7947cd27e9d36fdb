import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// The operator console: its pages (one shell, `public/console.html`) and its API under
/// `/console/api/…`. Signed-in calls go through `ConsoleSessionAuthentication`; every call that
/// changes something must come from the console's own origin (`SameOrigin`, checked before a
/// body is read).
struct ConsoleRoutes {
    let console: ConsoleService
    let review: ConsoleReview
    let decisions: DecisionService
    let files: StaticFiles
    let publicDirectory: URL
    let publicURL: URL
    let trustedProxies: TrustedProxies

    /// No script but the console's own, no framing, no referrer, no camera.
    static let pageHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("Referrer-Policy", "no-referrer"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    func register(in routes: inout Router.Builder) {
        for page in ["/console", "/console/setup", "/console/operators", "/console/verifications/{id}"] {
            routes.add("GET", page) { request, _ in
                try files.response(for: publicDirectory.appendingPathComponent("console.html"), request: request,
                                   extraHeaders: Self.pageHeaders)
            }
        }
        let cookie = ConsoleCookie(publicURL: publicURL)
        routes.group(SameOrigin(publicURL: publicURL)) { routes in
            registerSignIn(in: &routes, cookie: cookie)
            routes.group(ConsoleSessionAuthentication(console: console)) { routes in
                registerReview(in: &routes)
                registerResubmission(in: &routes)
                routes.add("POST", "/console/api/signout") { request, context in
                    try console.signOut(token: request.cookie(ConsoleSessionAuthentication.cookieName), op: try context.signedInOperator())
                    return Response(status: 204, headers: HTTPHeaders([("Set-Cookie", cookie.session("", maxAge: 0))]))
                }
            }
            routes.group(ConsoleSessionAuthentication(console: console, adminOnly: true)) { routes in
                registerAdmin(in: &routes)
            }
        }
    }

    private func registerSignIn(in routes: inout Router.Builder, cookie: ConsoleCookie) {
        routes.add("POST", "/console/api/setup", bodyLimit: 4096) { request, _ in
            var body = try JSONObject(body: request.body)
            let token = body.string("token", required: true)
            try body.finish()
            let enrolment = try console.enrolment(token: token ?? "")
            var response = try Response.json([
                "email": enrolment.op.email, "role": enrolment.op.role.rawValue, "secret": enrolment.secret,
                "otpauth_uri": enrolment.uri, "qr_svg": enrolment.qrSVG,
            ])
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        routes.add("POST", "/console/api/setup/complete", bodyLimit: 4096) { request, _ in
            var body = try JSONObject(body: request.body)
            let token = body.string("token", required: true)
            let password = body.string("password", required: true)
            let code = body.string("code", required: true)
            try body.finish()
            let op = try console.completeSetup(token: token ?? "", password: password, code: code)
            return try .json(["status": "ready", "email": op.email])
        }
        routes.add("POST", "/console/api/session", bodyLimit: 4096) { request, _ in
            var body = try JSONObject(body: request.body)
            let email = body.string("email", required: true)
            let password = body.string("password", required: true)
            let code = body.string("code", required: true)
            try body.finish()
            let (op, token) = try console.signIn(email: email, password: password, code: code,
                                                 clientAddress: trustedProxies.clientAddress(of: request))
            var response = try Response.json(SignedIn(operator: OperatorView(op)))
            response.headers.add("Set-Cookie", cookie.session(token.value, maxAge: Int(OperatorRules.absoluteTimeoutSeconds)))
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }

    private func registerReview(in routes: inout Router.Builder) {
        routes.add("GET", "/console/api/me") { _, context in
            try .json(OperatorView(try context.signedInOperator()))
        }
        routes.add("GET", "/console/api/queue") { request, context in
            let op = try context.signedInOperator()
            var errors: [FieldError] = []
            let paging = ListParameters(request, known: ["status", "workflow", "user_id", "limit", "starting_after"],
                                        cursor: .verification, noun: "a verification id", errors: &errors)
            var statuses: [VerificationStatus] = [.submitted]
            if let raw = request.queryValue("status") {
                if raw == "all" { statuses = [] }
                else if let status = VerificationStatus(rawValue: raw) { statuses = [status] }
                else { errors.append(FieldError(field: "status", message: "must be all or a verification status")) }
            }
            let workflow = request.queryValue("workflow").flatMap { $0.isEmpty ? nil : $0 }
            let userID = request.queryValue("user_id").flatMap { $0.isEmpty ? nil : $0 }
            if let userID, !VerificationRules.isValidUserID(userID) {
                errors.append(FieldError(field: "user_id", message: "must be 1 to 255 characters with no control characters"))
            }
            guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The query is not valid.", errors: errors) }
            return try .json(review.queue(op, ConsoleMode.tenancy(op, request), statuses: statuses, workflow: workflow, userID: userID,
                                          limit: request.queryValue("limit") == nil ? 20 : paging.limit,
                                          startingAfter: paging.startingAfter))
        }
        routes.add("GET", "/console/api/verifications/{id}") { request, context in
            let op = try context.signedInOperator()
            // Opening the evidence is itself recorded, with the operator as actor.
            let viewed = try decisions.recordView(tenancy: ConsoleMode.tenancy(op, request), id: try Self.id(context), by: op.actor)
            return try .json(review.detail(of: viewed, for: op))
        }
        routes.add("GET", "/console/api/verifications/{id}/artifacts/{artifact}") { request, context in
            let op = try context.signedInOperator()
            let size = request.queryValue("size") ?? "display"
            guard size == "display" || size == "full" else {
                throw DomainError.invalidRequest(detail: "The query is not valid.",
                                                 errors: [FieldError(field: "size", message: "must be display or full")])
            }
            let bytes = try review.image(op, ConsoleMode.tenancy(op, request), verificationID: try Self.id(context), artifact: context.parameters["artifact"] ?? "",
                                         display: size == "display")
            // An image, never a document: sandboxed if opened on its own, never sniffed, never cached.
            return Response(status: 200, headers: HTTPHeaders([
                ("Content-Type", "image/jpeg"),
                ("Content-Security-Policy", "sandbox"),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "private, no-store"),
                ("Content-Disposition", "inline"),
            ]), body: bytes)
        }
        routes.add("POST", "/console/api/verifications/{id}/decision", bodyLimit: 8192) { request, context in
            let op = try context.signedInOperator()
            try OperatorRole.requireDecides(op)
            var body = try JSONObject(body: request.body)
            let decision = body.string("decision", required: true)
            let reason = body.string("reason")
            let note = body.string("note")
            if let decision, decision != "approved" && decision != "rejected" {
                body.addError("decision", "must be approved or rejected")
            }
            if decision == "rejected", reason.flatMap(RejectionReason.init(rawValue:)) == nil {
                body.addError("reason", "must be one of \(RejectionReason.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if decision == "approved", reason != nil { body.addError("reason", "is only for a rejection") }
            let validNote = note.flatMap(ReviewNoteRules.validated)
            if let note, !note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, validNote == nil {
                body.addError("note", "must be at most \(ReviewNoteRules.maximumLength) characters")
            }
            try body.finish()
            let (decided, outcome) = try decisions.decide(tenancy: ConsoleMode.tenancy(op, request), id: try Self.id(context),
                                                          approved: decision == "approved", reason: reason, note: validNote, by: op.actor)
            return try .json(Decided(outcome: outcome.rawValue, verification: review.detail(of: decided, for: op).verification))
        }
        routes.add("POST", "/console/api/verifications/{id}/notes", bodyLimit: 8192) { request, context in
            let op = try context.signedInOperator()
            var body = try JSONObject(body: request.body)
            let note = body.string("note", required: true)
            if let note, ReviewNoteRules.validated(note) == nil {
                body.addError("note", "must be 1 to \(ReviewNoteRules.maximumLength) characters")
            }
            try body.finish()
            _ = try decisions.note(tenancy: ConsoleMode.tenancy(op, request), id: try Self.id(context), text: ReviewNoteRules.validated(note ?? "") ?? "",
                                   by: op.actor)
            return try .json(["status": "recorded"], status: 201)
        }
    }

    private func registerAdmin(in routes: inout Router.Builder) {
        routes.add("GET", "/console/api/operators") { _, context in
            let op = try context.signedInOperator()
            let events = try console.operators.events(accountID: op.accountID).map {
                OperatorEventView(id: $0.id, type: $0.type, operator_id: $0.operatorID, actor_id: $0.actorID,
                                  created_at: APIObjects.timestamp($0.createdAt))
            }
            return try .json(OperatorList(data: try console.list(accountID: op.accountID).map(OperatorView.init), events: events))
        }
        routes.add("POST", "/console/api/operators/{op}/disable") { _, context in
            let op = try context.signedInOperator()
            guard let id = ObjectID(.operator, parsing: context.parameters["op"] ?? "") else { throw DomainError.notFound(what: "operator") }
            return try .json(OperatorView(try console.disable(id: id, accountID: op.accountID, by: op.id)))
        }
    }

    static func id(_ context: RequestContext) throws -> ObjectID {
        guard let id = ObjectID(.verification, parsing: context.parameters["id"] ?? "") else { throw DomainError.notFound(what: "verification") }
        return id
    }

    struct OperatorView: Encodable {
        let object = "operator"
        let id: String
        let account_id: String
        let email: String
        let role: String
        let status: String
        let created_at: String?
        let last_sign_in_at: String?

        init(_ op: Operator) {
            id = op.id.rawValue
            account_id = op.accountID.rawValue
            email = op.email
            role = op.role.rawValue
            status = op.status.rawValue
            created_at = APIObjects.timestamp(op.createdAt)
            last_sign_in_at = APIObjects.timestamp(op.lastSignInAt)
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(object, forKey: .object)
            try c.encode(id, forKey: .id)
            try c.encode(account_id, forKey: .account_id)
            try c.encode(email, forKey: .email)
            try c.encode(role, forKey: .role)
            try c.encode(status, forKey: .status)
            try c.encode(created_at, forKey: .created_at)
            try c.encode(last_sign_in_at, forKey: .last_sign_in_at)
        }

        enum CodingKeys: String, CodingKey { case object, id, account_id, email, role, status, created_at, last_sign_in_at }
    }

    struct SignedIn: Encodable {
        let `operator`: OperatorView
    }

    struct OperatorList: Encodable {
        let object = "list"
        let data: [OperatorView]
        let events: [OperatorEventView]
    }

    struct OperatorEventView: Encodable {
        let id: String
        let type: String
        let operator_id: String?
        let actor_id: String?
        let created_at: String?
    }

    struct Decided: Encodable {
        let outcome: String
        let verification: ConsoleReview.VerificationView
    }
}
