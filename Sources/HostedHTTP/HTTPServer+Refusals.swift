extension HTTPServer {
    static let invalidQuery = Problem.invalidRequest("The query string must be percent-encoded UTF-8 without NUL characters.",
                                                     status: 400)

    /// Every request body the server may hold at once is already held.
    static let busy = Problem(status: 503, code: "server_busy", title: "Service Unavailable",
                              detail: "The server is receiving too many uploads at once. Please try again.",
                              headers: [("Retry-After", "2")])

    /// The client (its address, or its session, account or operator) already has its share of
    /// the body budget in uploads under way.
    static let overShare = Problem(status: 429, code: "too_many_uploads", title: "Too Many Requests",
                                   detail: "Too many uploads from this client are under way. Please try again when they are done.",
                                   headers: [("Retry-After", "2")])

    static func refusal(_ refusal: BodyBudget.Refusal) -> Problem {
        switch refusal {
        case .full: busy
        case .overShare: overShare
        }
    }

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
