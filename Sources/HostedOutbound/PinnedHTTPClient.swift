import CCurl
import Foundation
import Glibc
import HostedCore

/// POSTs a webhook with libcurl to exactly the address that was checked: the host's name is
/// pinned to it (`CURLOPT_RESOLVE`, so curl does no lookup of its own), and the socket callback
/// refuses to connect anywhere else. Redirects are not followed, proxies from the environment
/// are ignored, only https (and http in dev mode) is spoken, and the whole attempt has one
/// deadline. The response body is read and dropped.
public struct PinnedHTTPClient: Sendable {
    public let timeout: TimeInterval
    public let devMode: Bool

    public init(timeout: TimeInterval, devMode: Bool) {
        self.timeout = timeout
        self.devMode = devMode
        _ = Self.initialized
    }

    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// What one attempt came to.
    public struct Outcome: Equatable, Sendable {
        /// The response's status; nil when none came (timeout, connection failure).
        public var status: Int?
        /// `Retry-After` in seconds, when the response had one.
        public var retryAfter: TimeInterval?
        /// Why it failed when no status came, e.g. `timeout`, `connection failed`.
        public var error: String?

        public init(status: Int? = nil, retryAfter: TimeInterval? = nil, error: String? = nil) {
            self.status = status
            self.retryAfter = retryAfter
            self.error = error
        }
    }

    /// Receives what curl calls back with during one transfer.
    private final class Transfer {
        let expected: [UInt8]
        var connectedElsewhere = false
        var retryAfter: TimeInterval?

        init(expected: [UInt8]) { self.expected = expected }
    }

    public func post(_ target: WebhookURLPolicy.Target, to address: [UInt8], headers: [(String, String)],
                     body: [UInt8]) -> Outcome {
        guard Self.initialized, let curl = curl_easy_init() else { return Outcome(error: "client unavailable") }
        defer { curl_easy_cleanup(curl) }
        let transfer = Transfer(expected: address)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }

        let literal = target.host.contains(":") ? "[\(addressText(address))]" : addressText(address)
        var resolve: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "\(target.host):\(target.port):\(literal)")
        defer { curl_slist_free_all(resolve) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in headers + [("Expect", "")] {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        defer { curl_slist_free_all(headerList) }

        let milliseconds = Int(min(max(timeout, 0.1), 3600) * 1000)
        var ok = true
        func set(_ code: CURLcode) { ok = ok && code == CURLE_OK }
        set(hosted_curl_set_string(curl, CURLOPT_URL, target.url))
        set(hosted_curl_set_slist(curl, CURLOPT_RESOLVE, resolve))
        set(hosted_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, devMode ? "http,https" : "https"))
        set(hosted_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "https"))
        set(hosted_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0))
        set(hosted_curl_set_string(curl, CURLOPT_PROXY, ""))
        set(hosted_curl_set_string(curl, CURLOPT_NOPROXY, "*"))
        set(hosted_curl_set_long(curl, CURLOPT_NOSIGNAL, 1))
        set(hosted_curl_set_long(curl, CURLOPT_TIMEOUT_MS, milliseconds))
        set(hosted_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, milliseconds))
        set(hosted_curl_set_long(curl, CURLOPT_POST, 1))
        set(hosted_curl_set_long(curl, CURLOPT_POSTFIELDSIZE, body.count))
        set(hosted_curl_set_slist(curl, CURLOPT_HTTPHEADER, headerList))
        set(hosted_curl_set_string(curl, CURLOPT_USERAGENT, "Hosted-Webhooks/1"))
        set(hosted_curl_set_write(curl, { _, size, count, _ in size * count }, nil))
        set(hosted_curl_set_header(curl, { data, size, count, context in
            let length = size * count
            guard let data, let context else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            if line.lowercased().hasPrefix("retry-after:") {
                let value = line.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                // Delta-seconds only (an HTTP-date is ignored); at most a day, so it stays a small number.
                if value.count <= 6, value.allSatisfy(\.isNumber), let seconds = Int(value) {
                    transfer.retryAfter = TimeInterval(min(seconds, 86_400))
                }
            } else if line.hasPrefix("HTTP/") {
                transfer.retryAfter = nil  // a new response (after a 100 Continue) starts over
            }
            return length
        }, context.toOpaque()))
        set(hosted_curl_set_open_socket(curl, { context, _, address in
            guard let context, let address else { return CURL_SOCKET_BAD }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = Int(hosted_curl_address_bytes(address, &bytes))
            guard count > 0, Array(bytes.prefix(count)) == transfer.expected else {
                transfer.connectedElsewhere = true
                return CURL_SOCKET_BAD
            }
            return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
        }, context.toOpaque()))
        guard ok else { return Outcome(error: "client unavailable") }

        let code = body.withUnsafeBufferPointer { buffer -> CURLcode in
            _ = hosted_curl_set_pointer(curl, CURLOPT_POSTFIELDS,
                                        UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
            return curl_easy_perform(curl)
        }
        if transfer.connectedElsewhere { return Outcome(error: "address not allowed") }
        let status = Int(hosted_curl_response_code(curl))
        if code == CURLE_OK, status > 0 { return Outcome(status: status, retryAfter: transfer.retryAfter) }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return Outcome(error: "timeout")
        case CURLE_COULDNT_CONNECT: return Outcome(error: "connection failed")
        case CURLE_COULDNT_RESOLVE_HOST: return Outcome(error: "unresolvable host")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION: return Outcome(error: "tls failed")
        case CURLE_GOT_NOTHING: return Outcome(error: "empty reply")
        default: return Outcome(error: String(cString: curl_easy_strerror(code)))
        }
    }
}
