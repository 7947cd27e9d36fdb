import CMicroHTTPD
import Foundation
import HostedCore

// A request's body: the header phase that decides whether it may come, then its chunks, kept
// while they fit the route's limit, the server's budget and the minimum rate.
extension HTTPServer {
    /// The header phase of a request that announces a body: the route, its credentials, its size
    /// and room in the server's budget are all decided before a byte of the body is read.
    /// nil when the body may come.
    func admit(_ exchange: Exchange) -> Response? {
        let headers = exchange.request.headers
        let declared = headers["Content-Length"].flatMap { Int($0.trimmedASCIIWhitespace) }
        guard declared.map({ $0 > 0 }) ?? headers.contains("Transfer-Encoding") else { return nil }
        var context = RequestContext(requestID: exchange.requestID, receivedAt: exchange.receivedAt, log: log, routeNote: exchange.routeNote)
        do {
            exchange.bodyLimit = try responder.admit(exchange.request, context: &context)
            exchange.admitted = context
        } catch let problem as Problem {
            return problem.response
        } catch {
            log.error("admission failed: \(String(reflecting: error))", requestID: exchange.requestID)
            return Problem.internalError.response
        }
        // Counted against the client's address and, when the admission named one, its holder.
        exchange.budgetHolders = ["address " + configuration.trustedProxies.clientAddress(of: exchange.request)]
        if let holder = context[BodyHolder.self] { exchange.budgetHolders.append("holder " + holder) }
        guard let declared else { return nil }
        if declared > exchange.bodyLimit { return Problem.payloadTooLarge(limit: exchange.bodyLimit).response }
        if let refusal = bodyBudget.reserve(declared, for: exchange.budgetHolders) { return Self.refusal(refusal).response }
        exchange.reserved = declared
        exchange.body.reserveCapacity(declared)
        return nil
    }

    /// One chunk of the body: kept while it fits the route's limit and the server's budget.
    func receive(_ upload: UnsafePointer<CChar>?, size: Int, into exchange: Exchange) -> MHD_Result {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- exchange.started.uptimeNanoseconds
        if elapsed / 1_000_000_000 > UInt64(max(1, configuration.requestTimeoutSeconds)) {
            log.error("body not complete after \(configuration.requestTimeoutSeconds) s; closing", requestID: exchange.requestID)
            return MHD_Result.NO
        }
        // `size` is at most libmicrohttpd's read buffer, and the connection is cut long before
        // this count could overflow (the discard cap, the route's limit).
        exchange.received += size
        if isTooSlow(received: exchange.received, elapsedNanoseconds: elapsed) {
            log.error("body slower than \(configuration.minimumBodyBytesPerSecond) bytes/s; closing", requestID: exchange.requestID)
            return MHD_Result.NO
        }
        switch exchange.phase {
        case .waiting, .answered:
            return MHD_Result.YES
        case .discarding:
            // libmicrohttpd 0.9.75 cannot queue a response mid-upload, so the rest is dropped
            // unread-into-memory and the refusal goes out when the body ends; a client that keeps
            // streaming far past the limit is disconnected.
            // `size` is at most libmicrohttpd's read buffer, and `discarded` stops growing past the cap.
            exchange.discarded += size
            return exchange.discarded > Self.maximumDiscardedBytes ? MHD_Result.NO : MHD_Result.YES
        case .receiving:
            break
        }
        guard let upload, size <= exchange.bodyLimit - exchange.body.count else {
            // A body without Content-Length (chunked) passed the limit.
            refuseBody(exchange, with: Problem.payloadTooLarge(limit: exchange.bodyLimit).response, discarding: size)
            return MHD_Result.YES
        }
        let needed = exchange.body.count + size - exchange.reserved
        if needed > 0 {
            if let refusal = bodyBudget.reserve(needed, for: exchange.budgetHolders) {
                refuseBody(exchange, with: Self.refusal(refusal).response, discarding: size)
                return MHD_Result.YES
            }
            exchange.reserved += needed
        }
        upload.withMemoryRebound(to: UInt8.self, capacity: size) {
            exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
        }
        return MHD_Result.YES
    }

    /// Whether a body that has brought `received` bytes so far has fallen behind the minimum
    /// rate, which counts from the grace period's end.
    private func isTooSlow(received: Int, elapsedNanoseconds: UInt64) -> Bool {
        let rate = configuration.minimumBodyBytesPerSecond
        guard rate > 0 else { return false }
        let counted = Double(elapsedNanoseconds) / 1e9 - Double(max(0, configuration.bodyRateGraceSeconds))
        return counted > 0 && Double(received) < Double(rate) * counted
    }

    private func refuseBody(_ exchange: Exchange, with refusal: Response, discarding size: Int) {
        exchange.phase = .discarding(answer: refusal)
        exchange.body = []
        exchange.discarded = size
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
    }
}
