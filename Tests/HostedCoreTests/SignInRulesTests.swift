import Foundation
import HostedCore
import Testing

/// Random bytes from a script, to drive rejection sampling.
final class ScriptedRandom: RandomSource, @unchecked Sendable {  // `chunks` only under `lock`
    private let lock = NSLock()
    private var chunks: [[UInt8]]

    init(_ chunks: [[UInt8]]) { self.chunks = chunks }

    func bytes(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return chunks.isEmpty ? [UInt8](repeating: 0, count: count) : chunks.removeFirst()
    }
}

@Suite struct SignInRulesTests {
    @Test func handoffLifetimeDefaultsTo300AndAccepts30Through900() throws {
        #expect(try Handoff.lifetime(nil) == 300)
        #expect(try Handoff.lifetime(30) == 30)
        #expect(try Handoff.lifetime(900) == 900)
        for bad in [-1, 0, 29, 901, Int.max] {
            #expect(throws: DomainError.self) { try Handoff.lifetime(bad) }
        }
    }

    @Test func bearerSecretsCarry256BitsAndRejectOtherShapes() {
        let secret = BearerSecret(using: FixedRandom(byte: 0xFF))
        #expect(secret.value.count == 43)
        #expect(Base64URL.decode(secret.value) == [UInt8](repeating: 0xFF, count: 32))
        #expect(BearerSecret(presented: secret.value) == secret)
        for bad in ["", "short", secret.value + "A", String(secret.value.dropLast()) + "=", String(repeating: "+", count: 43)] {
            #expect(BearerSecret(presented: bad) == nil)
        }
    }

    @Test func oneTimeCodesAreSixDigitsWithoutModuloBias() {
        // 0xFFFFFFFF is past the largest multiple of a million below 2^32: it must be redrawn.
        let code = OneTimeCode(using: ScriptedRandom([[0xFF, 0xFF, 0xFF, 0xFF], [0x00, 0x00, 0x00, 0x2A]]))
        #expect(code.digits == "000042")
        let random = ScriptedRandom([[0x00, 0x0F, 0x42, 0x3F]])  // 999_999
        #expect(OneTimeCode(using: random).digits == "999999")
        #expect(OneTimeCode(presented: "012345")?.digits == "012345")
        for bad in ["12345", "1234567", "12345a", " 12345", "１２３４５６"] {
            #expect(OneTimeCode(presented: bad) == nil)
        }
    }

    /// Issue 37 (4): what a request spends depends on the number asked for and the client, so a
    /// stranger (another address, a wrong number — or even the right one) never spends the
    /// user's buckets; one client's requests share only its address bucket.
    @Test func codeRequestsOfAStrangerSpendNoneOfTheUsersBuckets() {
        func keys(_ number: String, _ address: String) -> Set<String> {
            Set([SignInLimits.addressBucket(clientAddress: address).key]
                + SignInLimits.verificationBuckets(verificationID: "ver_1", numberKey: number, clientAddress: address).map(\.key))
        }
        let user = keys("right", "192.0.2.10")
        #expect(user == ["otp-ip:192.0.2.10", "otp-cooldown:ver_1:right:192.0.2.10", "otp-verification:ver_1:right:192.0.2.10"])
        #expect(keys("wrong", "198.51.100.7").isDisjoint(with: user))
        #expect(keys("right", "198.51.100.7").isDisjoint(with: user))
        #expect(keys("wrong", "192.0.2.10").intersection(user) == ["otp-ip:192.0.2.10"])
        #expect(SignInLimits.verificationBuckets(verificationID: "ver_1", numberKey: "right", clientAddress: "a").map(\.limit)
                == [SignInLimits.cooldown, SignInLimits.verification])
        let send = SignInLimits.sendBucket(numberKey: "right")
        #expect(send.key == "otp-number:right" && send.limit == SignInLimits.number)
        #expect((SignInLimits.address.burst, SignInLimits.address.interval) == (20, 180))
        #expect((SignInLimits.verification.burst, SignInLimits.verification.interval) == (5, 720))
        #expect((SignInLimits.cooldown.burst, SignInLimits.cooldown.interval) == (1, 30))
    }

    @Test(arguments: [
        ("+919876543210", "+919876543210"), ("+91 98765 43210", "+919876543210"), ("+91-98765-43210", "+919876543210"),
        ("+1 (415) 555-0123", "+14155550123"), ("+44 20 7946 0958", "+442079460958"),
    ])
    func mobileNumbersNormaliseToE164(_ input: String, _ expected: String) {
        #expect(MobileNumber.normalized(input) == expected)
    }

    @Test(arguments: ["919876543210", "09876543210", "+0919876543210", "++919876543210", "+91 98765 4321x", "+91", "", "+9198765432101234"])
    func mobileNumbersWithoutCountryCodeOrJunkAreRefused(_ input: String) {
        #expect(MobileNumber.normalized(input) == nil)
    }
}
