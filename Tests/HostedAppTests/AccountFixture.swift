import HostedApp
import HostedHTTP

/// A test fixture that acts for one account through its API key: the customer API requests,
/// with that key, every suite's fixture shares.
protocol AccountFixture {
    var app: TestApplication { get }
    /// The account key's `Authorization` header.
    var auth: [(String, String)] { get }
}

extension AccountFixture {
    func post(_ path: String, _ body: String, headers: [(String, String)] = []) -> Response {
        app.request("POST", path, headers: auth + headers, body: body)
    }

    func get(_ path: String, headers: [(String, String)] = []) -> Response {
        app.request("GET", path, headers: auth + headers)
    }

    /// A GET that may be answered later (a long-poll).
    func poll(_ path: String, headers: [(String, String)] = []) -> Reply {
        app.reply("GET", path, headers: auth + headers)
    }

    func json(_ response: Response) -> [String: Any] { app.json(response) }

    func code(_ response: Response) -> String? { app.code(response) }
}

/// A fixture that drives one verification's journey: the journey requests with its id and,
/// when it has signed in, its session.
protocol JourneyFixture: AccountFixture {
    var verificationID: String { get }
    /// The session the fixture's journey requests carry unless given another; nil for none.
    var journeySession: String? { get }
}

extension JourneyFixture {
    var journeySession: String? { nil }

    /// A request to the verification's journey, `/j/{id}` + `path` (see `TestApplication.journey`).
    func journey(_ method: String, _ path: String, body: [UInt8] = [], contentType: String = "application/json",
                 session: String? = nil, cookies: KeyValuePairs<String, String> = [:], origin: String? = TestApplication.origin,
                 headers: [(String, String)] = []) -> Response {
        app.journey(method, verificationID, path, body: body, contentType: contentType, session: session ?? journeySession,
                    cookies: cookies, origin: origin, headers: headers)
    }

    func journey(_ method: String, _ path: String, body: String, contentType: String = "application/json",
                 session: String? = nil, cookies: KeyValuePairs<String, String> = [:], origin: String? = TestApplication.origin,
                 headers: [(String, String)] = []) -> Response {
        journey(method, path, body: Array(body.utf8), contentType: contentType, session: session, cookies: cookies, origin: origin,
                headers: headers)
    }
}
