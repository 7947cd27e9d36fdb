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

    /// Documents built at random from a grammar, with the first repeated name known by
    /// construction: objects draw their names from a small alphabet (so repeats are common),
    /// nest objects and arrays, and sometimes write a name escaped (`\u0061` for `a`).
    @Test func agreesWithDocumentsWhoseFirstRepeatIsKnown() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var text = ""
            var firstRepeat: String?
            func value(_ depth: Int) {
                switch Int.random(in: 0..<(depth > 3 ? 2 : 4), using: &generator) {
                case 0: text += "1"
                case 1: text += #""a\"b""#
                case 2:
                    text += "["
                    for index in 0..<Int.random(in: 0..<4, using: &generator) {
                        if index > 0 { text += "," }
                        value(depth + 1)
                    }
                    text += "]"
                default:
                    text += "{"
                    var seen: Set<String> = []
                    for index in 0..<Int.random(in: 0..<5, using: &generator) {
                        if index > 0 { text += "," }
                        let name = ["a", "b", "c", "d", "e", "f"].randomElement(using: &generator)!
                        text += name == "a" && Bool.random(using: &generator) ? #""\u0061""# : "\"\(name)\""
                        if !seen.insert(name).inserted, firstRepeat == nil { firstRepeat = name }
                        text += ":"
                        value(depth + 1)
                    }
                    text += "}"
                }
            }
            value(0)
            #expect(JSONDuplicateKeys.first(in: Array(text.utf8)) == firstRepeat, "\(text)")
        }
    }

    /// One object with 100,000 distinct names (a 1 MB body, the API's limit) is checked in
    /// linear time. When each name copied the set of the ones before, this took 51 s through
    /// `POST /v1/verifications` on a release build, holding a worker the whole time; the bound
    /// here is more than ten times what the linear check takes in a debug build.
    @Test func oneObjectWithAHundredThousandNamesIsCheckedInLinearTime() {
        var text = "{"
        for index in 0..<100_000 { text += index == 0 ? #""k0":0"# : #","k\#(index)":0"# }
        text += "}"
        let bytes = Array(text.utf8)
        #expect(bytes.count > 1_000_000)
        let started = ContinuousClock.now
        #expect(JSONDuplicateKeys.first(in: bytes) == nil)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(JSONDuplicateKeys.first(in: Array((text.dropLast() + #","k99999":1}"#).utf8)) == "k99999")
    }

    @Test func deepNestingCostsNoRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONDuplicateKeys.first(in: Array(deep.utf8)) == nil)
    }
}
