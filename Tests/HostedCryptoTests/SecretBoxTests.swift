import HostedCrypto
import HostedTestSupport
import Testing

@Suite struct SecretBoxTests {
    let box = SecretBox.derive(from: Array("the service's secret key, 32+ chars".utf8), label: "test/v1")
    let nonce = [UInt8](repeating: 7, count: 12)

    @Test func sealsAndOpens() throws {
        let sealed = try box.seal(Array("123456 is your code".utf8), context: "row-1", random: nonce)
        #expect(sealed.count == 12 + 19 + 16)
        #expect(!sealed.contains(text: "123456"))
        #expect(box.open(sealed, context: "row-1") == Array("123456 is your code".utf8))
        #expect(box.open(try box.seal([], context: "", random: nonce), context: "") == [])
    }

    @Test func refusesAnythingAltered() throws {
        let sealed = try box.seal(Array("123456".utf8), context: "row-1", random: nonce)
        for index in sealed.indices {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(box.open(flipped, context: "row-1") == nil, "byte \(index)")
        }
        #expect(box.open(sealed, context: "row-2") == nil)
        #expect(box.open(Array(sealed.dropLast()), context: "row-1") == nil)
        #expect(box.open([], context: "row-1") == nil)
        #expect(SecretBox.derive(from: Array("another key entirely, 32 chars...".utf8), label: "test/v1").open(sealed, context: "row-1") == nil)
        #expect(SecretBox.derive(from: Array("the service's secret key, 32+ chars".utf8), label: "other/v1").open(sealed, context: "row-1") == nil)
    }
}
