@testable import HostedStorage
import Testing

/// libpq is given the configured URL with GSS encryption off unless the URL names it: the
/// default `prefer` initialises Kerberos on every connect, and a connect under way at exit trips
/// libgssapi_krb5's exit handler (exit 134, seen in CI).
@Suite struct PostgresConnectionTargetTests {
    @Test func gssEncryptionIsOffUnlessTheURLSaysOtherwise() {
        #expect(PostgresConnection.target("postgres://u@127.0.0.1:5432/db") == "postgres://u@127.0.0.1:5432/db?gssencmode=disable")
        #expect(PostgresConnection.target("postgresql://u@h/db?sslmode=require")
            == "postgresql://u@h/db?sslmode=require&gssencmode=disable")
        #expect(PostgresConnection.target("host=127.0.0.1 dbname=db") == "gssencmode=disable host=127.0.0.1 dbname=db")
        #expect(PostgresConnection.target("postgres://u@h/db?gssencmode=require") == "postgres://u@h/db?gssencmode=require")
    }
}
