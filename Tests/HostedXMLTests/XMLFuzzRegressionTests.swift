import Foundation
import HostedCore
import HostedTestSupport
import HostedXML
import Testing

/// What fuzz-xml found (Sources/Fuzz/fuzz-xml, docs/fuzzing.md), fed to the reader directly so an
/// ordinary `swift test` keeps it fixed; and every seed of its corpus replayed.
@Suite struct XMLFuzzRegressionTests {
    /// Invalid UTF-8 in an element, attribute, comment or processing-instruction name trapped the
    /// process inside FoundationXML, which read these documents before libxml2 was called
    /// directly. Such documents are refused before libxml2 sees them.
    @Test(arguments: [
        // As the fuzzer found it (254 bytes).
        "PENlcnRpZmljYXRlIG51bWJlcj0i2aHZotmj2aTZpSIgPjxQb2nd3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3dIG5hbWU9ItgjMP//OyYjeDFGNjAwOyZhbXA7Jmx0OwEAAAAAAAAFodlnZW5kZXI9Ii0xNSIgZ2VuZGVyPSJ0Ii8+PFBlcnNvbiBuYW1lPSJ4IiBkb2I9IjMxLzAyLzE5OTAiLz48VWlkRGF0YSB1aWQ9IjEyIi8+PC9DZXJ0aWZpY2F0ZT4=",
        "PP8BAD4=",  // <FF 01 00>: minimised by libFuzzer
        "PMMoLz4=",  // <C3 28/>
        "PGEgYv89IjEiLz4=",  // <a b FF="1"/>
        "PGE+PCEtLf8tLT48L2E+",  // <a><!--FF--></a>
        "PGE+PD//IHg/PjwvYT4=",  // <a><?FF x?></a>
    ])
    func xmlWithInvalidUTF8NamesIsRefused(_ base64: String) throws {
        let bytes = try #require(Data(base64Encoded: base64).map { [UInt8]($0) })
        for kind in ["aadhaar", "pan", "driving_license"] {
            #expect(DigiLockerDocument.parse(xml: bytes, as: kind) == nil)
        }
    }

    /// Valid UTF-8 documents still parse (the guard above refuses only invalid bytes).
    @Test func utf8DocumentsWithNonASCIINamesStillParse() throws {
        let xml = #"<Certificate><UidData uid="999941057058"><Poi name="आशा वर्मा" dob="15-08-1990" gender="F"/></UidData></Certificate>"#
        let document = try #require(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "aadhaar"))
        #expect(document.name == "आशा वर्मा")
        #expect(document.numberMasked == "XXXX XXXX 7058")
    }

    /// A property, not a crash: a DigiLocker date of birth is meant to come out as `YYYY-MM-DD`,
    /// but any four Unicode "number" characters passed as the year (`١٩٩٠`, `½½½½`).
    @Test(arguments: ["١٩٩٠-08-15", "15-08-١٩٩٠", "½½½½-08-15"])
    func dateOfBirthYearIsASCIIDigits(_ dob: String) throws {
        let xml = "<Certificate><Poi name=\"Asha\" dob=\"\(dob)\"/></Certificate>"
        let document = try #require(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "aadhaar"))
        #expect(document.dateOfBirth == nil, "date of birth \(document.dateOfBirth ?? "nil")")
    }

    /// fuzz-xml ran out of memory after four minutes: FoundationXML kept about 750 bytes of every
    /// malformed document (the errors it made of libxml2's). In a child process, so no other
    /// test's allocations count: 20,000 malformed documents may add at most 1 MB to what is resident
    /// (the old reader added 15 MB).
    @Test func malformedDocumentsLeaveNothingBehind() async {
        await #expect(processExitsWith: .success) {
            let malformed = Array(#"<Cer><Poi dob="15-08-1990" gender="FOrname="A<Certifi" name=" Asha"></Cer]]>tificate>"#.utf8)
            func parse(_ count: Int) {
                for _ in 0..<count { precondition(DigiLockerDocument.parse(xml: malformed, as: "aadhaar") == nil) }
            }
            // Resident bytes, from /proc/self/statm (its second field, in pages).
            func resident() -> Int {
                let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
                return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
            }
            parse(2_000)
            let before = resident()
            parse(20_000)
            exit(before > 0 && resident() - before < 1_000_000 ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    /// libxml2's errors are the reader's answer and nothing more: a malformed document's text is
    /// never printed (the default handler writes it to stderr, i.e. to the server's log).
    @Test func malformedDocumentsAreNeverPrinted() async throws {
        let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let malformed = Array(#"<Certificate><Person name="Asha Verma 999941057058"></Certificate>"#.utf8)
            precondition(DigiLockerDocument.parse(xml: malformed, as: "pan") == nil)
            precondition(XMLAttributeReader.firstAttributes(Array("<a>&undefined;</a>".utf8)) == nil)
        }
        #expect(result.standardErrorContent.isEmpty, "\(String(decoding: result.standardErrorContent, as: UTF8.self))")
    }

    @Test(arguments: FuzzCorpus.seeds("fuzz-xml"))
    func xmlSeed(_ name: String) throws {
        let bytes = try FuzzCorpus.seed("fuzz-xml", name)
        for kind in ["aadhaar", "pan", "driving_license"] {
            if let document = DigiLockerDocument.parse(xml: bytes, as: kind) { #expect(!document.name.isEmpty) }
        }
    }

    @Test func corpusIsPresent() {
        #expect(!FuzzCorpus.seeds("fuzz-xml").isEmpty, "no seeds in fuzz/corpus/fuzz-xml")
    }
}
