import Foundation

/// The answer of `GET /v1/analytics/funnel`: how many verifications created in a range reached
/// each stage, each step's views and completions with the median time between them, the retake
/// reasons and the device classes. Built from facts without a personal value in them.
public struct JourneyFunnel: Sendable, Equatable {
    public enum Stage: String, Sendable, CaseIterable {
        case created, opened
        case signedIn = "signed_in"
        case submitted, decided
    }

    public struct StageCount: Sendable, Equatable {
        public let stage: Stage
        public let count: Int
        /// `count` ÷ the `created` count, 0 … 1 (0 when nothing was created).
        public let conversion: Double
    }

    public struct StepCount: Sendable, Equatable {
        public let step: String
        public let viewed: Int
        public let completed: Int
        /// From the step's first view to its completion, over the verifications that did both;
        /// nil when none did.
        public let medianSeconds: Double?
    }

    public struct RetakeCount: Sendable, Equatable {
        public let step: String
        public let reason: String
        public let count: Int
    }

    public struct DeviceCount: Sendable, Equatable {
        public let deviceClass: String
        public let opened: Int
        public let submitted: Int
    }

    public let stages: [StageCount]
    public let steps: [StepCount]
    public let retakes: [RetakeCount]
    public let devices: [DeviceCount]

    /// One verification created in the range, as far as it went (times in Unix milliseconds).
    public struct Journey: Sendable {
        public var opened = false
        public var signedIn = false
        public var submitted = false
        public var decided = false
        /// Per step id: the first view and the first completion.
        public var firstViewed: [String: Int64] = [:]
        public var completed: [String: Int64] = [:]

        public init() {}
    }

    /// One aggregate row, summed over the range's days.
    public struct Count: Sendable {
        public let signal: JourneySignal
        public let step: String
        public let reason: String
        public let deviceClass: String
        public let count: Int

        public init(signal: JourneySignal, step: String, reason: String, deviceClass: String, count: Int) {
            (self.signal, self.step, self.reason, self.deviceClass, self.count) = (signal, step, reason, deviceClass, count)
        }
    }

    public init(journeys: [Journey], counts: [Count]) {
        let created = journeys.count
        let reached: [(Stage, Int)] = [
            (.created, created), (.opened, journeys.filter(\.opened).count), (.signedIn, journeys.filter(\.signedIn).count),
            (.submitted, journeys.filter(\.submitted).count), (.decided, journeys.filter(\.decided).count),
        ]
        stages = reached.map { StageCount(stage: $0.0, count: $0.1, conversion: created == 0 ? 0 : Double($0.1) / Double(created)) }

        var viewed: [String: Int] = [:], completed: [String: Int] = [:], durations: [String: [Double]] = [:]
        for journey in journeys {
            for step in journey.firstViewed.keys { viewed[step, default: 0] += 1 }
            for (step, at) in journey.completed {
                completed[step, default: 0] += 1
                if let first = journey.firstViewed[step], at >= first { durations[step, default: []].append(Double(at - first) / 1000) }
            }
        }
        // Earlier steps are viewed by more users: the most viewed first reads as the funnel.
        steps = Set(viewed.keys).union(completed.keys).map { step in
            StepCount(step: step, viewed: viewed[step] ?? 0, completed: completed[step] ?? 0, medianSeconds: Self.median(durations[step] ?? []))
        }.sorted { ($0.viewed, $0.completed, $1.step) > ($1.viewed, $1.completed, $0.step) }

        var retakes: [String: Int] = [:], opened: [String: Int] = [:], submitted: [String: Int] = [:]
        for count in counts {
            switch count.signal {
            case .captureRetake: retakes["\(count.step)\u{0}\(count.reason)", default: 0] += count.count
            case .opened: opened[count.deviceClass, default: 0] += count.count
            case .submitted: submitted[count.deviceClass, default: 0] += count.count
            default: break
            }
        }
        self.retakes = retakes.map { key, value in
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            return RetakeCount(step: parts[0], reason: parts[1], count: value)
        }.sorted { ($0.count, $1.step, $1.reason) > ($1.count, $0.step, $0.reason) }
        devices = DeviceClass.allCases.map(\.rawValue).filter { opened[$0] != nil || submitted[$0] != nil }
            .map { DeviceCount(deviceClass: $0, opened: opened[$0] ?? 0, submitted: submitted[$0] ?? 0) }
    }

    /// The middle value, or the mean of the two middle values; nil for none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
