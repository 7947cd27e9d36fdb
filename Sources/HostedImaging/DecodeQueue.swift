import CVips
import Foundation
import HostedCore

/// Where uploads are decoded: a few threads of their own and a short waiting line, never the
/// HTTP workers. However many photos arrive at once, at most `threads` decodes hold memory and
/// CPU, the workers go on answering everyone else, and past `capacity` waiting a new upload is
/// turned away at once (the caller answers 503) instead of queueing without end.
///
/// `@unchecked Sendable`: `waiting` and `stopped` are only touched while holding `condition`'s
/// lock; everything else is immutable.
public final class DecodeQueue: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<NormalizedImage, ImageRejected>) -> Void

    public let normalizer: any ImageNormalizer
    /// Measures the stored copy for the capture checks, on the same thread, when asked.
    public let measurer: VipsPhotoMeasurer?
    /// Decodes run at once.
    public let threads: Int
    /// Uploads that may wait for a thread.
    public let capacity: Int

    private let condition = NSCondition()
    /// Each job decodes (and measures) and returns what delivers its result, which runs after
    /// the decode's memory is handed back.
    private var waiting: [@Sendable () -> @Sendable () -> Void] = []
    private var stopped = false

    public init(normalizer: any ImageNormalizer, measurer: VipsPhotoMeasurer? = nil, threads: Int = 2, capacity: Int = 16) {
        self.normalizer = normalizer
        self.measurer = measurer
        self.threads = max(1, threads)
        self.capacity = max(0, capacity)
        for index in 0..<self.threads {
            // Named from inside: on Linux a name set before start never reaches the thread.
            Thread { [self] in
                Thread.current.name = "hosted-decode-\(index)"
                run()
            }.start()
        }
    }

    /// Decodes `bytes` on one of the queue's threads and calls `completion` there; false (and
    /// nothing run) when `capacity` uploads are already waiting or the queue is stopped.
    /// `normalizer` (default: the queue's own, for photos) lets another kind of image (an
    /// account's logo) share the same threads and waiting line.
    public func submit(_ bytes: [UInt8], normalizer: (any ImageNormalizer)? = nil, completion: @escaping Completion) -> Bool {
        let normalizer = normalizer ?? self.normalizer
        return enqueue {
            let result = Result { () throws(ImageRejected) in try normalizer.normalize(bytes) }
            return { completion(result) }
        }
    }

    /// What a measured decode gives: the stored copy, and its measures (nil when measuring failed
    /// or there is no measurer).
    public typealias MeasuredCompletion = @Sendable (Result<(NormalizedImage, PhotoMeasures?), ImageRejected>) -> Void

    /// As `submit`, and measures the stored copy for the capture checks on the same thread
    /// (faces only when `detectingFaces`).
    public func submitMeasured(_ bytes: [UInt8], detectingFaces: Bool, completion: @escaping MeasuredCompletion) -> Bool {
        let normalizer = self.normalizer, measurer = self.measurer
        return enqueue {
            let result = Result { () throws(ImageRejected) in
                let image = try normalizer.normalize(bytes)
                return (image, measurer?.measure(image.bytes, detectingFaces: detectingFaces))
            }
            return { completion(result) }
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, waiting.count < capacity else { return false }
        waiting.append(job)
        condition.signal()
        return true
    }

    /// Ends the threads once the uploads already waiting are decoded.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while let job = next() {
            let deliver = job()
            // The decode's buffers are freed by now: hand their pages back (see the shim).
            hosted_release_free_memory()
            deliver()
            // And what storing it took (the encoded photo sealed, the row written), freed by now too.
            hosted_release_free_memory()
        }
    }

    /// The next upload to decode, waiting for one; nil once stopped and drained.
    private func next() -> (@Sendable () -> @Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty {
            if stopped { return nil }
            condition.wait()
        }
        return waiting.removeFirst()
    }
}
