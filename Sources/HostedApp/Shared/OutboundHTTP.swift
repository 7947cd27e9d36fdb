import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A blocking HTTP call through URLSession, for the HTTP worker threads (never Swift's
/// cooperative pool): the SMS relay, DigiLocker's token and document calls.
enum OutboundHTTP {
    /// A status and body, the body cut off at the caller's limit.
    struct Reply: Sendable {
        let status: Int
        let body: [UInt8]
        let truncated: Bool
    }

    /// Why no reply came. Its description names the host and never a credential.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// No cookies, no cache, no credentials kept between calls.
    private static let session = URLSession(configuration: .ephemeral)

    static func send(_ request: URLRequest, maximumBytes: Int = 1 << 20) throws -> Reply {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            outcome.set(status: error == nil ? (response as? HTTPURLResponse)?.statusCode : nil, body: data)
            done.signal()
        }.resume()
        let host = request.url?.host ?? "?"
        guard done.wait(timeout: .now() + request.timeoutInterval + 1) == .success else {
            throw Failure(description: "\(host) did not answer within \(Int(request.timeoutInterval)) s")
        }
        guard let (status, body) = outcome.value else { throw Failure(description: "\(host) could not be reached") }
        return Reply(status: status, body: Array(body.prefix(maximumBytes)), truncated: body.count > maximumBytes)
    }
}

/// The reply, handed from URLSession's thread to the waiting one.
private final class Outcome: @unchecked Sendable {  // fields only under `lock`
    private let lock = NSLock()
    private var stored: (Int, Data)?
    func set(status: Int?, body: Data?) {
        lock.lock()
        stored = status.map { ($0, body ?? Data()) }
        lock.unlock()
    }
    var value: (Int, Data)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
