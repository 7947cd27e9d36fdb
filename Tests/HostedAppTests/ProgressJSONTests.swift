import Foundation
import HostedHTTP
@testable import HostedApp
import Testing

/// The follow's body written by hand is byte for byte what `JSONCoding.encoder` wrote for it.
@Suite struct ProgressJSONTests {
    typealias Progress = ContinuationService.Progress

    static let cases: [Progress] = [
        Progress(tag: "4--", status: "submitted", continuation: nil, steps: [.init(id: "about", status: "completed")],
                 redirect_url: "https://app.example.com/done?src=app&verification_id=ver_1&status=submitted#hosted_result=eyJh.eyJh.c2ln",
                 blocked_seconds: nil),
        Progress(tag: "2-cont_1-pending", status: "open", continuation: .init(status: "pending", expires_at: "2026-12-07T01:02:03Z"),
                 steps: [.init(id: "about", status: "completed"), .init(id: "selfie", status: "pending")], blocked_seconds: nil),
        Progress(tag: "3-cont_2-reported", status: "open", continuation: .init(status: "reported", expires_at: nil), steps: [],
                 blocked_seconds: 17),
        Progress(tag: "5-cont_3-expired", status: "open", continuation: .init(status: "expired", expires_at: "2026-12-07T01:02:03Z"),
                 steps: [.init(id: "a\"b\\c/d", status: "x\ny")], redirect_url: nil, blocked_seconds: 0),
    ]

    @Test(arguments: cases.indices)
    func sameBytesAsTheEncoder(index: Int) throws {
        let progress = Self.cases[index]
        let encoded = try JSONCoding.encoder.encode(progress)
        #expect(String(decoding: progress.json(), as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }
}
