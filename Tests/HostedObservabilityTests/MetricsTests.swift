import HostedObservability
import Testing

/// The Prometheus text the metrics registry writes.
@Suite struct MetricsTests {
    @Test func requestsCountersAndCumulativeHistogram() {
        let metrics = Metrics()
        metrics.request(route: "/v1/verifications/{id}", method: "GET", status: 200, seconds: 0.002)
        metrics.request(route: "/v1/verifications/{id}", method: "GET", status: 200, seconds: 0.2)
        metrics.request(route: "/v1/verifications/{id}", method: "GET", status: 404, seconds: 50)
        let text = metrics.render()
        #expect(text.contains("# TYPE hosted_http_requests_total counter\n"))
        #expect(text.contains(#"hosted_http_requests_total{route="/v1/verifications/{id}",method="GET",status="200"} 2"#))
        #expect(text.contains(#"hosted_http_requests_total{route="/v1/verifications/{id}",method="GET",status="404"} 1"#))
        let bucket = #"hosted_http_request_duration_seconds_bucket{route="/v1/verifications/{id}",method="GET","#
        #expect(text.contains(bucket + #"le="0.001"} 0"#))
        #expect(text.contains(bucket + #"le="0.0025"} 1"#))
        #expect(text.contains(bucket + #"le="0.25"} 2"#))
        #expect(text.contains(bucket + #"le="30"} 2"#))   // 50 s is past the last bound…
        #expect(text.contains(bucket + #"le="+Inf"} 3"#)) // …and counted only in +Inf
        #expect(text.contains(#"hosted_http_request_duration_seconds_count{route="/v1/verifications/{id}",method="GET"} 3"#))
    }

    @Test func countersGaugesAndEscapedLabels() {
        let metrics = Metrics()
        metrics.increment("hosted_sms_sends_total", help: "SMS sends.", labels: [("result", "sent")])
        metrics.increment("hosted_sms_sends_total", help: "SMS sends.", labels: [("result", "sent")], by: 2)
        metrics.gauge("hosted_example", help: "An example.") { [([("name", #"a"b\c"#)], 1.5)] }
        let text = metrics.render()
        #expect(text.contains(#"hosted_sms_sends_total{result="sent"} 3"#))
        #expect(text.contains("# TYPE hosted_example gauge\n"))
        #expect(text.contains(#"hosted_example{name="a\"b\\c"} 1.5"#))
        // Every family has its HELP and TYPE once.
        #expect(text.components(separatedBy: "# TYPE hosted_sms_sends_total").count == 2)
    }
}
