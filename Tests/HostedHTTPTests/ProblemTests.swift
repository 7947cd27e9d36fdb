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
