import Foundation

/// The simulator's fixed test person and her documents, shaped like DigiLocker's: the e-Aadhaar
/// XML carries the full 12-digit number (a UIDAI test number) so the masking is exercised.
enum DigiLockerSample {
    static let name = "Asha Verma"
    static let uid = "999941057058"
    static let digilockerID = "5c1e9f7a-3b2d-4e8f-9a6c-0d1b2c3e4f50"
    static let panNumber = "ABCPV1234K"
    static let drivingLicenceNumber = "MH0220190012345"

    static let eAadhaar = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <Certificate language="99" name="Aadhaar Card" type="ADHAR" number="" issueDate="29112026" status="A">
          <IssuedBy><Organization name="UIDAI" code="UIDAI" tin="" uid="" type="CG"/></IssuedBy>
          <IssuedTo><Person uid="\(uid)" title="" name="\(name)" dob="15-08-1990" swd="" swdIndicator="" gender="F" maritalStatus="" relationWithHof="" religion="" phone="" email=""/></IssuedTo>
          <CertificateData>
            <KycRes code="7d2c4f1a0b9e4c3d8f6a5b4c3d2e1f0a" ret="Y" ts="2026-11-29T10:00:00.000+05:30" ttl="2027-11-29T10:00:00" txn="UKC:sim-0001">
              <UidData tkn="" uid="\(uid)">
                <Poi dob="15-08-1990" gender="F" name="\(name)"/>
                <Poa co="D/O Rakesh Verma" country="India" dist="Pune" house="Flat 12, Shanti Apartments" lm="Near City Library" loc="Kothrud" pc="411038" po="Kothrud" state="Maharashtra" street="Paud Road" subdist="Haveli" vtc="Pune"/>
                <LData/>
                <Pht>/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==</Pht>
              </UidData>
              <Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/><SignatureValue>c2ltdWxhdG9yLW5vdC1zaWduZWQ=</SignatureValue></Signature>
            </KycRes>
          </CertificateData>
        </Certificate>
        """

    /// `GET /2/files/issued`: the documents issuers have pushed to the locker.
    static let issuedFiles = IssuedFiles(items: [
        .init(name: "PAN Verification Record", uri: "in.gov.pan-PANCR-\(panNumber)", doctype: "PANCR",
              issuer: "Income Tax Department", issuerid: "in.gov.pan"),
        .init(name: "Driving License", uri: "in.gov.transport-DRVLC-\(drivingLicenceNumber)", doctype: "DRVLC",
              issuer: "Ministry of Road Transport and Highways", issuerid: "in.gov.transport"),
    ])

    struct IssuedFiles: Encodable {
        let items: [Item]
        struct Item: Encodable {
            let name: String
            let type = "file"
            let size = ""
            let date = "29-11-2026"
            let parent = ""
            let mime = ["application/pdf", "application/xml"]
            let uri: String
            let doctype: String
            let description = ""
            let issuer: String
            let issuerid: String
        }
    }

    /// `GET /1/xml/{uri}`: each issued document's certificate XML.
    static let certificates = [
        "in.gov.pan-PANCR-\(panNumber)": """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <Certificate language="99" name="PAN Verification Record" type="PANCR" number="\(panNumber)" issueDate="01042012" status="A">
              <IssuedBy><Organization name="Income Tax Department" code="ITD" tin="" uid="" type="CG"/></IssuedBy>
              <IssuedTo><Person uid="" title="" name="\(name)" dob="15/08/1990" gender="F" phone="" email=""/></IssuedTo>
              <CertificateData><PAN verifiedOn="29-11-2026" status="Active"/></CertificateData>
            </Certificate>
            """,
        "in.gov.transport-DRVLC-\(drivingLicenceNumber)": """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <Certificate language="99" name="Driving License" type="DRVLC" number="\(drivingLicenceNumber)" issueDate="10062019" expiryDate="14082030" status="A">
              <IssuedBy><Organization name="Transport Department, Maharashtra" code="MH" tin="" uid="" type="SG"/></IssuedBy>
              <IssuedTo><Person uid="" title="" name="\(name)" dob="1990-08-15" gender="F" phone="" email=""/></IssuedTo>
              <CertificateData><DrivingLicense><Categories><Category abbreviation="LMV" description="Light Motor Vehicle"/></Categories></DrivingLicense></CertificateData>
            </Certificate>
            """,
    ]
}
