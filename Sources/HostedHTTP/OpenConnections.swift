import Dispatch
import Foundation
import Synchronization

/// The server's open connections as slow clients are concerned: each one's peer address, its
/// socket, and by when the request head it owes must be in. libmicrohttpd's connection timeout
/// is reset by every byte, so a client sending one header line every few seconds would hold its
/// connection forever; these deadlines are absolute. And when nearly every connection is taken,
/// a new one closes one still waiting for its head, from the address that holds the most such.
///
/// `@unchecked Sendable`: `open`, `cutCount` and each connection's `isCut` are only touched while
/// holding `lock`. A socket is shut down only under `lock` and only while its connection is in
/// `open`, which the close notification leaves (under `lock`) before libmicrohttpd closes the
/// socket: a socket number is never touched after it was closed, and perhaps reused.
final class OpenConnections: @unchecked Sendable {
    /// One open connection.
    ///
    /// `@unchecked Sendable`: `headDeadline` is atomic; `isCut` is guarded by the table's lock.
    final class Connection: @unchecked Sendable {
        let address: PeerAddress
        let socket: Int32
        /// Uptime in nanoseconds by which the request head this connection owes must be in;
        /// 0 while it owes none (a request is being read, handled or answered). Written by the
        /// connection's worker, read by the reaper: a head that arrives just as its deadline
        /// passes may be cut, which is what the deadline says.
        let headDeadline: Atomic<UInt64>
        /// Shut down (by the deadline or to make room); its close is under way.
        var isCut = false

        init(address: PeerAddress, socket: Int32, headDeadline: UInt64) {
            self.address = address
            self.socket = socket
            self.headDeadline = Atomic(headDeadline)
        }

        /// The access handler has the request's headers: nothing more is owed until it is answered.
        func headArrived() {
            headDeadline.store(0, ordering: .relaxed)
        }
    }

    /// A peer's address as 128 bits (IPv4 mapped into IPv6): hashed without formatting it.
    struct PeerAddress: Hashable {
        let high: UInt64
        let low: UInt64
    }

    /// Nanoseconds a new connection has to send its first request head.
    let firstHeadAllowance: UInt64
    /// Nanoseconds a kept-alive connection has, after an answer, to send the next head: the idle
    /// timeout (an idle connection is libmicrohttpd's to close) plus the head's own allowance.
    let nextHeadAllowance: UInt64
    /// Open connections (not counting those cut) past which a new one makes room.
    let softLimit: Int

    /// Shuts a socket down (both ways): its worker then reads the end of the stream and closes it.
    private let shutDown: @Sendable (Int32) -> Void
    private let lock = NSLock()
    private var open: [ObjectIdentifier: Connection] = [:]
    private var cutCount = 0

    /// `headTimeoutSeconds` 0: no deadline (and no eviction by age, only to make room).
    init(headTimeoutSeconds: Int, idleTimeoutSeconds: Int, softLimit: Int, shutDown: @escaping @Sendable (Int32) -> Void) {
        self.shutDown = shutDown
        let head = UInt64(clamping: max(0, headTimeoutSeconds)) * 1_000_000_000
        firstHeadAllowance = head
        nextHeadAllowance = head == 0 ? 0 : head + UInt64(clamping: max(0, idleTimeoutSeconds)) * 1_000_000_000
        self.softLimit = max(1, softLimit)
    }

    /// The soft limit for a hard limit of `connectionLimit`: a tenth of it is kept free, so a
    /// connection that arrives while the slow ones are being closed is still accepted.
    static func softLimit(below connectionLimit: Int) -> Int {
        max(1, connectionLimit - max(1, connectionLimit / 10))
    }

    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// A connection was accepted; if that passes the soft limit, one still waiting for its head
    /// is shut down to make room (never the new one).
    func opened(address: PeerAddress, socket: Int32) -> Connection {
        let connection = Connection(address: address, socket: socket,
                                    headDeadline: firstHeadAllowance == 0 ? UInt64.max : Self.now &+ firstHeadAllowance)
        lock.lock()
        defer { lock.unlock() }
        open[ObjectIdentifier(connection)] = connection
        if open.count - cutCount > softLimit, let victim = victim(sparing: connection) { cut(victim) }
        return connection
    }

    /// libmicrohttpd is about to close the connection's socket.
    func closed(_ connection: Connection) {
        lock.lock()
        defer { lock.unlock() }
        guard open.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        if connection.isCut { cutCount -= 1 }
    }

    /// A request on the connection was answered (or abandoned): the next head is owed.
    func answered(_ connection: Connection) {
        connection.headDeadline.store(nextHeadAllowance == 0 ? UInt64.max : Self.now &+ nextHeadAllowance, ordering: .relaxed)
    }

    /// Shuts down every connection whose head is overdue.
    func cutOverdue(now: UInt64 = OpenConnections.now) {
        lock.lock()
        defer { lock.unlock() }
        for connection in open.values where !connection.isCut {
            let deadline = connection.headDeadline.load(ordering: .relaxed)
            if deadline != 0 && deadline < now { cut(connection) }
        }
    }

    /// Of the connections waiting for a head, the one nearest its deadline (the oldest of its
    /// kind) from the address with the most of them. Under `lock`.
    private func victim(sparing spared: Connection) -> Connection? {
        var waiting: [PeerAddress: (count: Int, first: Connection)] = [:]
        for connection in open.values where !connection.isCut && connection !== spared {
            let deadline = connection.headDeadline.load(ordering: .relaxed)
            guard deadline != 0 else { continue }
            if let found = waiting[connection.address] {
                let earlier = deadline < found.first.headDeadline.load(ordering: .relaxed)
                waiting[connection.address] = (found.count + 1, earlier ? connection : found.first)
            } else {
                waiting[connection.address] = (1, connection)
            }
        }
        return waiting.values.max { a, b in
            a.count != b.count ? a.count < b.count
                : a.first.headDeadline.load(ordering: .relaxed) > b.first.headDeadline.load(ordering: .relaxed)
        }?.first
    }

    /// Under `lock`: the connection is still open (its socket too), so shutting it down is safe.
    private func cut(_ connection: Connection) {
        connection.isCut = true
        cutCount += 1
        shutDown(connection.socket)
    }
}
