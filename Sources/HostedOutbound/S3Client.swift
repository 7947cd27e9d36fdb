import CCurl
import Foundation
import HostedCore
import HostedCrypto

/// PUT, GET, DELETE and HEAD on an S3-compatible bucket through libcurl, signed with AWS
/// Signature V4 by curl itself (`CURLOPT_AWS_SIGV4` = `aws:amz:REGION:s3`). This libcurl (7.88)
/// does not add `x-amz-content-sha256` for S3, which S3 requires, so it is set here to the
/// body's SHA-256 (curl signs every header it is given). Redirects are not followed, proxies from
/// the environment are ignored, and every operation has one deadline (`timeout`) across its
/// attempts, each connect bounded by `connectTimeout`. Every operation is retried on a failure
/// that may be passing (no answer, a timeout, 5xx, 429): GET, HEAD and DELETE are idempotent,
/// and so is a PUT here, because a key is only ever written with the same bytes (a retried PUT
/// leaves the object it would have left). 4xx answers are not retried. The secret never appears
/// in a reason, a log line or `description`.
public struct S3Client: ObjectStorage, CustomStringConvertible {
    public let location: S3Location
    private let credentials: S3Credentials
    public let timeout: TimeInterval
    public let connectTimeout: TimeInterval
    public let attempts: Int
    /// Objects larger than this are refused on GET (artifacts are at most a few MB).
    public let maximumObjectBytes: Int

    public init(location: S3Location, credentials: S3Credentials, timeout: TimeInterval = 10, connectTimeout: TimeInterval = 3,
                attempts: Int = 3, maximumObjectBytes: Int = 64 << 20) {
        self.location = location
        self.credentials = credentials
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.attempts = max(1, attempts)
        self.maximumObjectBytes = maximumObjectBytes
        _ = Self.initialized
    }

    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public var prefix: String { location.prefix }
    public var description: String { "S3Client(\(location), key \(credentials.accessKeyID))" }

    /// One answer from the store.
    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    /// What one request is.
    struct Request {
        var method: String
        var key: String
        var body: [UInt8] = []
        /// `X-Amz-Date` to sign with instead of now (`yyyyMMdd'T'HHmmss'Z'`), for the signature cross-check.
        var date: String?
    }

    public func put(_ key: String, _ bytes: [UInt8]) throws(ObjectStorageError) {
        let response = try perform(Request(method: "PUT", key: try checked(key), body: bytes))
        guard (200..<300).contains(response.status) else { throw Self.refusal(response) }
    }

    public func get(_ key: String) throws(ObjectStorageError) -> [UInt8] {
        let response = try perform(Request(method: "GET", key: try checked(key)))
        if response.status == 404 { throw .notFound }
        guard response.status == 200 else { throw Self.refusal(response) }
        return response.body
    }

    public func delete(_ key: String) throws(ObjectStorageError) {
        let response = try perform(Request(method: "DELETE", key: try checked(key)))
        guard (200..<300).contains(response.status) || response.status == 404 else { throw Self.refusal(response) }
    }

    /// Whether there is an object under `key` (HEAD).
    public func exists(_ key: String) throws(ObjectStorageError) -> Bool {
        let response = try perform(Request(method: "HEAD", key: try checked(key)))
        if response.status == 404 { return false }
        guard response.status == 200 else { throw Self.refusal(response) }
        return true
    }

    /// Creates the bucket (200, or 409 when it is already there and ours).
    public func createBucket() throws(ObjectStorageError) {
        let response = try perform(Request(method: "PUT", key: ""))
        guard (200..<300).contains(response.status) || response.status == 409 else { throw Self.refusal(response) }
    }

    public func problem() -> String? {
        do {
            let response = try perform(Request(method: "HEAD", key: ""))
            switch response.status {
            case 200..<300: return nil
            case 403: return "the object store refuses the credentials (HTTP 403)"
            case 404: return "the object store has no bucket \(location.bucket) (HTTP 404)"
            default: return "the object store answers HEAD on the bucket with HTTP \(response.status)"
            }
        } catch {
            return error.description
        }
    }

    private func checked(_ key: String) throws(ObjectStorageError) -> String {
        guard key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ S3Location.isKeySegment(String($0)) }) else {
            throw .unavailable(reason: "object key not allowed")
        }
        return key
    }

    /// A refusal as a reason: the status and S3's `<Code>` (never the message, which may echo the request).
    static func refusal(_ response: Response) -> ObjectStorageError {
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        var code = ""
        if let open = text.range(of: "<Code>"), let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex) {
            code = String(text[open.upperBound..<close.lowerBound].prefix(64).filter { $0.isLetter || $0.isNumber })
        }
        return .unavailable(reason: "HTTP \(response.status)" + (code.isEmpty ? "" : " \(code)"))
    }

    /// Runs `request` with retries on passing failures until one answers or the deadline passes.
    func perform(_ request: Request) throws(ObjectStorageError) -> Response {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ObjectStorageError.unavailable(reason: "no attempt")
        for attempt in 0..<attempts {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0.05 else { break }
            switch once(request, within: remaining) {
            case .success(let response):
                guard response.status >= 500 || response.status == 429, attempt + 1 < attempts else { return response }
                last = Self.refusal(response)
            case .failure(let error):
                last = error
            }
            if attempt + 1 < attempts { usleep(UInt32(100_000 * (attempt + 1))) }
        }
        throw last
    }

    /// Receives the answer of one transfer.
    final class Transfer {
        let limit: Int
        var body: [UInt8] = []
        var tooLarge = false
        var sentHeaders: [String] = []

        init(limit: Int) { self.limit = limit }
    }

    /// One attempt. `sentHeaders`, when given, receives the request headers curl sent (tests).
    func once(_ request: Request, within seconds: TimeInterval, sentHeaders: (([String]) -> Void)? = nil) -> Result<Response, ObjectStorageError> {
        guard Self.initialized, let curl = curl_easy_init() else { return .failure(.unavailable(reason: "client unavailable")) }
        defer { curl_easy_cleanup(curl) }
        let transfer = Transfer(limit: maximumObjectBytes)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }

        // No `Expect:` to suppress 100-continue: curl would sign the empty header it then does not send.
        var headers = [("x-amz-content-sha256", Digest.hex(Digest.sha256(request.body)))]
        if request.method == "PUT" { headers.append(("Content-Type", "application/octet-stream")) }
        if let date = request.date { headers.append(("X-Amz-Date", date)) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        defer { curl_slist_free_all(headerList) }

        let total = Int(min(max(seconds, 0.1), 3600) * 1000)
        var ok = true
        func set(_ code: CURLcode) { ok = ok && code == CURLE_OK }
        set(hosted_curl_set_string(curl, CURLOPT_URL, location.url(for: request.key)))
        set(hosted_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(hosted_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0))
        set(hosted_curl_set_string(curl, CURLOPT_PROXY, ""))
        set(hosted_curl_set_string(curl, CURLOPT_NOPROXY, "*"))
        set(hosted_curl_set_long(curl, CURLOPT_NOSIGNAL, 1))
        set(hosted_curl_set_long(curl, CURLOPT_TIMEOUT_MS, total))
        set(hosted_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, min(total, Int(connectTimeout * 1000))))
        set(hosted_curl_set_string(curl, CURLOPT_AWS_SIGV4, "aws:amz:\(location.region):s3"))
        set(hosted_curl_set_string(curl, CURLOPT_USERNAME, credentials.accessKeyID))
        set(hosted_curl_set_string(curl, CURLOPT_PASSWORD, credentials.secretAccessKey))
        set(hosted_curl_set_slist(curl, CURLOPT_HTTPHEADER, headerList))
        set(hosted_curl_set_string(curl, CURLOPT_USERAGENT, "Hosted-Artifacts/1"))
        switch request.method {
        case "GET": break
        case "HEAD": set(hosted_curl_set_long(curl, CURLOPT_NOBODY, 1))
        case "PUT":
            // A POST body sent with the PUT method: curl signs the method it sends, and hashes
            // nothing itself (the header above carries the hash).
            set(hosted_curl_set_string(curl, CURLOPT_CUSTOMREQUEST, "PUT"))
            set(hosted_curl_set_long(curl, CURLOPT_POST, 1))
            set(hosted_curl_set_long(curl, CURLOPT_POSTFIELDSIZE, request.body.count))
        default: set(hosted_curl_set_string(curl, CURLOPT_CUSTOMREQUEST, request.method))
        }
        set(hosted_curl_set_write(curl, { data, size, count, context in
            let length = size * count
            guard let data, let context else { return length }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            guard transfer.body.count + length <= transfer.limit else {
                transfer.tooLarge = true
                return 0  // aborts the transfer
            }
            transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }, context.toOpaque()))
        if sentHeaders != nil {
            set(hosted_curl_set_debug(curl, { _, type, data, size, context in
                guard type == CURLINFO_HEADER_OUT, let data, let context else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
                transfer.sentHeaders += text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                return 0
            }, context.toOpaque()))
        }
        guard ok else { return .failure(.unavailable(reason: "client unavailable")) }

        let code = request.body.withUnsafeBufferPointer { buffer -> CURLcode in
            if request.method == "PUT" {
                _ = hosted_curl_set_pointer(curl, CURLOPT_POSTFIELDS,
                                            UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
            }
            return curl_easy_perform(curl)
        }
        sentHeaders?(transfer.sentHeaders)
        if transfer.tooLarge { return .failure(.unavailable(reason: "object larger than \(maximumObjectBytes) bytes")) }
        let status = Int(hosted_curl_response_code(curl))
        if code == CURLE_OK, status > 0 { return .success(Response(status: status, body: transfer.body)) }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .failure(.unavailable(reason: "timeout"))
        case CURLE_COULDNT_CONNECT: return .failure(.unavailable(reason: "connection failed"))
        case CURLE_COULDNT_RESOLVE_HOST: return .failure(.unavailable(reason: "unresolvable host"))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION: return .failure(.unavailable(reason: "tls failed"))
        default: return .failure(.unavailable(reason: String(cString: curl_easy_strerror(code))))
        }
    }

    /// The request headers curl sends for `method` on `key` signed at `date` (test hook: the
    /// signature cross-check against botocore). The request really goes to the store.
    public func sentHeaders(method: String, key: String, body: [UInt8], date: String) -> [String] {
        var captured: [String] = []
        _ = once(Request(method: method, key: key, body: body, date: date), within: timeout) { captured = $0 }
        return captured
    }
}
