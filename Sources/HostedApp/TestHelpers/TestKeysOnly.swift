import HostedCore
import HostedHTTP

/// The test helpers' gate, inside `APIKeyAuthentication`: only a test key (`sk_test_…`) gets
/// through. A live key is refused with 403 `test_mode_only` in the header phase, so its body is
/// never read, and again before the handler (a request without a body has no header phase).
struct TestKeysOnly: Middleware {
    static let refusal = DomainError.forbidden(detail: "Test helpers take a test key (sk_test_…); this is a live key.",
                                               code: .testModeOnly)

    func admit(_ request: Request, context: inout RequestContext) throws {
        try Self.check(context)
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        try Self.check(context)
        return try next(request, context)
    }

    private static func check(_ context: RequestContext) throws {
        guard try context.tenancy().livemode == false else { throw refusal }
    }
}
