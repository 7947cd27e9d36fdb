import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HostedCore
import HostedCrypto
import HostedStorage

/// Sends a text message. A failure is reported to the user as "try again", never as a crash.
protocol SMSSender: Sendable {
    func send(to number: String, body: String) throws
    /// Sends a message about one verification: the dev outbox keeps the id, so redaction finds
    /// every message the verification was sent, to whichever number it had then.
    func send(to number: String, body: String, verificationID: String) throws
    /// False when nothing could ever be sent (no relay configured): sign-in by code is then
    /// refused for every number alike, instead of queueing messages that cannot go.
    var isConfigured: Bool { get }
}

extension SMSSender {
    var isConfigured: Bool { true }

    func send(to number: String, body: String, verificationID: String) throws {
        try send(to: number, body: body)
    }
}

/// Why a message was not sent.
struct SMSFailure: Error, CustomStringConvertible {
    let description: String
}
