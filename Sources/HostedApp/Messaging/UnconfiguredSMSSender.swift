import Foundation
import FoundationNetworking
import HostedCore
import HostedCrypto
import HostedStorage

/// Neither dev mode nor a relay: every send fails, and the page asks the user to try again.
struct UnconfiguredSMSSender: SMSSender {
    var isConfigured: Bool { false }

    func send(to number: String, body: String) throws {
        throw SMSFailure(description: "no SMS relay configured (HOSTED_SMS_RELAY_URL)")
    }
}
