@testable import HostedHTTP
import Testing

/// Which connection makes room, and when a head is overdue, without a server or sockets.
@Suite struct OpenConnectionsTests {
    static let a = OpenConnections.PeerAddress(high: 0, low: 1)
    static let b = OpenConnections.PeerAddress(high: 0, low: 2)
    static let c = OpenConnections.PeerAddress(high: 0, low: 3)

    @Test func pastTheSoftLimitTheOldestWaitingHeadOfTheBusiestAddressMakesRoom() {
        let table = OpenConnections(headTimeoutSeconds: 10, idleTimeoutSeconds: 15, softLimit: 4, shutDown: { _ in })
        let fromA = (0..<3).map { _ in table.opened(address: Self.a, socket: -1) }
        let fromB = table.opened(address: Self.b, socket: -1)
        fromA[0].headArrived()  // busy with a request: never a candidate
        #expect(!fromA.contains { $0.isCut } && !fromB.isCut)
        let newcomer = table.opened(address: Self.c, socket: -1)
        #expect(fromA[1].isCut)
        #expect(!fromA[0].isCut && !fromA[2].isCut && !fromB.isCut && !newcomer.isCut)
        // The cut one's close, and another, leave room: the next newcomer is within the limit.
        table.closed(fromA[1])
        table.closed(fromA[2])
        let next = table.opened(address: Self.c, socket: -1)
        #expect(![fromA[0], fromB, newcomer, next].contains { $0.isCut })
    }

    @Test func aHeadPastItsDeadlineIsCutAndAnAnsweredConnectionGetsTheIdleTimeoutMore() {
        let table = OpenConnections(headTimeoutSeconds: 10, idleTimeoutSeconds: 15, softLimit: 100, shutDown: { _ in })
        let waiting = table.opened(address: Self.a, socket: -1)
        let reading = table.opened(address: Self.a, socket: -1)
        reading.headArrived()
        let kept = table.opened(address: Self.b, socket: -1)
        kept.headArrived()
        table.answered(kept)
        table.cutOverdue(now: OpenConnections.now + 11_000_000_000)
        #expect(waiting.isCut)
        #expect(!reading.isCut && !kept.isCut)
        table.cutOverdue(now: OpenConnections.now + 26_000_000_000)
        #expect(kept.isCut && !reading.isCut)
    }
}
