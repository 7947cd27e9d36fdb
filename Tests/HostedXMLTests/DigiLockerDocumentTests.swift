import HostedCore
import HostedXML
import Testing

@Suite struct DigiLockerDocumentTests {
    static let eAadhaar = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Certificate><CertificateData><KycRes ret="Y"><UidData uid="999941057058">
        <Poi name="Asha Verma" dob="15-08-1990" gender="F"/><Poa vtc="Pune" pc="411038"/><Pht>AAAA</Pht>
        </UidData></KycRes></CertificateData></Certificate>
        """

    @Test func eAadhaar_keepsNameDateAndMaskedNumberOnly() throws {
        let document = try #require(DigiLockerDocument.parse(xml: Array(Self.eAadhaar.utf8), as: "aadhaar"))
        #expect(document == DigiLockerDocument(document: "aadhaar", name: "Asha Verma", dateOfBirth: "1990-08-15", gender: "F",
                                               numberMasked: "XXXX XXXX 7058", issuer: "UIDAI"))
    }

    @Test func issuedCertificate_readsPerson() throws {
        let xml = """
            <Certificate type="PANCR" number="ABCPV1234K"><IssuedBy><Organization name="Income Tax Department"/></IssuedBy>
            <IssuedTo><Person name=" Asha Verma " dob="15/08/1990" gender="FEMALE"/></IssuedTo></Certificate>
            """
        let document = try #require(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "pan"))
        #expect(document.name == "Asha Verma")
        #expect(document.dateOfBirth == "1990-08-15")
        #expect(document.gender == "F")
        #expect(document.numberMasked == "XXXXXX234K")
        #expect(document.issuer == "Income Tax Department")
    }

    @Test func masking() {
        #expect(DigiLockerDocument.mask("xxxxxxxx1234", document: "aadhaar") == "XXXX XXXX 1234")
        #expect(DigiLockerDocument.mask("9999 4105 7058", document: "aadhaar") == "XXXX XXXX 7058")
        #expect(DigiLockerDocument.mask("MH02-2019-0012345", document: "driving_license") == "XXXXXXXXXXX2345")
        #expect(DigiLockerDocument.mask("123", document: "pan") == nil)
    }

    @Test func refusesMalformedNamelessAndOversizedXML() {
        #expect(DigiLockerDocument.parse(xml: Array("<Certificate><UidData".utf8), as: "aadhaar") == nil)
        #expect(DigiLockerDocument.parse(xml: Array(#"<Certificate><Poi dob="1990-01-01"/></Certificate>"#.utf8), as: "aadhaar") == nil)
        #expect(DigiLockerDocument.parse(xml: Array("not xml at all".utf8), as: "aadhaar") == nil)
        let padding = String(repeating: " ", count: DigiLockerDocument.maximumBytes)
        #expect(DigiLockerDocument.parse(xml: Array((Self.eAadhaar + padding).utf8), as: "aadhaar") == nil)
    }

    @Test func neverResolvesExternalEntities() {
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE c [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <Certificate><UidData uid="999941057058"><Poi name="&secret;" dob="1990-01-01"/></UidData></Certificate>
            """
        let document = DigiLockerDocument.parse(xml: Array(xxe.utf8), as: "aadhaar")
        // Either refused or parsed without the file's content: never the host's name as a person's.
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "\u{0}"
        #expect(document?.name.contains(hostname) != true)
    }

    @Test func datesInEachFormat() throws {
        for (text, expected) in [("1990-08-15", "1990-08-15"), ("15-08-1990", "1990-08-15"), ("15/08/1990", "1990-08-15"),
                                 ("5-8-1990", "1990-08-05"), ("1990-13-01", nil), ("yesterday", nil)] as [(String, String?)] {
            let xml = #"<Certificate><Person name="A" dob="\#(text)"/></Certificate>"#
            #expect(DigiLockerDocument.parse(xml: Array(xml.utf8), as: "pan")?.dateOfBirth == expected, "\(text)")
        }
    }
}
