import HostedCore
import HostedHTTP

/// `POST /v1/test_helpers/verifications/{id}/simulate`: test keys only (`TestKeysOnly`, 403
/// `test_mode_only` before the body is read); parses, calls `SimulationService`, answers the
/// verification exactly as `GET /v1/verifications/{id}` does. `complete_steps` answers once its
/// photos are decoded on the decode queue, storing them back on a worker.
struct TestHelperRoutes {
    let service: SimulationService
    let reads: VerificationReadService

    func register(in routes: inout Router.Builder) {
        routes.group(TestKeysOnly()) { routes in
            routes.addDeferrable("POST", "/v1/test_helpers/verifications/{id}/simulate", bodyLimit: 8192) { request, context in
                let id = try context.verificationID()
                var body = try JSONObject(body: request.body)
                let parsed = SimulationService.simulation(in: &body)
                try body.finish()
                guard let simulation = parsed else { throw DomainError.invalidRequest(detail: "The request has invalid fields.") }
                let tenancy = try context.tenancy()
                let actor = try context.apiActor()
                guard simulation.action == .completeSteps else {
                    return .ready(reads.respond(try service.simulate(simulation, tenancy: tenancy, id: id, by: actor)))
                }
                let plan = try service.plan(tenancy: tenancy, id: id)
                let log = context.log
                let reads = self.reads, service = self.service
                return Reply.eventually { settle in
                    service.decode(plan) { decoded in
                        settle(.onWorker {
                            do {
                                return .ready(reads.respond(try service.completeSteps(plan, decoded: try decoded.get(), by: actor)))
                            } catch {
                                return .ready(ErrorBoundary.problem(for: error, log: log).response)
                            }
                        })
                    }
                }
            }
        }
    }
}
