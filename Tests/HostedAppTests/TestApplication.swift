import Foundation
import HostedApp
import HostedHTTP
import HostedStorage

/// An application on a fresh SQLite file (or, with `postgres: true`, a fresh PostgreSQL schema),
/// answering requests in memory through the same responder the server uses.
struct TestApplication {
    let application: Application
    let directory: URL

    init(migrate: Bool = true, configure: (inout Configuration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-app-\(UUID().uuidString)")
        var configuration = Configuration()
        configuration.database = .sqlite(path: directory.appendingPathComponent("hosted.sqlite").path)
        configure(&configuration)
        application = try buildApplication(configuration: configuration, migrate: migrate)
    }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") -> Response {
        let request = Request(method: method, path: path, headers: HTTPHeaders(headers), body: Array(body.utf8))
        do {
            return try application.responder.respond(to: request, context: RequestContext(requestID: "test"))
        } catch {
            // The error boundary must turn every error into a response.
            return Response(status: 599, body: Array("\(error)".utf8))
        }
    }

    func json(_ response: Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    func close() {
        application.database.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
