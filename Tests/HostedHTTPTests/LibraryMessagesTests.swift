import Foundation
@testable import HostedHTTP
import HostedObservability
import HostedTestSupport
import Testing

/// libmicrohttpd's complaints reach the log at most once a second, with a count of the rest.
@Suite struct LibraryMessagesTests {
    struct CollectingLog: ServerLog {
        let lines = Collected<String>()
        func access(_ entry: AccessLogEntry) {}
        func error(_ message: String, requestID: String?) { lines.append(message) }
    }

    @Test func oneLineASecond_theNextCountsWhatWasDropped() {
        let messages = LibraryMessages()
        let log = CollectingLog()
        let second: UInt64 = 1_000_000_000
        messages.note("Connection socket is closed due to the error\n", log: log, now: 10 * second)
        for offset in 1...500 { messages.note("cut \(offset)", log: log, now: 10 * second + UInt64(offset) * 1_000_000) }
        messages.note("Connection timed out", log: log, now: 11 * second + 1)
        #expect(log.lines.all == [
            "libmicrohttpd: Connection socket is closed due to the error",
            "libmicrohttpd: Connection timed out (500 more messages in the last second not written)",
        ])
    }
}
