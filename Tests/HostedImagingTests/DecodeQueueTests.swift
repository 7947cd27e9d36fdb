import Foundation
import HostedCore
import HostedImaging
import HostedTestSupport
import Testing

/// Uploads are decoded on the queue's own threads, a bounded number at once, and a full waiting
/// line turns new uploads away instead of growing.
@Suite struct DecodeQueueTests {
    /// A normalizer that holds every decode until released and counts how many run at once
    /// (the queue is the unit under test; libvips itself is tested in VipsImageNormalizerTests).
    final class HeldNormalizer: ImageNormalizer, @unchecked Sendable {  // all state under `lock`
        private let lock = NSCondition()
        private var released = false
        private var running = 0
        private var most = 0
        private var threads: [pthread_t] = []

        func normalize(_ bytes: [UInt8]) throws(ImageRejected) -> NormalizedImage {
            lock.lock()
            running += 1
            most = max(most, running)
            threads.append(pthread_self())
            while !released { lock.wait() }
            running -= 1
            lock.unlock()
            guard bytes != [0] else { throw ImageRejected("refused") }
            return NormalizedImage(contentType: "image/jpeg", bytes: bytes, width: 1, height: 1)
        }

        func release() {
            lock.lock()
            released = true
            lock.broadcast()
            lock.unlock()
        }

        var started: Int { decodingThreads.count }

        var mostAtOnce: Int {
            lock.lock()
            defer { lock.unlock() }
            return most
        }

        var decodingThreads: [pthread_t] {
            lock.lock()
            defer { lock.unlock() }
            return threads
        }
    }

    @Test func decodesRunOnTheQueuesThreads_atMostThreadsAtOnce_andAFullLineIsRefused() {
        let normalizer = HeldNormalizer()
        let queue = DecodeQueue(normalizer: normalizer, threads: 2, capacity: 2)
        defer { queue.stop() }
        let done = Collected<Result<NormalizedImage, ImageRejected>>()
        // Two decode at once and two wait: the fifth finds the line full.
        for index in 1...4 {
            #expect(queue.submit([UInt8(index)]) { done.append($0) })
            if index == 2 { #expect(eventually { normalizer.started == 2 }) }
        }
        #expect(!queue.submit([5]) { done.append($0) })
        normalizer.release()
        #expect(eventually { done.all.count == 4 })
        #expect(normalizer.mostAtOnce == 2)
        // Never on the thread that submitted (an HTTP worker, in the service).
        let submitter = pthread_self()
        #expect(normalizer.decodingThreads.allSatisfy { pthread_equal($0, submitter) == 0 })
        #expect(Set(done.all.compactMap { try? $0.get().bytes.first }) == [1, 2, 3, 4])
    }

    @Test func aRejectedImageCompletesWithItsError() {
        let normalizer = HeldNormalizer()
        normalizer.release()
        let queue = DecodeQueue(normalizer: normalizer, threads: 1, capacity: 1)
        defer { queue.stop() }
        let done = Collected<Result<NormalizedImage, ImageRejected>>()
        #expect(queue.submit([0]) { done.append($0) })
        #expect(eventually { done.all.count == 1 })
        #expect(throws: ImageRejected.self) { try done.all[0].get() }
    }

    @Test func aStoppedQueueTakesNothing() {
        let queue = DecodeQueue(normalizer: HeldNormalizer(), threads: 1, capacity: 4)
        queue.stop()
        #expect(!queue.submit([1]) { _ in })
    }
}
