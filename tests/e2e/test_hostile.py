"""A hostile client against a live `hosted serve --dev`, once on SQLite and once on PostgreSQL.

What is attacked, and why:

* **Request framing** (raw sockets): `Content-Length` with `Transfer-Encoding`, two different
  `Content-Length`s, a space before the colon, HTTP/1.1 without `Host`, a NUL byte inside a
  header value. A proxy in front may read such a request differently from us, which lets a
  second request be smuggled past it; each must be refused with 400 problem+json and the
  connection closed, so the request pipelined behind it is never answered. A NUL byte cut off
  by a C string must never turn `Bearer <key>\\0junk` into a valid key.
* **Oversized headers**: a 64 KB header line, 500 headers — refused with a 4xx, no hang.
* **Hostile JSON** (invalid UTF-8, NUL, lone surrogates, 10,000-deep nesting, 1e999999 and
  other unrepresentable numbers, long strings, wrong types, duplicate keys) to the API's
  write routes: refused with 400/422 problem+json, and nothing is created or changed.
* **Garbage in paths and query strings** (`%00`, `%FF%FE`, stray `%`, raw non-UTF-8 bytes).
* **Refusal before the body**: an unauthenticated client announcing a large body is answered
  (401/404) before it sends any of it, and the connection is closed — the server never reads
  or buffers what it is going to refuse.
* **Memory**: 30 unauthenticated 8 MB uploads at once must not grow the server's RSS by more
  than 50 MB.
* **Long-polls** abandoned by their clients must not keep the server from answering others.
* **A slow client** stalling mid request line is disconnected.

Afterwards the process must still run, `GET /healthz` answer 200, no response of the whole
module be a 5xx (a test may explicitly allow 503 for a full buffer), and the server's log
(its stderr) contain no API key, handoff secret, journey session token or OTP code — the tests
mint each of them and send them in malformed requests too, where an error path might log them.

The server is started here (`hostile_server`, module scope, parametrized over the store) with
conftest.py's helpers; for PostgreSQL it gets a fresh database of its own on the server named
by `HOSTED_TEST_POSTGRES_URL` (scripts/with-postgres.sh), dropped at the end.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import struct
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from conftest import (
    _binary,
    _create_account,
    _environment,
    _seed,
    start_on_a_free_port,
    _tail,
    stop_server,
    WORKFLOW,
)
from hostile_support import (
    RawConnection,
    RawResponse,
    create_database,
    drop_database,
    exchange,
    request_bytes,
    rss_mib,
)

STORES = ["sqlite", "postgres"]
MOBILE = "+919876543210"
CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")

# A stalled client must be disconnected within this many seconds of connecting. Its connection
# is opened when the server starts, so the wait overlaps the other tests.
SLOW_CLIENT_BOUND_SECONDS = 60.0
# How long a refusal may take to arrive when the client sends headers only.
REFUSAL_TIMEOUT = 3.0
# How long the server may keep a connection open after a response that must close it.
CLOSE_TIMEOUT = 2.0
# "Promptly": a normal request answered within this many seconds.
PROMPT_SECONDS = 2.0
# The memory test.
UPLOADS = 30
UPLOAD_BYTES = 8_000_000
RSS_GROWTH_LIMIT_MIB = 50.0
# The long-poll test: LONG_POLLS spread over LONG_POLL_VERIFICATIONS verifications (the
# per-verification poll budget is a burst of 10).
LONG_POLLS = 100
LONG_POLL_VERIFICATIONS = 10


# --- the status ledger ---------------------------------------------------------------------

@dataclass(frozen=True)
class Seen:
    store: str
    test: str
    what: str
    status: int
    # A 503 the test allowed (e.g. an upload buffer full); every other 5xx fails the module.
    allowed: bool


# Every status code any test of this module received, on either store.
SEEN: list[Seen] = []
_SEEN_LOCK = threading.Lock()


def _current_test() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].rsplit("::", 1)[-1]


# --- the server under attack ---------------------------------------------------------------

@dataclass
class HostileServer:
    store: str
    base_url: str
    port: int
    api_key: str = field(repr=False)
    process: subprocess.Popen = field(repr=False)
    stderr_path: Path = field(repr=False)
    # What must never reach the log: the API key, handoff secrets, session tokens, the secret key.
    secrets: list[str] = field(default_factory=list, repr=False)
    # OTP codes (six digits: matched as whole numbers, not substrings of longer ones).
    codes: list[str] = field(default_factory=list, repr=False)
    # A verification with a mobile number, for the journey routes.
    verification: dict = field(default_factory=dict, repr=False)
    # The stalled client (see test_a_client_that_stalls_mid_request_line_is_disconnected).
    slow_client: RawConnection | None = field(default=None, repr=False)
    slow_client_opened_at: float = 0.0
    # Set by the module's last test; otherwise (e.g. under -k) the fixture checks the ledger.
    ledger_checked: bool = False

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    def log_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def record(self, what: str, status: int, allow_503: bool = False) -> None:
        with _SEEN_LOCK:
            SEEN.append(Seen(self.store, _current_test(), what, status, allow_503 and status == 503))

    def call(self, method: str, path: str, *, auth: bool = True, session: requests.Session | None = None,
             timeout: float = 10, **kwargs) -> requests.Response:
        """An ordinary HTTP request through `requests`, recorded in the ledger."""
        headers = {**(self.auth_headers if auth else {}), **kwargs.pop("headers", {})}
        response = (session or requests).request(method, self.base_url + path, headers=headers,
                                                 timeout=timeout, **kwargs)
        self.record(f"{method} {path[:80]}", response.status_code)
        return response

    def observer(self, what: str, allow_503: bool = False):
        return lambda response: self.record(what, response.status, allow_503)

    def connect(self, what: str, allow_503: bool = False) -> RawConnection:
        return RawConnection(self.port, observer=self.observer(what, allow_503))

    def raw(self, what: str, data: bytes, timeout: float = CLOSE_TIMEOUT):
        return exchange(self.port, data, timeout=timeout, observer=self.observer(what))

    def request(self, method: str, target: str, headers: list[tuple[str, str]] | None = None,
                body: bytes = b"", **options) -> bytes:
        return request_bytes(method, target, self.host, headers, body, **options)


def _postgres_database(env: dict[str, str]) -> tuple[str, str]:
    """Points `env` at a new database on the test PostgreSQL; (admin URL, name), or skips."""
    admin_url = os.environ.get("HOSTED_TEST_POSTGRES_URL")
    if not admin_url:
        if os.environ.get("HOSTED_REQUIRE_POSTGRES") == "1":
            pytest.fail("HOSTED_REQUIRE_POSTGRES=1 but HOSTED_TEST_POSTGRES_URL is not set "
                        "(run under scripts/with-postgres.sh)", pytrace=False)
        pytest.skip("HOSTED_TEST_POSTGRES_URL is not set (run under scripts/with-postgres.sh)")
    name = f"hostile_{uuid.uuid4().hex[:12]}"
    env["HOSTED_DATABASE_URL"] = create_database(admin_url, name)
    env["HOSTED_SECRET_KEY"] = secrets.token_hex(32)
    return admin_url, name


@pytest.fixture(scope="module", params=STORES)
def hostile_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileServer]:
    """A `hosted serve --dev` on a free loopback port (its public URL), with one account, the
    `kyc_basic` workflow, a verification with a mobile number, and a stalled client."""
    store = request.param
    binary = _binary()
    workdir = tmp_path_factory.mktemp(f"hostile-{store}")
    env = _environment(workdir)
    database = _postgres_database(env) if store == "postgres" else None
    process = None
    server = None
    stderr_path = workdir / "journey-serve-0.stderr.log"
    try:
        process, public_url, stderr_path = start_on_a_free_port(binary, env, workdir)
        cli_env = {**env, "HOSTED_PUBLIC_URL": public_url}
        created = _create_account(binary, cli_env, workdir)
        _seed(public_url, created["api_key"])
        server = HostileServer(store=store, base_url=public_url, port=int(public_url.rsplit(":", 1)[1]),
                               api_key=created["api_key"], process=process, stderr_path=stderr_path)
        server.secrets.append(created["api_key"])
        if "HOSTED_SECRET_KEY" in env:
            server.secrets.append(env["HOSTED_SECRET_KEY"])
        server.verification = create_verification(server, "hostile-journey", mobile=MOBILE)
        server.slow_client = server.connect("stalled request line")
        server.slow_client.send(b"GET /healthz HT")
        server.slow_client_opened_at = time.monotonic()
        yield server
    finally:
        if server is not None and server.slow_client is not None:
            server.slow_client.close()
        if process is not None:
            stop_server(process, stderr_path)
        if database is not None:
            drop_database(*database)
    assert process.returncode == 0, f"hosted serve exited {process.returncode} after SIGTERM; stderr:\n" + _tail(stderr_path)
    # Again after exit, when every buffered log line has been written.
    assert_no_secret_in_log(server)
    if not server.ledger_checked:
        assert_no_5xx(server)


# --- small helpers -------------------------------------------------------------------------

def create_verification(server: HostileServer, user_id: str, mobile: str = MOBILE) -> dict:
    response = server.call("POST", "/v1/verifications",
                           json={"user_id": user_id, "workflow": WORKFLOW["key"], "mobile": mobile})
    assert response.status_code in (200, 201), f"creating a verification answered {response.status_code}: {response.text[:300]}"
    verification = response.json()
    verification["_etag"] = response.headers.get("ETag")
    return verification


def list_verifications(server: HostileServer) -> list[dict]:
    response = server.call("GET", "/v1/verifications", params={"limit": 100})
    assert response.status_code == 200, response.text[:300]
    page = response.json()
    assert page["has_more"] is False, "more than 100 verifications: the test cannot count them"
    return page["data"]


def list_workflows(server: HostileServer) -> list[dict]:
    response = server.call("GET", "/v1/workflows")
    assert response.status_code == 200, response.text[:300]
    return response.json()["data"]


def assert_problem(response: RawResponse | requests.Response, statuses: tuple[int, ...], what: str) -> None:
    if isinstance(response, requests.Response):
        status, content_type, text = response.status_code, response.headers.get("Content-Type", ""), response.text[:300]
    else:
        status, content_type, text = response.status, response.content_type, response.body[:300].decode("utf-8", "replace")
    assert status in statuses, f"{what}: answered {status}, expected {statuses}: {text}"
    assert content_type.split(";")[0].strip() == "application/problem+json", (
        f"{what}: answered {status} with Content-Type {content_type!r}, not application/problem+json: {text}"
    )


def assert_still_serving(server: HostileServer, after: str) -> None:
    started = time.monotonic()
    try:
        response = server.call("GET", "/healthz", auth=False, timeout=PROMPT_SECONDS + 3)
    except requests.RequestException as error:
        pytest.fail(f"after {after}: GET /healthz failed: {error}")
    elapsed = time.monotonic() - started
    assert response.status_code == 200, f"after {after}: GET /healthz answered {response.status_code}"
    assert elapsed < PROMPT_SECONDS, f"after {after}: GET /healthz took {elapsed:.1f} s"


def journey_session(server: HostileServer) -> requests.Session:
    session = requests.Session()
    session.headers["Origin"] = server.base_url
    return session


def mint_handoff_secret(server: HostileServer, verification_id: str) -> str:
    response = server.call("POST", f"/v1/verifications/{verification_id}/handoffs", json={})
    assert response.status_code == 201, f"minting a handoff answered {response.status_code}: {response.text[:300]}"
    url = response.json()["url"]
    assert "#handoff=" in url, url
    secret = url.split("#handoff=", 1)[1]
    server.secrets.append(secret)
    return secret


def assert_no_secret_in_log(server: HostileServer) -> None:
    log = server.log_text()
    leaked = [secret[:6] + "…" for secret in server.secrets if secret and secret in log]
    assert not leaked, f"the server log contains secrets (API key, handoff secrets, session tokens): {leaked}"
    codes = [code for code in server.codes if re.search(rf"(?<![0-9A-Za-z]){code}(?![0-9A-Za-z])", log)]
    assert not codes, f"the server log contains OTP codes: {codes}"


def assert_no_5xx(server: HostileServer) -> None:
    """No answer on this store was a 5xx, except a 503 a test explicitly allowed."""
    seen = [s for s in SEEN if s.store == server.store]
    errors = [s for s in seen if s.status >= 500 and not s.allowed]
    assert not errors, f"{len(errors)} of {len(seen)} answers were 5xx: " + "; ".join(
        f"{s.test}: {s.what} → {s.status}" for s in errors[:20])


# --- 0. the secrets the log must not contain -------------------------------------------------

@dataclass(frozen=True)
class SignedIn:
    verification_id: str
    handoff_token: str
    code_token: str


@pytest.fixture(scope="module")
def signed_in(hostile_server: HostileServer) -> SignedIn:
    """Two journey sessions on the server's verification: one from a handoff exchanged like the
    page does, one from the mobile number and its SMS code (from the dev outbox)."""
    server = hostile_server
    vid = server.verification["id"]
    secret = mint_handoff_secret(server, vid)
    by_handoff = journey_session(server)
    response = server.call("POST", f"/j/{vid}/api/session", auth=False, session=by_handoff, json={"handoff": secret})
    assert response.status_code == 200, f"the handoff exchange answered {response.status_code}: {response.text[:300]}"
    handoff_token = by_handoff.cookies.get("hosted_session")
    assert handoff_token, "the handoff exchange set no hosted_session cookie"
    server.secrets.append(handoff_token)

    by_code = journey_session(server)
    response = server.call("POST", f"/j/{vid}/api/otp", auth=False, session=by_code, json={"mobile": MOBILE})
    assert response.status_code == 202, f"asking for a code answered {response.status_code}: {response.text[:300]}"
    # The code is sent by the server's background worker just after the 202: wait for it.
    deadline = time.monotonic() + 5
    while True:
        outbox = server.call("GET", "/dev/outbox", auth=False, params={"to": MOBILE})
        assert outbox.status_code == 200, outbox.text[:300]
        messages = outbox.json()["data"]
        if messages or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert messages, f"no SMS to {MOBILE} in the dev outbox"
    match = CODE.search(messages[0]["body"])
    assert match, "the SMS holds no 6-digit code"
    server.codes.append(match.group(1))
    response = server.call("POST", f"/j/{vid}/api/otp/verify", auth=False, session=by_code, json={"code": match.group(1)})
    assert response.status_code == 200, f"verifying the code answered {response.status_code}: {response.text[:300]}"
    code_token = by_code.cookies.get("hosted_session")
    assert code_token, "verifying the code set no hosted_session cookie"
    server.secrets.append(code_token)
    for session in (by_handoff, by_code):
        state = server.call("GET", f"/j/{vid}/api/state", auth=False, session=session)
        assert state.status_code == 200, f"GET /api/state with a fresh session answered {state.status_code}"
    return SignedIn(vid, handoff_token, code_token)


def test_a_handoff_and_a_mobile_code_each_open_a_journey_session(signed_in: SignedIn):
    assert signed_in.handoff_token != signed_in.code_token


# --- 1. request desync -----------------------------------------------------------------------

def assert_refused_and_closed(server: HostileServer, what: str, data: bytes) -> None:
    """`data` is a malformed request with a well-formed one pipelined behind it: exactly one
    answer (400 problem+json), then the server closes the connection."""
    result = server.raw(what, data)
    assert result.responses, f"{what}: no answer within {CLOSE_TIMEOUT} s (closed: {result.closed})"
    first = result.responses[0]
    assert first.status != 200, f"{what}: the malformed request was served: {first.describe()}"
    assert_problem(first, (400,), what)
    assert len(result.responses) == 1, (
        f"{what}: the request pipelined behind it was answered too ({[r.status for r in result.responses]}): "
        "it was smuggled through"
    )
    assert result.closed, f"{what}: the connection stayed open after the 400"


def smuggled(server: HostileServer) -> bytes:
    return server.request("GET", "/healthz")


def test_content_length_with_transfer_encoding_is_refused_and_closed(hostile_server: HostileServer):
    server = hostile_server
    data = (f"POST /v1/verifications HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\n"
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n").encode() + smuggled(server)
    assert_refused_and_closed(server, "Content-Length with Transfer-Encoding", data)
    assert_still_serving(server, "Content-Length with Transfer-Encoding")


def test_two_different_content_lengths_are_refused_and_closed(hostile_server: HostileServer):
    server = hostile_server
    data = (f"POST /v1/verifications HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\n"
            "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello").encode() + smuggled(server)
    assert_refused_and_closed(server, "two different Content-Length headers", data)


def test_a_space_before_the_header_colon_is_refused_and_closed(hostile_server: HostileServer):
    server = hostile_server
    data = (f"POST /v1/verifications HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\n"
            "Content-Length : 5\r\n\r\nhello").encode() + smuggled(server)
    assert_refused_and_closed(server, "`Content-Length : 5`", data)


def test_an_http_11_request_without_host_is_refused_and_closed(hostile_server: HostileServer):
    server = hostile_server
    data = b"GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n" + smuggled(server)
    assert_refused_and_closed(server, "HTTP/1.1 without Host", data)


def test_a_nul_byte_in_a_header_value_does_not_authenticate(hostile_server: HostileServer, signed_in: SignedIn):
    server = hostile_server
    api = (f"GET /v1/verifications HTTP/1.1\r\nHost: {server.host}\r\n"
           f"Authorization: Bearer {server.api_key}\x00junk\r\n\r\n").encode() + smuggled(server)
    assert_refused_and_closed(server, "Authorization: Bearer <key>\\0junk", api)
    journey = (f"GET /j/{signed_in.verification_id}/api/state HTTP/1.1\r\nHost: {server.host}\r\n"
               f"Cookie: hosted_session={signed_in.handoff_token}\x00junk\r\n\r\n").encode() + smuggled(server)
    assert_refused_and_closed(server, "Cookie: hosted_session=<token>\\0junk", journey)


# --- 2. oversized headers --------------------------------------------------------------------

OVERSIZED = {
    "a 64 KB header line": [("X-Padding", "a" * 65536)],
    "500 headers": [(f"X-Header-{n}", "v") for n in range(500)],
    "a 64 KB Authorization header": [("Authorization", "Bearer sk_" + "A" * 65536)],
}


@pytest.mark.parametrize("what", list(OVERSIZED))
def test_oversized_headers_are_refused_with_a_4xx_and_the_server_keeps_serving(hostile_server: HostileServer, what: str):
    server = hostile_server
    headers = OVERSIZED[what]
    if not any(name == "Authorization" for name, _ in headers):
        headers = [("Authorization", f"Bearer {server.api_key}"), *headers]
    with server.connect(what) as connection:
        connection.send(server.request("GET", "/v1/verifications", headers))
        response = connection.read_response(timeout=REFUSAL_TIMEOUT)
    assert response is not None, f"{what}: no answer within {REFUSAL_TIMEOUT} s"
    assert response.status in (400, 413, 431), f"{what}: answered {response.describe()}, expected 431, 400 or 413"
    assert_still_serving(server, what)


# --- 3. hostile JSON bodies ------------------------------------------------------------------

NESTED_ARRAYS = b"[" * 10_000 + b"]" * 10_000
NESTED_OBJECTS = b'{"a":' * 10_000 + b"1" + b"}" * 10_000
# JSON values for a field that wants a (short, plain) string.
HOSTILE_STRINGS: dict[str, bytes] = {
    "invalid UTF-8": b'"\xff\xfe\xfd"',
    "an overlong UTF-8 slash": b'"\xc0\xaf"',
    "a raw NUL byte": b'"a\x00b"',
    "an escaped NUL": b'"a\\u0000b"',
    "a lone surrogate": b'"\\ud800"',
    "10,000 nested arrays": NESTED_ARRAYS,
    "10,000 nested objects": NESTED_OBJECTS,
    "1e999999": b"1e999999",
    "a 26-digit integer": b"99999999999999999999999999",
    "a 100,000-character string": b'"' + b"a" * 100_000 + b'"',
    "a number": b"42",
    "an array": b'["x"]',
    "an object": b'{"x":"y"}',
    "true": b"true",
}
# JSON values for a field that wants a small integer.
HOSTILE_NUMBERS: dict[str, bytes] = {
    "1e999999": b"1e999999",
    "-1e999999": b"-1e999999",
    "a 26-digit integer": b"99999999999999999999999999",
    "a negative 26-digit integer": b"-99999999999999999999999999",
    "a fraction": b"60.5",
    "10,000 nested arrays": NESTED_ARRAYS,
    "an escaped NUL": b'"\\u0000"',
}
# Whole bodies that are not a JSON object at all.
HOSTILE_DOCUMENTS: dict[str, bytes] = {
    "invalid UTF-8 before the object": b"\xff\xfe{}",
    "a NUL byte": b"\x00",
    "10,000 nested arrays": NESTED_ARRAYS,
    "10,000 nested objects": NESTED_OBJECTS,
    "an array": b"[]",
    "a string": b'"x"',
    "1e999999": b"1e999999",
    "a truncated object": b'{"a": "b"',
    "trailing garbage": b"{} x",
}


@dataclass(frozen=True)
class WriteRoute:
    method: str
    path: str  # "{id}" is the server's verification
    # Templates: `%s` is replaced by the hostile value; `{n}` by a per-case number (unique ids).
    string_slots: tuple[str, ...]
    number_slots: tuple[str, ...]
    duplicate_keys: str
    # Route-specific cases: (label, body).
    extra: tuple[tuple[str, str], ...] = ()
    empty_body_allowed: bool = False


ROUTES = {
    "POST /v1/verifications": WriteRoute(
        "POST", "/v1/verifications",
        string_slots=('{"user_id": %s, "workflow": "kyc_basic", "mobile": "+919876543210"}',
                      '{"user_id": "hostile-{n}", "workflow": "kyc_basic", "mobile": "+919876543210", "metadata": {"note": %s}}',
                      '{"user_id": "hostile-{n}", "workflow": %s, "mobile": "+919876543210"}'),
        number_slots=('{"user_id": "hostile-{n}", "workflow": "kyc_basic", "mobile": "+919876543210", "metadata": {"n": %s}}',),
        duplicate_keys='{"user_id": "hostile-dup-a", "user_id": "hostile-dup-b", "workflow": "kyc_basic", "mobile": "+919876543210"}',
    ),
    "POST /v1/workflows": WriteRoute(
        "POST", "/v1/workflows",
        string_slots=('{"key": "hostile_{n}", "name": %s, "steps": [{"type": "profile"}]}',
                      '{"key": %s, "name": "Hostile", "steps": [{"type": "profile"}]}',
                      '{"key": "hostile_{n}", "name": "Hostile", "steps": [{"type": %s}]}'),
        number_slots=('{"key": "hostile_{n}", "name": "Hostile", "steps": [{"type": "premises_photos", "min": %s, "max": 4}]}',),
        duplicate_keys='{"key": "hostile_dup", "key": "hostile_dup_b", "name": "Hostile", "steps": [{"type": "profile"}]}',
        extra=(("min as a numeric string",
                '{"key": "hostile_str", "name": "Hostile", "steps": [{"type": "premises_photos", "min": "2", "max": 4}]}'),
               ("a step with a duplicate type key",
                '{"key": "hostile_dupstep", "name": "Hostile", "steps": [{"type": "profile", "type": "selfie"}]}')),
    ),
    "PATCH /v1/verifications/{id}": WriteRoute(
        "PATCH", "/v1/verifications/{id}",
        string_slots=('{"metadata": {"note": %s}}', '{"mobile": %s}', '{"return_url": %s}'),
        number_slots=('{"metadata": {"n": %s}}',),
        duplicate_keys='{"mobile": "+919876543211", "mobile": "+919876543212"}',
        extra=(("duplicate metadata keys", '{"metadata": {"note": "a", "note": "b"}}'),),
        # An empty PATCH changes nothing either way; not one of the contract's hostile bodies.
        empty_body_allowed=True,
    ),
    "POST /v1/verifications/{id}/handoffs": WriteRoute(
        "POST", "/v1/verifications/{id}/handoffs",
        string_slots=('{"return_url": %s}',),
        number_slots=('{"expires_in_seconds": %s}',),
        duplicate_keys='{"expires_in_seconds": 60, "expires_in_seconds": 120}',
        extra=(("expires_in_seconds as a numeric string", '{"expires_in_seconds": "60"}'),),
        empty_body_allowed=True,
    ),
}


def hostile_bodies(route: WriteRoute) -> list[tuple[str, bytes]]:
    cases: list[tuple[str, bytes]] = []
    for label, value in HOSTILE_DOCUMENTS.items():
        cases.append((label, value))
    for template in route.string_slots:
        for label, value in HOSTILE_STRINGS.items():
            cases.append((f"{label} in {template[:60]}", template.encode().replace(b"%s", value)))
    for template in route.number_slots:
        for label, value in HOSTILE_NUMBERS.items():
            cases.append((f"{label} in {template[:60]}", template.encode().replace(b"%s", value)))
    cases.append(("duplicate keys", route.duplicate_keys.encode()))
    cases += [(label, body.encode()) for label, body in route.extra]
    if not route.empty_body_allowed:
        cases.append(("an empty body", b""))
    return [(label, body.replace(b"{n}", str(n).encode())) for n, (label, body) in enumerate(cases)]


def snapshot(server: HostileServer) -> tuple[list[dict], list[tuple[str, int]]]:
    verifications = sorted(list_verifications(server), key=lambda v: v["id"])
    workflows = sorted((w["key"], w.get("version", 0)) for w in list_workflows(server))
    return verifications, workflows


@pytest.mark.parametrize("route_name", list(ROUTES))
def test_hostile_json_bodies_are_refused_with_a_4xx_and_create_nothing(hostile_server: HostileServer, route_name: str):
    server = hostile_server
    route = ROUTES[route_name]
    path = route.path.replace("{id}", server.verification["id"])
    before = snapshot(server)
    failures: list[str] = []
    for label, body in hostile_bodies(route):
        try:
            response = server.call(route.method, path, data=body, timeout=15,
                                   headers={"Content-Type": "application/json"})
        except requests.RequestException as error:
            failures.append(f"{label}: no answer ({type(error).__name__})")
            continue
        allowed = (400, 413, 422) if len(body) > 4096 else (400, 422)
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
        if response.status_code not in allowed or content_type != "application/problem+json":
            failures.append(f"{label}: {response.status_code} {content_type} {response.text[:120]!r}")
    after = snapshot(server)
    assert not failures, f"{route_name}: {len(failures)} hostile bodies not refused with 400/422 problem+json:\n" + "\n".join(failures)
    assert after[1] == before[1], f"{route_name}: workflows changed: {sorted(set(after[1]) - set(before[1]))}"
    assert [v["id"] for v in after[0]] == [v["id"] for v in before[0]], (
        f"{route_name}: verifications created: {[v.get('user_id') for v in after[0] if v not in before[0]]}"
    )
    assert after[0] == before[0], f"{route_name}: a verification changed"


def test_hostile_journey_sign_in_bodies_open_no_session(hostile_server: HostileServer):
    """Malformed bodies to the journey's sign-in, each carrying a real unused handoff secret
    (which must then not be logged either): refused, and no session cookie is set."""
    server = hostile_server
    vid = server.verification["id"]
    secret = mint_handoff_secret(server, vid).encode()
    bodies = {
        "the secret then invalid UTF-8": b'{"handoff": "' + secret + b'\xff"}',
        "the secret then a raw NUL": b'{"handoff": "' + secret + b'\x00"}',
        "the secret then an escaped NUL": b'{"handoff": "' + secret + b'\\u0000"}',
        "the secret as an array": b'{"handoff": ["' + secret + b'"]}',
        # 1,500 deep: within the route's 4 KB body limit, so the JSON parser gets it.
        "the secret deep in nested arrays": b"[" * 1500 + b'"' + secret + b'"' + b"]" * 1500,
        "the secret under a duplicate key": b'{"handoff": "x", "handoff": "' + secret + b'"}',
        "the secret beside an unknown key": b'{"handoff": "' + secret + b'", "handoff\\u0000": 1}',
    }
    for label, body in bodies.items():
        session = journey_session(server)
        response = server.call("POST", f"/j/{vid}/api/session", auth=False, session=session, data=body,
                               headers={"Content-Type": "application/json"})
        assert response.status_code in (400, 401, 422), f"{label}: answered {response.status_code}: {response.text[:200]}"
        assert "hosted_session" not in session.cookies, f"{label}: a session cookie was set"


# --- 4. garbage in paths and query strings -----------------------------------------------------

def garbage_targets(server: HostileServer, vid: str) -> list[bytes]:
    return [
        b"/v1/verifications/%00",
        b"/v1/verifications/%FF%FE",
        b"/v1/verifications/%",
        b"/v1/verifications/%zz",
        b"/v1/verifications/ver_%00%00%00",
        b"/v1/verifications/%C0%AF%C0%AF",
        b"/v1/verifications/\xff\xfe",
        b"/v1/verifications/a\x01b",
        b"/v1/verifications?limit=99999999999999999999",
        b"/v1/verifications?limit=-1",
        b"/v1/verifications?limit=%00",
        b"/v1/verifications?limit=1e999999",
        b"/v1/verifications?user_id=%FF%FE",
        b"/v1/verifications?user_id=%00",
        b"/v1/verifications?starting_after=%00",
        b"/v1/verifications?status=%",
        b"/v1/verifications?status=\xff",
        b"/v1/verifications/" + vid.encode() + b"?wait=99999999999999999999",
        b"/v1/verifications/" + vid.encode() + b"?wait=%FF",
        b"/v1/workflows/%FF%FE",
        b"/v1/workflows/%00",
        b"/j/%FF%FE/api/state",
        b"/j/%00/api/state",
        b"/j/\xff\xfe/api/state",
        b"/j/" + vid.encode() + b"%00/api/state",
        b"/j/" + vid.encode() + b"/api/%FF",
    ]


def test_garbage_in_paths_and_query_strings_is_refused_with_a_4xx(hostile_server: HostileServer):
    server = hostile_server
    # A verification of its own: the `wait` probes must not spend the shared one's poll budget.
    vid = create_verification(server, "hostile-paths")["id"]
    failures = []
    for target in garbage_targets(server, vid):
        data = (b"GET " + target + b" HTTP/1.1\r\nHost: " + server.host.encode()
                + b"\r\nAuthorization: Bearer " + server.api_key.encode() + b"\r\nConnection: close\r\n\r\n")
        result = server.raw(f"GET {target!r}", data, timeout=REFUSAL_TIMEOUT)
        if not result.responses:
            failures.append(f"{target!r}: no answer (closed: {result.closed})")
        elif not 400 <= result.responses[0].status < 500:
            failures.append(f"{target!r}: {result.responses[0].describe()}")
    assert not failures, "garbage paths not refused with a 4xx:\n" + "\n".join(failures)
    assert_still_serving(server, "garbage paths")


# --- 5. refusal before the body --------------------------------------------------------------

def assert_refused_before_the_body(server: HostileServer, what: str, head: bytes, status: int) -> None:
    with server.connect(what) as connection:
        connection.send(head)
        response = connection.read_response(timeout=REFUSAL_TIMEOUT)
        assert response is not None, (
            f"{what}: no answer within {REFUSAL_TIMEOUT} s of the headers (the server waits for a body it will refuse)"
        )
        assert_problem(response, (status,), what)
        assert connection.wait_closed(CLOSE_TIMEOUT), f"{what}: the connection stayed open after refusing the unread body"


def upload_head(server: HostileServer, vid: str, length: int = UPLOAD_BYTES, cookie: str | None = None) -> bytes:
    headers = [("Content-Type", "image/jpeg"), ("Origin", server.base_url), ("Content-Length", str(length))]
    if cookie:
        headers.append(("Cookie", f"hosted_session={cookie}"))
    return server.request("POST", f"/j/{vid}/api/steps/selfie/images", headers, content_length=False)


def test_an_unauthenticated_upload_is_refused_before_its_body_and_closed(hostile_server: HostileServer):
    server = hostile_server
    assert_refused_before_the_body(server, "an 8 MB selfie upload without a session cookie",
                                   upload_head(server, server.verification["id"]), 401)


@pytest.mark.parametrize("authorization", [None, "Bearer sk_not_a_real_key", "Basic Zm9vOmJhcg=="],
                         ids=["no-authorization", "invalid-key", "basic-auth"])
def test_an_unauthenticated_api_post_is_refused_before_its_body_and_closed(hostile_server: HostileServer,
                                                                          authorization: str | None):
    server = hostile_server
    headers = [("Content-Type", "application/json"), ("Content-Length", "900000")]
    if authorization:
        headers.append(("Authorization", authorization))
    assert_refused_before_the_body(server, f"POST /v1/verifications with {authorization or 'no Authorization'}",
                                   server.request("POST", "/v1/verifications", headers, content_length=False), 401)


def test_a_post_to_an_unknown_route_is_refused_before_its_body(hostile_server: HostileServer):
    server = hostile_server
    for path in ("/no/such/route", "/v1/no_such_collection"):
        headers = [("Content-Type", "application/json"), ("Content-Length", "900000"),
                   ("Authorization", f"Bearer {server.api_key}")]
        assert_refused_before_the_body(server, f"POST {path}", server.request("POST", path, headers, content_length=False), 404)


# --- 6. memory -------------------------------------------------------------------------------

def _upload_and_forget(server: HostileServer, vid: str, statuses: list[int | None], deadline: float) -> None:
    """Announces an 8 MB upload without a session and tries to stream all of it."""
    chunk = b"\x00" * 262_144
    try:
        connection = server.connect("an unauthenticated 8 MB upload", allow_503=True)
    except OSError:
        statuses.append(None)
        return
    with connection:
        connection.sock.settimeout(3)
        sent = connection.send(upload_head(server, vid))
        remaining = UPLOAD_BYTES
        while sent and remaining > 0 and time.monotonic() < deadline:
            piece = chunk[:min(len(chunk), remaining)]
            sent = connection.send(piece)
            remaining -= len(piece)
        response = connection.read_response(timeout=max(0.1, min(2.0, deadline - time.monotonic())))
        statuses.append(response.status if response else None)


def test_thirty_unauthenticated_8_mb_uploads_leave_memory_flat(hostile_server: HostileServer, capsys):
    server = hostile_server
    pid = server.process.pid
    start = rss_mib(pid)
    statuses: list[int | None] = []
    deadline = time.monotonic() + 25
    threads = [threading.Thread(target=_upload_and_forget, args=(server, server.verification["id"], statuses, deadline),
                                daemon=True) for _ in range(UPLOADS)]
    for thread in threads:
        thread.start()
    peak = start
    while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline + 5:
        peak = max(peak, rss_mib(pid))
        time.sleep(0.05)
    for thread in threads:
        thread.join(timeout=1)
    settle = time.monotonic() + 1.0
    while time.monotonic() < settle:
        peak = max(peak, rss_mib(pid))
        time.sleep(0.05)
    end = rss_mib(pid)
    with capsys.disabled():
        print(f"\n  [{server.store}] RSS with {UPLOADS} unauthenticated {UPLOAD_BYTES // 1_000_000} MB uploads: "
              f"start {start:.1f} MiB, peak {peak:.1f} MiB, end {end:.1f} MiB; answers {sorted(statuses, key=str)}")
    assert not any(thread.is_alive() for thread in threads), "some uploads were still running at the deadline"
    unexpected = [status for status in statuses if status not in (None, 401, 503)]
    assert not unexpected, f"unauthenticated uploads answered {unexpected} (expected 401, or 503 when the buffer is full)"
    assert peak - start <= RSS_GROWTH_LIMIT_MIB, f"RSS peaked {peak - start:.1f} MiB above its start ({start:.1f} → {peak:.1f} MiB)"
    assert end - start <= RSS_GROWTH_LIMIT_MIB, f"RSS stayed {end - start:.1f} MiB above its start ({start:.1f} → {end:.1f} MiB)"
    assert_still_serving(server, "the uploads")


# --- 7. long-polls ---------------------------------------------------------------------------

def _abort(connection: RawConnection) -> None:
    """Closes with a reset (SO_LINGER 0), like a client that vanished."""
    try:
        connection.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    connection.close()


def timed_call(server: HostileServer, path: str, what: str, **kwargs) -> requests.Response:
    started = time.monotonic()
    try:
        response = server.call("GET", path, timeout=PROMPT_SECONDS + 3, **kwargs)
    except requests.RequestException as error:
        pytest.fail(f"{what}: GET {path} failed: {error}")
    elapsed = time.monotonic() - started
    assert elapsed < PROMPT_SECONDS, f"{what}: GET {path} took {elapsed:.1f} s"
    return response


def test_abandoned_long_polls_do_not_keep_the_server_from_answering_others(hostile_server: HostileServer, capsys):
    server = hostile_server
    verifications = [create_verification(server, f"hostile-longpoll-{n}") for n in range(LONG_POLL_VERIFICATIONS)]
    assert all(v["_etag"] for v in verifications), "creating a verification answered without an ETag"
    connections: list[RawConnection] = []
    refused = 0
    for n in range(LONG_POLLS):
        verification = verifications[n % len(verifications)]
        try:
            connection = server.connect("a long-poll")
        except OSError:
            refused += 1
            continue
        connection.send(server.request("GET", f"/v1/verifications/{verification['id']}?wait=30",
                                       [("Authorization", f"Bearer {server.api_key}"),
                                        ("If-None-Match", verification["_etag"])]))
        connections.append(connection)
    time.sleep(1.0)
    answered: list[RawResponse] = []
    dropped = pending = 0
    for connection in connections:
        response = connection.read_response(timeout=0.01)
        if response is not None:
            answered.append(response)
        elif connection.closed:
            dropped += 1
        else:
            pending += 1
    with capsys.disabled():
        statuses = sorted(r.status for r in answered)
        print(f"\n  [{server.store}] {LONG_POLLS} long-polls: {pending} waiting, answered {statuses}, "
              f"{dropped} closed unanswered, {refused} not connected")
    try:
        for response in answered:
            assert response.status in (200, 304, 429), f"a long-poll answered {response.describe()}"
            if response.status == 429:
                assert_problem(response, (429,), "a long-poll over the bound")
                assert json.loads(response.body).get("code") == "rate_limited", response.describe()
        # While they wait, others are answered.
        assert timed_call(server, "/healthz", "with long-polls waiting", auth=False).status_code == 200
        assert timed_call(server, "/v1/verifications", "with long-polls waiting").status_code == 200
    finally:
        for n, connection in enumerate(connections):
            _abort(connection) if n % 2 else connection.close()
    # After they are abandoned, too: fresh connections, a fresh verification, a fresh long-poll.
    for _ in range(20):
        assert timed_call(server, "/healthz", "after abandoning long-polls", auth=False).status_code == 200
    fresh = create_verification(server, "hostile-after-longpolls")
    assert timed_call(server, f"/v1/verifications/{fresh['id']}", "after abandoning long-polls").status_code == 200
    # A new long-poll waits its 1 s and answers 304 — or, while the abandoned ones still count
    # against the key's or address's bound, is refused at once with 429 rate_limited.
    started = time.monotonic()
    response = server.call("GET", f"/v1/verifications/{fresh['id']}", params={"wait": 1},
                           headers={"If-None-Match": fresh["_etag"]}, timeout=10)
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"  [{server.store}] a new 1 s long-poll after abandoning them: {response.status_code} in {elapsed:.2f} s")
    assert response.status_code in (304, 429), f"a 1 s long-poll answered {response.status_code}: {response.text[:200]}"
    if response.status_code == 429:
        assert_problem(response, (429,), "a long-poll over the bound")
        assert response.json().get("code") == "rate_limited", response.text[:200]
    assert elapsed < 1 + PROMPT_SECONDS, f"a 1 s long-poll took {elapsed:.1f} s"


# --- 8. a slow client ------------------------------------------------------------------------

def test_a_client_that_stalls_mid_request_line_is_disconnected(hostile_server: HostileServer, capsys):
    """The connection opened when the server started, which sent `GET /healthz HT` and nothing
    more, is closed within SLOW_CLIENT_BOUND_SECONDS of connecting (any answer is a 4xx)."""
    server = hostile_server
    connection = server.slow_client
    assert connection is not None
    remaining = server.slow_client_opened_at + SLOW_CLIENT_BOUND_SECONDS - time.monotonic()
    closed = connection.wait_closed(max(0.0, remaining))
    waited = time.monotonic() - server.slow_client_opened_at
    responses = connection.read_until_closed(0)
    with capsys.disabled():
        print(f"\n  [{server.store}] stalled client: {'closed' if closed else 'still open'} after {waited:.1f} s; "
              f"answers {[r.status for r in responses]}")
    assert closed, f"a client stalled mid request line was still connected after {SLOW_CLIENT_BOUND_SECONDS:.0f} s"
    assert all(400 <= r.status < 500 for r in responses), [r.describe() for r in responses]


# --- 9, 10. afterwards -----------------------------------------------------------------------

def test_the_server_survived_everything_with_no_5xx_and_no_secret_in_its_log(hostile_server: HostileServer,
                                                                           signed_in: SignedIn):
    server = hostile_server
    assert server.process.poll() is None, f"the server exited with {server.process.returncode}:\n" + _tail(server.stderr_path)
    assert_still_serving(server, "the whole module")
    assert server.codes and len(server.secrets) >= 4, "no secrets were minted: nothing to look for in the log"
    assert_no_secret_in_log(server)
    server.ledger_checked = True
    assert_no_5xx(server)
