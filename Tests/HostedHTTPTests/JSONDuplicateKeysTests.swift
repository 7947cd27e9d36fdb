import HostedHTTP
import Testing

@Suite struct JSONDuplicateKeysTests {
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a"),
        (#"{"a":1,"\u0061":2}"#, "a"),
        (#"{"x":{"b":1,"b":[1,2]}}"#, "b"),
        (#"[{"k":"v"},{"k":"v","k":"w"}]"#, "k"),
        (#"{"handoff":"x","handoff":"y"}"#, "handoff"),
    ])
    func findsARepeatedName(_ json: String, _ name: String) {
        #expect(JSONDuplicateKeys.first(in: Array(json.utf8)) == name)
    }

    @Test(arguments: [
        #"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#,
        #"{"a":"a","b":"\"a\",\"a\":"}"#,
        #"{"steps":[{"type":"selfie"},{"type":"profile"}]}"#,
        #"[1,"a","a"]"#,
        #"{}"#,
    ])
    func acceptsUniqueNamesAtEachLevel(_ json: String) {
        #expect(JSONDuplicateKeys.first(in: Array(json.utf8)) == nil)
    }

    @Test func deepNestingCostsNoRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONDuplicateKeys.first(in: Array(deep.utf8)) == nil)
    }
}
