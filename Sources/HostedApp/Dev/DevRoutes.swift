import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// Dev mode only: `GET /dev/outbox?to=NUMBER`, the SMS messages that would have been sent.
struct DevRoutes {
    let store: SignInStore

    private struct Message: Encodable {
        let to: String
        let body: String
        let created_at: String?
    }

    private struct Outbox: Encodable {
        let data: [Message]
    }

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/dev/outbox") { request, _ in
            let number = request.queryValue("to").flatMap { MobileNumber.normalized($0) ?? $0 }
            let messages = try store.outbox(to: number)
            return try .json(Outbox(data: messages.map { Message(to: $0.to, body: $0.body, created_at: APIObjects.timestamp($0.createdAt)) }))
        }
    }
}
