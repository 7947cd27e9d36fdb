import Foundation

/// The limits on asking for an SMS sign-in code, and which buckets a request spends. Chosen so
/// that no client can spend another's budget (a stranger holding the journey link never stops
/// the real user getting a code) and so that no answer depends on whether the number is the
/// verification's (no oracle).
public enum SignInLimits {
    /// A rate: `burst` requests at once, then one per `interval` seconds.
    public struct Limit: Equatable, Sendable {
        public let name: String
        public let interval: TimeInterval
        public let burst: Int
    }

    /// One bucket to take from: its key in the rate-limit table and its limit.
    public struct Bucket: Equatable, Sendable {
        public let key: String
        public let limit: Limit
    }

    /// 20 an hour per client address, across verifications and numbers.
    public static let address = Limit(name: "otp-ip", interval: 180, burst: 20)
    /// One code per 30 s for one verification, number and client.
    public static let cooldown = Limit(name: "otp-cooldown", interval: OneTimeCode.resendCooldown, burst: 1)
    /// Five an hour for one verification, number and client.
    public static let verification = Limit(name: "otp-verification", interval: 720, burst: 5)
    /// Five codes an hour really sent to one number, across verifications.
    public static let number = Limit(name: "otp-number", interval: 720, burst: 5)

    /// The first bucket every request takes: the client's address. A spent one answers 429 and
    /// nothing else is spent (nor is anything spent for a verification that does not exist or
    /// is closed).
    public static func addressBucket(clientAddress: String) -> Bucket {
        Bucket(key: address.name + ":" + clientAddress, limit: address)
    }

    /// The buckets a request for an open verification takes next, in order, whatever the number;
    /// a spent one answers 429. They are keyed by the number asked for and the client: a wrong
    /// number spends the wrong number's budget, never the real one's, and nobody sees a 429
    /// caused by someone else's requests (which would tell them that the number they guessed
    /// was the one just used).
    ///
    /// `numberKey` is a keyed hash of the E.164 number, never the number itself: a bucket may
    /// outlive the verification's redaction until it is pruned.
    public static func verificationBuckets(verificationID: String, numberKey: String, clientAddress: String) -> [Bucket] {
        let scope = verificationID + ":" + numberKey + ":" + clientAddress
        return [Bucket(key: cooldown.name + ":" + scope, limit: cooldown),
                Bucket(key: verification.name + ":" + scope, limit: verification)]
    }

    /// The bucket of codes really sent to a number, taken only when the number is the
    /// verification's: a spent one sends nothing and answers like any other request.
    public static func sendBucket(numberKey: String) -> Bucket {
        Bucket(key: number.name + ":" + numberKey, limit: number)
    }
}
