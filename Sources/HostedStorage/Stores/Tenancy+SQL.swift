import HostedCore

extension Tenancy {
    /// The `livemode` column's value for this mode: 1 live, 0 test.
    var mode: Int64 { livemode ? 1 : 0 }
}
