import Dispatch
import Foundation
import HostedHTTP
import HostedTestSupport
import Testing

/// `Reply.eventually` and `Reply.onWorker`: how the poll and the create answer through the
/// database pipeline (ready at once on SQLite, settled from the pipeline's thread on PostgreSQL,
/// going on on a worker thread when the rest must block).
@Suite struct EventualReplyTests {
    /// Threads seen, by the role they played.
    final class Threads: @unchecked Sendable {  // `seen` only under `lock`
        private let lock = NSLock()
        private var seen: [String: pthread_t] = [:]
        func note(_ role: String) { lock.lock(); seen[role] = pthread_self(); lock.unlock() }
        func thread(_ role: String) -> pthread_t? { lock.lock(); defer { lock.unlock() }; return seen[role] }
    }

    @Test func settledBeforeItReturnsTheReplyIsReadyAndNothingIsSuspended() {
        let reply = Reply.eventually { settle in settle(.ready(Response(status: 201))) }
        #expect(reply.response?.status == 201)
    }

    @Test func settledLaterTheReplyIsDeferredAndItsResponseArrivesOnce() throws {
        let later = DispatchSemaphore(value: 0)
        let reply = Reply.eventually { settle in
            DispatchQueue.global().async {
                later.wait()
                settle(.ready(Response(status: 202)))
            }
        }
        let deferred = try #require(reply.deferred)
        let answer = Answer()
        deferred.start { answer.set($0) }
        later.signal()
        #expect(answer.wait(seconds: 5)?.status == 202)
    }

    /// Settled from another thread with work that must block, the server resumes the connection
    /// and runs that work on one of its workers, not on the thread that settled; headers added
    /// by a wrapping `map` (the error boundary's) are there.
    @Test func aWorkerTaskSettledFromElsewhereRunsOnAWorkerThread() throws {
        let threads = Threads()
        var routes = Router.Builder()
        routes.addDeferrable("GET", "/go-on") { _, _ in
            threads.note("responder")
            return Reply.eventually { settle in
                DispatchQueue.global().async {
                    threads.note("settler")
                    settle(.onWorker {
                        threads.note("task")
                        return .ready(Response(status: 200, body: Array("went on".utf8)))
                    })
                }
            }.map { response in
                var response = response
                response.headers.add("X-Mapped", "yes")
                return response
            }
        }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2), responder: routes.build(),
                                log: HTTPServerLiveTests.MemoryLog())
        try server.start()
        defer { server.shutdown(gracePeriod: 1) }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /go-on HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("went on"))
        #expect(response.headers["x-mapped"] == "yes")
        let task = try #require(threads.thread("task"))
        let settler = try #require(threads.thread("settler"))
        #expect(pthread_equal(task, settler) == 0, "the task ran on the thread that settled, not on a worker")
    }

    /// A worker task returned by the responder itself runs at once, on that worker.
    @Test func aWorkerTaskReturnedAtOnceRunsThere() {
        let reply = Reply.eventually { settle in settle(.onWorker { .ready(Response(status: 204)) }) }
        let deferred = reply.deferred
        #expect(deferred != nil)
        let answer = Answer()
        deferred?.start { answer.set($0) }
        #expect(answer.wait(seconds: 1)?.status == 204)
    }
}

/// A response delivered from any thread.
typealias Answer = Arrival<Response>
