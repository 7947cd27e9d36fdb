extension HTTPServer {
    static let invalidQuery = Problem.invalidRequest("The query string must be percent-encoded UTF-8 without NUL characters.",
                                                     status: 400)

    /// Every request body the server may hold at once is already held.
    static let busy = Problem(status: 503, code: "server_busy", title: "Service Unavailable",
                              detail: "The server is receiving too many uploads at once. Please try again.",
                              headers: [("Retry-After", "2")])

    /// The server is stopping: a long-poll still waiting is answered with this.
    static let shuttingDown = Problem(status: 503, code: "shutting_down", title: "Service Unavailable",
                                      detail: "The server is restarting. Please try again.",
                                      headers: [("Retry-After", "1")])

    /// A request whose framing could be read two ways: refused, and its connection closed.
    static func malformed(_ reason: String) -> Response {
        var response = Problem(status: 400, code: "malformed_request", title: "Bad Request", detail: reason).response
        response.headers.add("Connection", "close")
        return response
    }
}
