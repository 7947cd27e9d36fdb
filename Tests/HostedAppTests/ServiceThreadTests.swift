import Dispatch
import Foundation
@testable import HostedApp
import Testing

/// The start-once, stop-once bookkeeping of the background loops.
@Suite struct ServiceThreadTests {
    @Test func startsItsLoopOnceAndStopsItOnce() {
        let thread = ServiceThread(name: "hosted.test")
        #expect(thread.stop() == false, "a thread that never started has nothing to stop")
        let runs = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let loop: @Sendable () -> Void = {
            runs.signal()
            while thread.isRunning { usleep(1_000) }
            ended.signal()
        }
        thread.start(loop)
        thread.start(loop)  // the second start does nothing
        #expect(runs.wait(timeout: .now() + 10) == .success)
        #expect(runs.wait(timeout: .now() + 0.2) == .timedOut, "the loop runs once")
        #expect(thread.isRunning)
        #expect(thread.stop())
        #expect(ended.wait(timeout: .now() + 10) == .success, "the loop sees the stop")
        #expect(thread.stop() == false, "a second stop finds nothing running")
        thread.start(loop)  // nor does a start after the stop
        #expect(runs.wait(timeout: .now() + 0.2) == .timedOut)
    }
}
