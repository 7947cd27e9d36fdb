import HostedHTTP
import HostedTestSupport
import Testing

/// The request line as the real server reads it: libmicrohttpd hands the method, path and version
/// out as C strings, so a NUL would cut the path short (`GET /hello\0/x` read as `/hello`), and it
/// finds the version from the end of the line, so a space inside the target would be accepted.
/// Both are refused like ambiguous framing: 400, and the connection closed.
@Suite struct RequestLineLiveTests {
    static func makeRouter() -> Router {
        var routes = Router.Builder()
        routes.add("GET", "/hello") { request, _ in
            Response(status: 200, body: Array(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: ",").utf8))
        }
        return routes.build()
    }

    func withServer(_ body: (HTTPServer) throws -> Void) throws {
        try withLiveServer(Self.makeRouter(), { _ in }, body)
    }

    /// Sends `head` with a second request riding behind it; the one response, and whether the
    /// server then closed the connection.
    func exchange(_ server: HTTPServer, _ head: String) throws -> (RawHTTPConnection.Response, closed: Bool) {
        try RawHTTPConnection.exchange(with: server, Array((head + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
    }

    @Test(arguments: [
        ("a NUL inside the path", "GET /hello\0/x HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a NUL at the end of the path", "GET /hello\0?name=a HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a NUL inside a query value", "GET /hello?name=a\0b HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a NUL before the next query argument", "GET /hello?name=a\0&admin=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a NUL inside a query name", "GET /hello?na\0me=a HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a NUL inside the method", "GE\0T /hello HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a space inside the path", "GET /hel lo HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a space at the end of the path", "GET /hello  HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a tab inside the path", "GET /hel\tlo HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a tab inside the query", "GET /hello?name=a\tb HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a DEL inside the path", "GET /hello\u{7F} HTTP/1.1\r\nHost: x\r\n\r\n"),
    ])
    func aMalformedRequestLineIs400AndTheConnectionCloses(_ name: String, _ head: String) throws {
        try withServer { server in
            let (response, closed) = try exchange(server, head)
            #expect(response.status == 400, "\(name)")
            #expect(response.headers["content-type"] == "application/problem+json", "\(name)")
            #expect(response.text.contains("malformed_request"), "\(name)")
            #expect(closed, "\(name): the connection stays open")
        }
    }

    /// What libmicrohttpd writes into the line as it parses (NULs over '?', '&' and '=', '+'
    /// decoded to a space) is told apart from what the client sent.
    @Test(arguments: [
        ("/hello", ""),
        ("/hello?", ""),
        ("/hello?name=a", "name=a"),
        ("/hello?name=a&", "name=a"),
        ("/hello?name=", "name="),
        ("/hello?name", "name="),
        ("/hello?&name=a&&b=c", "=,name=a,=,b=c"),
        ("/hello?name=a+b&x=%20y%3D", "name=a b,x= y="),
        ("/hello?name=a=b", "name=a=b"),
    ])
    func wellFormedTargetsAreServed(_ target: String, _ query: String) throws {
        try withServer { server in
            let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 5)
            let response = try connection.request("GET", target)
            #expect(response.status == 200, "\(target)")
            #expect(response.text == query, "\(target)")
            // Still kept alive.
            #expect(try connection.request("GET", "/hello").status == 200, "\(target)")
        }
    }

    @Test func extraSpacesAfterTheMethodAndRawUTF8AreNotRefused() throws {
        try withServer { server in
            let (spaced, _) = try exchange(server, "GET  /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(spaced.status == 200)
            let (utf8, _) = try exchange(server, "GET /héllo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(utf8.status == 404)
        }
    }
}
