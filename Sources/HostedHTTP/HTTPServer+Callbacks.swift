import CMicroHTTPD
import Foundation

// libmicrohttpd's callbacks, and the only file where they cross into Swift: the C entry points at
// the bottom hand their pointers to the methods here, which turn them into Swift values (the
// request line and headers, the connection's record, the exchange kept in the request's slot)
// before anything else runs.
extension HTTPServer {
    /// Starts libmicrohttpd's daemon on `address` with the callbacks below, each handed `context`
    /// (this server, unretained: `shutdown()` stops the daemon before the server goes).
    func start(address: UnsafePointer<sockaddr>, ipv6: Bool, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        hosted_mhd_start(address, ipv6 ? 1 : 0, UInt32(clamping: max(1, configuration.threads)),
                         UInt32(clamping: max(0, configuration.connectionTimeoutSeconds)),
                         UInt32(clamping: max(1, configuration.connectionLimit)),
                         UInt32(clamping: max(0, configuration.connectionsPerAddress)),
                         max(4096, configuration.headerMemoryBytes),
                         accessHandler, context, requestCompleted, context, connectionNotice, context, context)
    }

    /// libmicrohttpd calls this once with the headers, once per body chunk, and once at the end.
    /// Answering on the first call makes it close the connection (no keep-alive), so normal
    /// requests are answered on the last call; the first call answers only what must be refused
    /// before any of the body is read — and then closing the connection is what is wanted.
    fileprivate func handle(connection: OpaquePointer, line: RequestLine,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let stored = slot.pointee else {
            openConnection(connection)?.headArrived()
            let (exchange, violation) = begin(connection: connection, line: line)
            slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            adjustInFlight(1)
            if let refusal = violation.map(Self.malformed) ?? (exchange.invalidQuery ? Self.invalidQuery.response : nil)
                ?? admit(exchange) {
                return answer(connection, exchange, refusal)
            }
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if let ready = takeReadyReply(exchange) {
            exchange.phase = .receiving
            return dispatch(ready, connection, exchange)
        }
        if uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0  // consumed (or discarded)
            return receive(upload, size: size, into: exchange)
        }
        switch exchange.phase {
        case .waiting, .answered:
            return MHD_Result.YES
        case .discarding(let refusal):
            return answer(connection, exchange, refusal)
        case .receiving:
            var request = exchange.request
            request.body = exchange.body
            exchange.body = []
            return dispatch(respond(to: request, exchange: exchange), connection, exchange)
        }
    }

    private func begin(connection: OpaquePointer, line: RequestLine) -> (Exchange, violation: String?) {
        let method = String(cString: line.method), url = String(cString: line.url)
        let version = line.version.map { String(cString: $0) } ?? ""
        let collected = Collected()
        let box = Unmanaged.passUnretained(collected).toOpaque()
        MHD_get_connection_values(connection, MHD_ValueKind.HEADER_KIND, collectHeader, box)
        MHD_get_connection_values(connection, MHD_ValueKind.GET_ARGUMENT_KIND, collectArgument, box)
        // The peer's address, formatted on the stack (the shim NUL-terminates it).
        let peer = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            hosted_mhd_client_address(connection, buffer.baseAddress, socklen_t(buffer.count)) == 0
                ? String(cString: buffer.baseAddress!) : ""
        }
        let request = Request(method: method, path: url, query: collected.query,
                              headers: HTTPHeaders(named: collected.fields), peerAddress: peer)
        let exchange = Exchange(request: request, requestID: requestIDs.next(incoming: request.headers["X-Request-Id"]))
        exchange.invalidQuery = collected.invalidQuery
        return (exchange, RequestFraming.violation(version: version, fields: request.headers.fields,
                                                   hidesBytes: hosted_mhd_headers_hide_bytes(connection) != 0,
                                                   malformedLine: hosted_mhd_request_line_is_malformed(
                                                       connection, line.method, line.url, line.version) != 0))
    }

    fileprivate func complete(connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { openConnection(connection).map(connections.answered) }
        guard let slot, let stored = slot.pointee else { return }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeRetainedValue()
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
        slot.pointee = nil
        adjustInFlight(-1)
    }

    /// The record `connectionOpened` left in the connection's socket context: read back through
    /// libmicrohttpd (a switch and a field), not looked up in a table, since every request asks.
    private func openConnection(_ connection: OpaquePointer) -> OpenConnections.Connection? {
        hosted_mhd_socket_context(connection).map { Unmanaged<OpenConnections.Connection>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate func connectionOpened(_ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        _ = hosted_mhd_client_address_bits(connection, &high, &low)
        let opened = connections.opened(address: .init(high: high, low: low), socket: hosted_mhd_connection_socket(connection))
        context.pointee = Unmanaged.passRetained(opened).toOpaque()
    }

    fileprivate func connectionClosed(context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let stored = context.pointee else { return }
        context.pointee = nil
        connections.closed(Unmanaged<OpenConnections.Connection>.fromOpaque(stored).takeRetainedValue())
    }

    /// The request line as libmicrohttpd parsed it: C strings inside its read buffer, which the
    /// first call checks in place (the shim's `hosted_mhd_request_line_is_malformed`).
    fileprivate struct RequestLine {
        let method: UnsafePointer<CChar>
        let url: UnsafePointer<CChar>
        let version: UnsafePointer<CChar>?
    }

    /// Headers and query arguments gathered by libmicrohttpd's iterator.
    fileprivate final class Collected {
        var fields: [(name: String, value: String)] = []
        var query: [(name: String, value: String)] = []
        /// A query argument did not decode to UTF-8 without NULs.
        var invalidQuery = false

        /// Room for a browser's usual 20 header fields without growing.
        init() { fields.reserveCapacity(24) }
    }
}

// MARK: - C entry points

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, slot in
    guard let cls, let connection, let url, let method, let uploadSize, let slot else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection: connection, line: HTTPServer.RequestLine(method: method, url: url, version: version),
                         upload: upload, uploadSize: uploadSize, slot: slot)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().complete(connection: connection, slot: slot)
}

/// A connection opened or closed: its record goes into (and comes out of) its socket context.
private let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, context, notice in
    guard let cls, let connection, let context else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if notice == .CONNECTION_NOTIFY_STARTED {
        server.connectionOpened(connection, context: context)
    } else {
        server.connectionClosed(context: context)
    }
}

/// libmicrohttpd's own messages (formatted by the shim): a cut connection or a malformed head
/// each write one, so a flood of bad clients would flood the log; `LibraryMessages` lets one
/// line a second through and counts the rest.
@_cdecl("hosted_mhd_log_message")
func libraryMessage(_ cls: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {
    guard let cls, let message else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.libraryMessages.note(String(cString: message), log: server.log)
}

private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    collected.fields.append((name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
    return MHD_Result.YES
}

/// Query arguments arrive still percent-encoded (see the shim); an undecodable one makes the
/// request a 400 (dropping it would silently widen a filter such as `?user_id=%FF`).
private let collectArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    if let name = Request.formDecode(String(cString: key)),
       let decoded = Request.formDecode(value.map { String(cString: $0) } ?? ""),
       !name.utf8.contains(0), !decoded.utf8.contains(0) {
        collected.query.append((name: name, value: decoded))
    } else {
        collected.invalidQuery = true
    }
    return MHD_Result.YES
}
