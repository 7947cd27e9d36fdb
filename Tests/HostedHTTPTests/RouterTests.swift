import HostedHTTP
import Testing

@Suite struct RouterTests {
    let router: Router = {
        var builder = Router.Builder()
        builder.add("GET", "/v1/items/{id}") { _, context in
            Response(status: 200, body: Array("item \(context.parameters["id"]!)".utf8))
        }
        builder.add("DELETE", "/v1/items/{id}") { _, _ in Response(status: 204) }
        builder.add("GET", "/v1/items/{id}/parts/{part}") { _, context in
            Response(status: 200, body: Array("\(context.parameters["id"]!)/\(context.parameters["part"]!)".utf8))
        }
        builder.add("GET", "/files/{path...}") { _, context in Response(status: 200, body: Array(context.parameters["path"]!.utf8)) }
        builder.add("POST", "/upload", bodyLimit: 10) { _, _ in Response(status: 201) }
        return builder.build()
    }()

    func respond(_ method: String, _ path: String) -> Response {
        do {
            return try router.respond(to: Request(method: method, path: path), context: RequestContext(requestID: "t"))
        } catch let problem as Problem {
            return problem.response
        } catch {
            return Response(status: 599)
        }
    }

    @Test func bindsPathParameters() {
        let response = respond("GET", "/v1/items/ver_1/parts/selfie")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "ver_1/selfie")
    }

    @Test func decodesParametersPerSegment() {
        // An encoded slash stays inside its segment: it is one id, not two segments.
        let response = respond("GET", "/v1/items/a%2Fb")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "item a/b")
    }

    @Test func unknownPathIs404Problem() {
        let response = respond("GET", "/v1/nothing")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func otherMethodIs405WithAllow() {
        let response = respond("PUT", "/v1/items/x")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, DELETE, HEAD")
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func headIsServedByGet() {
        #expect(respond("HEAD", "/v1/items/x").status == 200)
    }

    @Test func restParameterTakesRemainingSegments() {
        #expect(String(decoding: respond("GET", "/files/a/b.css").body, as: UTF8.self) == "a/b.css")
        #expect(respond("GET", "/files").status == 404)
    }

    @Test func emptySegmentsDoNotMatchParameters() {
        #expect(respond("GET", "/v1/items//parts/x").status == 404)
    }

    @Test func bodyLimitIsPerRoute() {
        #expect(router.bodyLimit(method: "POST", path: "/upload") == 10)
        #expect(router.bodyLimit(method: "GET", path: "/v1/items/x") == Router.defaultBodyLimit)
        #expect(router.bodyLimit(method: "POST", path: "/nowhere") == Router.defaultBodyLimit)
    }
}
