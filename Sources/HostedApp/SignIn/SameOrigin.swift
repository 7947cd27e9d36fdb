import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// State-changing journey calls must come from the journey's own origin (CSRF); checked in the
/// header phase as well, so a cross-site body is never read.
struct SameOrigin: Middleware {
    let publicURL: URL

    func admit(_ request: Request, context: inout RequestContext) throws {
        try check(request)
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        if request.method != "GET" && request.method != "HEAD" { try check(request) }
        return try next(request, context)
    }

    private func check(_ request: Request) throws {
        guard let origin = request.headers["Origin"], origin == Self.origin(of: publicURL) else {
            throw DomainError.forbidden(detail: "This call must come from the journey page itself.", code: .originMismatch)
        }
    }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }
}
