import Foundation
import HostedCore

/// The journey's counts (`journey_counts`, aggregates only) and the first-view times the
/// funnel needs (`journey_firsts`); the funnel itself is read from these and from what the
/// verification and its events already hold. Every write is one statement, so any number of
/// threads and processes count at once without losing an update (`count = count + n` in the
/// upsert itself, on both SQLite and PostgreSQL).
public struct AnalyticsStore: Sendable {
    private let database: any Database

    /// Counts and first views are kept this long (DESIGN.md: 400 days).
    public static let retentionDays: Int64 = 400

    public init(database: any Database) {
        self.database = database
    }

    /// Where a count goes, beyond the verification's account, workflow and version.
    public struct Signal: Sendable, Hashable {
        public let signal: JourneySignal
        public let step: String
        public let reason: String
        public let deviceClass: DeviceClass

        public init(_ signal: JourneySignal, step: String = "", reason: String = "", deviceClass: DeviceClass) {
            (self.signal, self.step, self.reason, self.deviceClass) = (signal, step, reason, deviceClass)
        }
    }

    /// Adds `amount` (one per event) to a signal's count for the day of `time`, with the account, mode, workflow
    /// and version taken from the verification itself (nothing is counted for an unknown id).
    /// Returns the verification's workflow key, nil when there is no such verification.
    @discardableResult
    public func count(_ signal: Signal, verificationID: String, at time: Date, by amount: Int = 1) throws -> String? {
        let day = AnalyticsDay(time).number
        // `WHERE` before `ON CONFLICT` is what lets SQLite parse an upsert from a SELECT.
        return try database.query("""
            INSERT INTO journey_counts (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day, count)
            SELECT account_id, livemode, workflow_key, workflow_version, \(signal.step), \(signal.signal.rawValue), \(signal.reason),
                   \(signal.deviceClass.rawValue), CAST(\(day) AS BIGINT), CAST(\(amount) AS BIGINT)
            FROM verifications WHERE id = \(verificationID)
            ON CONFLICT (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day)
            DO UPDATE SET count = journey_counts.count + excluded.count
            RETURNING workflow_key
            """).first.map { row in try row.string("workflow_key") }
    }

    /// The same, for a verification whose account, mode, workflow and version the caller holds.
    public func count(_ signal: Signal, accountID: String, livemode: Bool, workflowKey: String, workflowVersion: Int, at time: Date,
                      by amount: Int = 1) throws {
        let day = AnalyticsDay(time).number
        try database.query("""
            INSERT INTO journey_counts (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day, count)
            VALUES (\(accountID), \(Int64(livemode ? 1 : 0)), \(workflowKey), \(workflowVersion), \(signal.step), \(signal.signal.rawValue),
                    \(signal.reason), \(signal.deviceClass.rawValue), \(day), \(amount))
            ON CONFLICT (account_id, livemode, workflow_key, workflow_version, step, signal, reason, device_class, day)
            DO UPDATE SET count = journey_counts.count + excluded.count
            """)
    }

    /// Notes the first time this verification's journey was opened (`step` '') or one of its
    /// steps viewed, on this device class; true only for the call that noted it.
    public func noteFirst(verificationID: String, step: String, deviceClass: DeviceClass, at time: Date) throws -> Bool {
        try !database.query("""
            INSERT INTO journey_firsts (verification_id, step, device_class, at)
            SELECT id, \(step), \(deviceClass.rawValue), CAST(\(time.unixMilliseconds) AS BIGINT) FROM verifications WHERE id = \(verificationID)
            ON CONFLICT (verification_id, step, device_class) DO NOTHING
            RETURNING at
            """).isEmpty
    }

    /// The verifications of `tenancy` (its account, in its mode; and `workflowKey`) created in
    /// `range`, as far as each went, and the counts of the range's days.
    public func funnel(tenancy: Tenancy, workflowKey: String?, range: AnalyticsRange) throws -> JourneyFunnel {
        let accountID = tenancy.accountID.rawValue
        let (start, end) = (range.from.start.unixMilliseconds, range.to.end.unixMilliseconds)
        let workflow: SQL = workflowKey.map { key in "AND v.workflow_key = \(key)" } ?? ""
        let countsWorkflow: SQL = workflowKey.map { key in "AND c.workflow_key = \(key)" } ?? ""
        let created: SQL = "v.account_id = \(accountID) AND v.livemode = \(tenancy.mode) AND v.created_at >= \(start) AND v.created_at < \(end) \(workflow)"
        return try database.withConnection { connection in
            var journeys: [String: JourneyFunnel.Journey] = [:]
            for row in try connection.query("SELECT v.id, v.submitted_at, v.decided_at FROM verifications v WHERE \(created)") {
                var journey = JourneyFunnel.Journey()
                journey.submitted = try row.optionalInt("submitted_at") != nil
                journey.decided = try row.optionalInt("decided_at") != nil
                journeys[try row.string("id")] = journey
            }
            for row in try connection.query("""
                SELECT f.verification_id, f.step, MIN(f.at) AS at FROM journey_firsts f JOIN verifications v ON v.id = f.verification_id
                WHERE \(created) GROUP BY f.verification_id, f.step
                """) {
                let (id, step, at) = (try row.string("verification_id"), try row.string("step"), try row.int("at"))
                if step.isEmpty { journeys[id]?.opened = true } else { journeys[id]?.firstViewed[step] = at }
            }
            for row in try connection.query("""
                SELECT e.verification_id, e.type, e.data, e.created_at FROM events e JOIN verifications v ON v.id = e.verification_id
                WHERE \(created) AND e.type IN (\(EventType.signedIn.rawValue), \(EventType.stepCompleted.rawValue))
                ORDER BY e.verification_id, e.sequence
                """) {
                let id = try row.string("verification_id")
                if try row.string("type") == EventType.signedIn.rawValue {
                    journeys[id]?.signedIn = true
                } else if let step = Self.stepID(in: try row.string("data")), journeys[id]?.completed[step] == nil {
                    journeys[id]?.completed[step] = try row.int("created_at")
                }
            }
            let counts = try connection.query("""
                SELECT c.signal, c.step, c.reason, c.device_class, SUM(c.count) AS n FROM journey_counts c
                WHERE c.account_id = \(accountID) AND c.livemode = \(tenancy.mode) AND c.day >= \(range.from.number) AND c.day <= \(range.to.number)
                \(countsWorkflow)
                AND c.signal IN (\(JourneySignal.opened.rawValue), \(JourneySignal.submitted.rawValue), \(JourneySignal.captureRetake.rawValue))
                GROUP BY c.signal, c.step, c.reason, c.device_class
                """).compactMap { row -> JourneyFunnel.Count? in
                guard let signal = JourneySignal(rawValue: try row.string("signal")) else { return nil }
                return JourneyFunnel.Count(signal: signal, step: try row.string("step"), reason: try row.string("reason"),
                                           deviceClass: try row.string("device_class"), count: Int(try row.int("n")))
            }
            return JourneyFunnel(journeys: Array(journeys.values), counts: counts)
        }
    }

    /// The account's workflow keys, for the console's filter.
    public func workflowKeys(accountID: String) throws -> [String] {
        try database.query("SELECT DISTINCT key FROM workflows WHERE account_id = \(accountID) ORDER BY key").map { row in try row.string("key") }
    }

    /// The step id of a `verification.step_completed` event's data.
    static func stepID(in data: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return nil }
        return object["step"] as? String
    }

    /// Deletes counts and first views older than `retentionDays` before `time`; rows deleted.
    public func prune(at time: Date) throws -> (counts: Int, firsts: Int) {
        let cutoffDay = AnalyticsDay(time).number - Self.retentionDays
        let counts = try database.query("DELETE FROM journey_counts WHERE day < \(cutoffDay) RETURNING 1 AS n").count
        let firsts = try database.query("""
            DELETE FROM journey_firsts WHERE at < \(AnalyticsDay(number: cutoffDay).start.unixMilliseconds) RETURNING 1 AS n
            """).count
        return (counts, firsts)
    }
}
