import Foundation
import FuzzSupport
import HostedHTTP

// Route matching (Router.segments(of:) and Router.match, through the public respond(to:),
// admit(_:context:), whose noted route must answer as a fresh match would, and
// bodyLimit(method:path:)) with the service's own route patterns, and StaticFiles behind
// `/assets/{path...}` exactly as AssetRoutes mounts it, over a throwaway directory that has a
// symlink and a file just outside it: nothing outside may ever be served.
//
// Input: the first line is the method, the rest the raw (percent-encoded) path.

let patterns: [(String, String)] = [
    ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/v1/account"), ("GET", "/v1/openapi.yaml"),
    ("GET", "/v1/verifications"), ("POST", "/v1/verifications"), ("GET", "/v1/verifications/{id}"),
    ("PATCH", "/v1/verifications/{id}"), ("POST", "/v1/verifications/{id}/cancel"),
    ("POST", "/v1/verifications/{id}/decision"), ("POST", "/v1/verifications/{id}/handoffs"),
    ("GET", "/v1/verifications/{id}/artifacts/{artifact}"), ("GET", "/v1/workflows"), ("POST", "/v1/workflows"),
    ("GET", "/v1/workflows/{key}"), ("GET", "/v1/return_urls"), ("POST", "/v1/return_urls"),
    ("DELETE", "/v1/return_urls/{id}"), ("GET", "/j/{id}"), ("GET", "/j/{id}/api/state"), ("GET", "/j/{id}/api/status"),
    ("POST", "/j/{id}/api/session"), ("POST", "/j/{id}/api/otp"), ("POST", "/j/{id}/api/otp/verify"),
    ("POST", "/j/{id}/api/steps/{step}/images"), ("DELETE", "/j/{id}/api/steps/{step}/images/{artifact}"),
    ("POST", "/j/{id}/api/steps/{step}/profile"), ("POST", "/j/{id}/api/steps/{step}/complete"),
    ("POST", "/j/{id}/api/submit"), ("GET", "/sim/digilocker/api/1/xml/{uri}"),
]

/// public/ stand-in: `root/app.js`, `root/css/site.css`, `root/leak -> ../secret.txt`, and
/// `secret.txt` next to the root. Created under $TMPDIR (scripts/fuzz.sh points it at its work
/// directory, which it removes).
let staticFiles: StaticFiles = {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("hosted-fuzz-router-\(ProcessInfo.processInfo.processIdentifier)")
    let root = base.appendingPathComponent("public")
    try? FileManager.default.createDirectory(at: root.appendingPathComponent("css"), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: root.appendingPathComponent("app.js").path, contents: Data("inside".utf8))
    _ = FileManager.default.createFile(atPath: root.appendingPathComponent("css/site.css").path, contents: Data("inside".utf8))
    _ = FileManager.default.createFile(atPath: base.appendingPathComponent("secret.txt").path, contents: Data("SECRET".utf8))
    try? FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("leak").path, withDestinationPath: "../secret.txt")
    return StaticFiles(root: root)
}()

let router: Router = {
    var builder = Router.Builder()
    for (method, pattern) in patterns {
        builder.add(method, pattern, bodyLimit: pattern.utf8.count) { _, context in
            var response = Response(status: 200, body: Array("\(method) \(pattern)".utf8))
            for (name, value) in context.parameters { response.headers.add("p-" + name, value) }
            return response
        }
    }
    builder.add("GET", "/assets/{path...}") { request, _ in
        try staticFiles.response(rawPath: request.path.dropFirst("/assets/".count), request: request)
    }
    return builder.build()
}()

func fuzzRouter(_ bytes: [UInt8]) {
    let lines = FuzzInput(bytes).pieces(maxPieces: 2).map(FuzzInput.text)
    let method = lines[0]
    let path = lines.count > 1 ? lines[1] : "/"
    let request = Request(method: method, path: path)
    let limit = router.bodyLimit(method: method, path: path)
    var context = RequestContext(requestID: "fuzz")
    let fresh = (try? router.respond(to: request, context: RequestContext(requestID: "fuzz")))?.response
    if let admitted = try? router.admit(request, context: &context) {
        fuzzCheck(admitted == limit, "admit and bodyLimit disagree for \(method) \(path)")
        // The route admit noted answers as a fresh match would.
        let viaAdmit = (try? router.respond(to: request, context: context))?.response
        fuzzCheck(viaAdmit?.status == fresh?.status && viaAdmit?.body == fresh?.body
                  && viaAdmit?.headers.fields.map(\.name).sorted() == fresh?.headers.fields.map(\.name).sorted(),
                  "the admitted route answers \(method) \(path) differently")
    }
    guard let response = fresh else { return }
    let served = String(decoding: response.body, as: UTF8.self)
    fuzzCheck(!served.contains("SECRET"), "a file outside the static root was served for \(Array(path.utf8))")
    guard let (routeMethod, pattern) = patterns.first(where: { "\($0.0) \($0.1)" == served }) else {
        fuzzCheck(served == "inside" || response.body.isEmpty, "unexpected body for \(path)")
        return
    }
    fuzzCheck(routeMethod == method || (method == "HEAD" && routeMethod == "GET"), "\(method) \(path) ran the \(routeMethod) route")
    let names = pattern.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
    let bound = response.headers.fields.map { String($0.name.dropFirst(2)) }
    fuzzCheck(Set(bound) == Set(names), "\(path) bound \(bound) for \(pattern)")
    for field in response.headers.fields { fuzzCheck(!field.value.isEmpty, "empty parameter \(field.name) for \(path)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzRouter(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-router", fuzzRouter) }
}
#endif
