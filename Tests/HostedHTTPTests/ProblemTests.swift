import Foundation
import HostedHTTP
import Testing

@Suite struct ProblemTests {
    func object(_ response: Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func rendersRFC9457Members() throws {
        let problem = Problem.invalidRequest("user_id is malformed.",
                                             errors: [.init(field: "user_id", message: "must match [A-Za-z0-9._:@-]", code: "invalid")])
        let response = problem.response
        #expect(response.status == 422)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let body = try object(response)
        #expect(body["type"] as? String == "urn:hosted:problem:invalid_request")
        #expect(body["title"] as? String == "Unprocessable Content")
        #expect(body["status"] as? Int == 422)
        #expect(body["detail"] as? String == "user_id is malformed.")
        #expect(body["code"] as? String == "invalid_request")
        let errors = try #require(body["errors"] as? [[String: String]])
        #expect(errors == [["field": "user_id", "message": "must match [A-Za-z0-9._:@-]", "code": "invalid"]])
    }

    /// A body with 90,000 unknown fields was answered with every one of them (7 MB for a 1 MB
    /// request); the response lists the first hundred and says how many there were.
    @Test func listsAtMostAHundredFieldErrorsAndCountsThemAll() throws {
        let issues = (0..<90_000).map { Problem.FieldIssue(field: "k\($0)", message: "is not a known field", code: "unknown_field") }
        let response = Problem.invalidRequest("The request has invalid fields.", errors: issues).response
        #expect(response.body.count < 10_000)
        let body = try object(response)
        let errors = try #require(body["errors"] as? [[String: String]])
        #expect(errors.count == Problem.maximumListedErrors)
        #expect(errors.first?["field"] == "k0" && errors.last?["field"] == "k99")
        #expect(body["detail"] as? String == "The request has invalid fields. The first 100 of 90000 field errors are listed.")
        let few = Problem.invalidRequest("Bad.", errors: Array(issues.prefix(100))).response
        #expect(try object(few)["detail"] as? String == "Bad.")
    }

    @Test func omitsEmptyErrorsAndCarriesHeaders() throws {
        let response = Problem.methodNotAllowed(allowed: ["GET", "HEAD"]).response
        #expect(try object(response)["errors"] == nil)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func internalErrorSaysNothingSpecific() throws {
        let body = try object(Problem.internalError.response)
        #expect(body["status"] as? Int == 500)
        #expect(body["code"] as? String == "internal_error")
    }
}
