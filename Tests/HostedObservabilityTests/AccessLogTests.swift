import Foundation
import HostedObservability
import Testing

@Suite struct AccessLogTests {
    @Test func lineIsOneValidJSONObjectWithEveryField() throws {
        let entry = AccessLogEntry(time: Date(timeIntervalSince1970: 1_795_000_000.123), requestID: "r\"1\n",
                                   method: "GET", path: "/j/ver_x\u{1}", status: 404, bytes: 120, durationMilliseconds: 0.4567)
        let line = entry.jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2026-11-18T11:06:40.123Z")
        #expect(object["request_id"] as? String == "r\"1\n")
        #expect(object["path"] as? String == "/j/ver_x\u{1}")
        #expect(object["status"] as? Int == 404)
        #expect(object["bytes"] as? Int == 120)
        #expect(object["duration_ms"] as? Double == 0.457)
    }
}
