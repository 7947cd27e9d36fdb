import Foundation
import HostedCore
@testable import HostedOutbound
import HostedTestSupport
import Testing

/// The S3 client against a real OpenStack Swift with its S3 API on loopback
/// (`scripts/with-swift.sh`), and its signature against botocore's for the same request.
@Suite struct S3ClientTests {
    var available: Bool { TestObjectStore.availability { Issue.record(Comment(rawValue: $0)) } }

    func client(prefix: String = "client-\(UUID().uuidString.prefix(8).lowercased())", secret: String? = nil,
                url: String? = nil, timeout: TimeInterval = 10) throws -> S3Client {
        let text = try #require(url ?? TestObjectStore.url(prefix: prefix))
        let location = try #require(S3Location(text))
        return S3Client(location: location, credentials: S3Credentials(accessKeyID: TestObjectStore.accessKeyID,
                                                                       secretAccessKey: secret ?? TestObjectStore.secretAccessKey),
                        timeout: timeout)
    }

    @Test func location_parsesBucketPrefixEndpointRegionAndStyle() throws {
        let location = try #require(S3Location("s3://photos/eu/live?endpoint=https://s3.example.com&region=eu-west-1"))
        #expect(location.bucket == "photos" && location.prefix == "eu/live" && location.region == "eu-west-1" && !location.pathStyle)
        #expect(location.url(for: "eu/live/a/b") == "https://photos.s3.example.com/eu/live/a/b")
        let path = try #require(S3Location("s3://photos?endpoint=http://127.0.0.1:9000/&region=us-east-1&path_style=true"))
        #expect(path.prefix == "" && path.url(for: "k") == "http://127.0.0.1:9000/photos/k")
        #expect(path.description == "s3://photos?endpoint=http://127.0.0.1:9000&region=us-east-1&path_style=true")
        for bad in ["s3://Photos?endpoint=https://a&region=r", "s3://photos?region=r", "s3://photos?endpoint=ftp://a&region=r",
                    "s3://photos?endpoint=https://a", "s3://photos/../x?endpoint=https://a&region=r", "https://photos?endpoint=https://a&region=r",
                    "s3://photos?endpoint=https://a&region=r&path_style=maybe", "s3://photos?endpoint=https://a/path&region=r",
                    "s3://photos?endpoint=https://a&region=r&other=1"] {
            #expect(S3Location(bad) == nil, "\(bad)")
        }
        #expect(!"\(S3Credentials(accessKeyID: "a:b", secretAccessKey: "very-secret"))".contains("very-secret"))
    }

    @Test func putGetDelete_roundTripWithAColonInTheAccessKey() throws {
        guard available else { return }
        #expect(TestObjectStore.accessKeyID.contains(":"))
        let s3 = try client()
        let key = s3.prefix + "/acct/ver/art"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try s3.put(key, bytes)
        #expect(try s3.get(key) == bytes)
        #expect(try s3.exists(key))
        try s3.put(key, bytes)  // the same key and bytes again: idempotent
        #expect(try s3.get(key) == bytes)
        try s3.delete(key)
        #expect(throws: ObjectStorageError.notFound) { try s3.get(key) }
        #expect(try !s3.exists(key))
        try s3.delete(key)  // deleting what is not there succeeds
        #expect(s3.problem() == nil)
    }

    @Test func wrongSecret_isRefusedAndSaysSoWithoutTheSecret() throws {
        guard available else { return }
        let s3 = try client(secret: "not-the-secret-at-all")
        do {
            try s3.put(s3.prefix + "/x", [1, 2, 3])
            Issue.record("a PUT with the wrong secret succeeded")
        } catch {
            #expect(error.description.contains("HTTP 403"))
            #expect(!error.description.contains("not-the-secret-at-all"))
        }
        let problem = try #require(s3.problem())
        #expect(problem.contains("credentials") && !problem.contains("not-the-secret-at-all"))
        #expect(!"\(s3)".contains("not-the-secret-at-all"))
    }

    @Test func closedPort_failsFastAsUnavailable() throws {
        let port = try closedPort()
        let s3 = try client(url: "s3://hosted-test?endpoint=http://127.0.0.1:\(port)&region=us-east-1&path_style=true", timeout: 3)
        let started = Date()
        #expect(throws: ObjectStorageError.unavailable(reason: "connection failed")) { try s3.put("a/b", [1]) }
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(s3.problem()?.contains("connection failed") == true)
    }

    /// The virtual-host style (`bucket.host`): Swift's s3api takes it under its storage domain
    /// `localhost`, and curl resolves `*.localhost` to loopback itself.
    @Test func virtualHostStyle_roundTrip() throws {
        guard available else { return }
        let port = try #require(TestObjectStore.endpoint.split(separator: ":").last)
        let s3 = try client(url: "s3://hosted-test/vhost?endpoint=http://localhost:\(port)&region=us-east-1")
        #expect(s3.location.url(for: "vhost/k").hasPrefix("http://hosted-test.localhost:"))
        try s3.put("vhost/k", Array("virtual".utf8))
        #expect(try s3.get("vhost/k") == Array("virtual".utf8))
        try s3.delete("vhost/k")
    }

    /// curl's Authorization header for a request at a fixed clock is the one botocore's
    /// S3SigV4Auth computes for the same method, URL, headers and body.
    @Test func signature_matchesBotocoreAtAFixedClock() throws {
        guard available else { return }
        let s3 = try client(prefix: "sigv4")
        for (method, body) in [("PUT", Array("the body of the object".utf8)), ("GET", []), ("DELETE", [])] as [(String, [UInt8])] {
            let headers = s3.sentHeaders(method: method, key: "sigv4/cross-check", body: body, date: "20260102T030405Z")
            let authorization = try #require(headers.first { $0.lowercased().hasPrefix("authorization:") })
            #expect(authorization.contains("Credential=test:tester/20260102/us-east-1/s3/aws4_request"))
            #expect(headers.contains { $0.lowercased().hasPrefix("x-amz-content-sha256:") })
            let request: [String: Any] = ["method": method, "url": s3.location.url(for: "sigv4/cross-check"), "headers": headers,
                                          "body": body.map { String(format: "%02x", $0) }.joined(),
                                          "key": TestObjectStore.accessKeyID, "secret": TestObjectStore.secretAccessKey]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            let botocore = try #require(try TestObjectStore.python(Self.botocoreSigner, input: json))
            #expect(authorization.dropFirst("authorization: ".count) == botocore.trimmingCharacters(in: .whitespacesAndNewlines)[...],
                    "\(method)")
        }
    }

    /// Signs the request curl sent with botocore, over the headers curl signed, at curl's X-Amz-Date.
    static let botocoreSigner = #"""
    import json, sys
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    r = json.load(sys.stdin)
    sent = dict((k.strip().lower(), v.strip()) for k, v in (h.split(":", 1) for h in r["headers"][1:]))
    signed = sent["authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
    headers = {name: sent[name] for name in signed if name != "host"}
    request = AWSRequest(method=r["method"], url=r["url"], data=bytes.fromhex(r["body"]), headers=headers)
    auth = S3SigV4Auth(Credentials(r["key"], r["secret"]), "s3", "us-east-1")
    request.context["timestamp"] = sent["x-amz-date"]
    auth._modify_request_before_signing(request)
    canonical = auth.canonical_request(request)
    signature = auth.signature(auth.string_to_sign(request, canonical), request)
    print("AWS4-HMAC-SHA256 " + ", ".join([
        "Credential=" + auth.scope(request),
        "SignedHeaders=" + auth.signed_headers(auth.headers_to_sign(request)), "Signature=" + signature]))
    """#

    func closedPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }
}
