import Foundation
import HostedHTTP
import HostedTestSupport

/// Runs `body` with a server for `responder` on a free loopback port (two workers, silent log,
/// `configure` applied), shut down afterwards.
func withLiveServer(_ responder: any HTTPResponder, _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    _ body: (HTTPServer) throws -> Void) throws {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threads: 2)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder, log: SilentServerLog())
    try server.start()
    defer { server.shutdown(gracePeriod: 1) }
    try body(server)
}

extension RawHTTPConnection {
    /// Sends `bytes` on a fresh connection to `server`; the one response, and whether the server
    /// then closed the connection.
    static func exchange(with server: HTTPServer, _ bytes: [UInt8]) throws -> (Response, closed: Bool) {
        let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 5)
        try connection.send(bytes)
        let response = try connection.readResponse()
        return (response, connection.isClosedByPeer())
    }

    /// Sends `line` every `pause` seconds until the server closes the connection or `seconds`
    /// pass; how long it took to be closed (nil: never).
    func secondsUntilCut(line: String, every pause: TimeInterval, within seconds: TimeInterval) -> TimeInterval? {
        let started = Date()
        while Date().timeIntervalSince(started) < seconds {
            if (try? send(line)) == nil || isClosedByPeerWithoutBlocking() {
                return Date().timeIntervalSince(started)
            }
            usleep(useconds_t(pause * 1_000_000))
        }
        return nil
    }
}
