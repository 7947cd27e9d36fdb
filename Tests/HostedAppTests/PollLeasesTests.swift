import Dispatch
import Foundation
@testable import HostedApp
import HostedTestSupport
import Testing

/// The in-process half of poll leases; the shared bucket's half is in CustomerAPITests.
@Suite struct PollLeasesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func sizeIsATenthOfASecondAtMostHalfTheBurst() {
        #expect(PollLeases.size(rate: 1, burst: 10) == 1)       // the default limit: no lease
        #expect(PollLeases.size(rate: 1000, burst: 1_000_000) == 100)
        #expect(PollLeases.size(rate: 1000, burst: 50) == 25)
        #expect(PollLeases.size(rate: 20, burst: 10) == 2)
        #expect(PollLeases.size(rate: 0, burst: 10) == 1)
        #expect(PollLeases.size(rate: .infinity, burst: 10) == 1)
        #expect(PollLeases.size(rate: 1e300, burst: Int.max) == 1_000_000)
    }

    /// 16 threads take from one lease of 99: exactly 99 are answered from it or renew it, one
    /// renewal is asked for at a quarter left, and the lease ends after its second.
    @Test func parallelPollsNeverTakeMoreThanTheLeaseHolds() {
        let leases = PollLeases(size: 100)
        leases.grant("b", count: 99, at: now)
        let takes = Collected<PollLeases.Take>()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<20 { takes.append(leases.take("b", at: now)) }
        }
        let leased = takes.all.filter { $0 == .leased }.count
        let renewals = takes.all.filter { $0 == .renew }.count
        let none = takes.all.filter { $0 == .none }.count
        #expect(renewals == 1)
        #expect(leased == 99)
        #expect(none == 16 * 20 - 100)
        // A renewal adds to what is left; a refused one hands out the leftover one by one.
        let small = PollLeases(size: 10)
        small.grant("c", count: 10, at: now)
        for _ in 0..<8 { #expect(small.take("c", at: now) == .leased) }
        #expect(small.take("c", at: now) == .renew)
        #expect(small.take("c", at: now) == .leased)   // another poll goes on meanwhile
        #expect(small.renewalRefused("c", at: now))
        #expect(small.take("c", at: now) == .none)
        leases.grant("d", count: 5, at: now)
        #expect(leases.take("d", at: now.addingTimeInterval(PollLeases.lifetime)) == .none)
    }
}
