"""Webhooks end to end (Standard Webhooks 1.0): live `hosted serve --dev` processes deliver to a
loopback receiver (webhook_support.Receiver), and every message received is verified with the
official `standardwebhooks` library.

The contract is DESIGN.md "Webhooks (Standard Webhooks 1.0)" with its pinned details: endpoint
CRUD (the secret shown only on create and rotation), validation (422 `invalid_request` /
`webhook_url_not_allowed`), signing with both secrets after a rotation, the thin body whose
`webhook-id` and `data.id` are the event id of `GET /v1/verifications/{id}/events`, retries on
the schedule (`HOSTED_WEBHOOK_RETRY_SCHEDULE`, ±10 % jitter), 410 disabling the endpoint,
`Retry-After` honoured up to the schedule's following step, 3xx never followed, the attempt
timeout (`HOSTED_WEBHOOK_TIMEOUT`), a message failed once the schedule is exhausted, recover,
the test message, SSRF refusals at creation and at delivery (names resolve only from
`HOSTED_WEBHOOK_HOSTS_FILE`), redelivery after `kill -9` mid-delivery, two processes on one
PostgreSQL database delivering each event once (`HOSTED_TEST_POSTGRES_URL`, else skipped), and
the first attempt within 1 s of the create.

The main server runs the schedule 2,4,4 s and a 2 s timeout, so the whole file takes a couple
of minutes. Each test works in an account of its own, so one test's endpoints never see another
test's events. Secrets never appear in failure messages, and the server logs are checked for
them (and for the API keys) at the end.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from webhook_support import (
    Client,
    Deployment,
    Received,
    Receiver,
    Secret,
    SetupError,
    hide_secrets,
    redact,
    secret_key_bytes,
    wait_until,
)

SCHEDULE = "2,4,4"
STEPS = [2.0, 4.0, 4.0]
TIMEOUT = 2  # HOSTED_WEBHOOK_TIMEOUT of the main server
JITTER = 0.10
LATENCY = 1.0  # worker latency allowed on top of a scheduled time (the spec's "~1 s")
MOBILE = "+919876543210"

ENDPOINT_FIELDS = {"object", "id", "url", "events", "description", "status", "disabled_reason", "created_at", "livemode"}
DELIVERY_FIELDS = {"object", "id", "event_id", "event_type", "attempt", "status", "response_status", "error",
                   "duration_ms", "created_at", "next_attempt_at", "livemode"}
EVENT_TYPES = ["verification.created", "verification.updated", "verification.handoff_created",
               "verification.signed_in", "verification.step_completed", "verification.submitted",
               "verification.approved", "verification.rejected", "verification.canceled",
               "verification.expired", "verification.redacted"]
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
RFC3339_MS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
URL_CODES = {"invalid_request", "webhook_url_not_allowed"}


# --- fixtures ------------------------------------------------------------------------------

def _deployment(workdir, **options) -> Deployment:
    try:
        return Deployment(workdir, **options)
    except SetupError as error:
        pytest.fail(str(error), pytrace=False)


def _start(deployment: Deployment):
    try:
        return deployment.start()
    except SetupError as error:
        pytest.fail(str(error), pytrace=False)


def _client(deployment: Deployment, process=None) -> Client:
    try:
        return deployment.client(process)
    except SetupError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver()
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """The main server: SQLite, schedule 2,4,4, timeout 2 s, sweep every second."""
    deployment = _deployment(tmp_path_factory.mktemp("webhooks"), schedule=SCHEDULE, timeout=TIMEOUT)
    try:
        _start(deployment)
        yield deployment
    finally:
        problems = deployment.close()
    assert not problems, "\n".join(problems)


@pytest.fixture
def client(deployment) -> Client:
    """A fresh account (with the `kyc` workflow) on the main server."""
    return _client(deployment)


# --- helpers -------------------------------------------------------------------------------

def new_path(tag: str) -> str:
    return f"/hooks/{tag}-{uuid.uuid4().hex[:10]}"


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def rfc3339(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def step_window(step: float) -> tuple[float, float]:
    """Where the gap between two attempts may fall for a schedule step: ±10 % jitter, plus up to
    LATENCY of worker latency (and 0.1 s of measurement on the early side)."""
    return step * (1 - JITTER) - 0.1, step * (1 + JITTER) + LATENCY


def schedule_bound(steps: list[float], extra: float = 3.0) -> float:
    """How long a sequence of attempts may take at most (for bounded waits)."""
    return sum(step * (1 + JITTER) + LATENCY for step in steps) + extra


def create_endpoint(client: Client, url: str, **fields) -> dict:
    endpoint = client.call("POST", "/v1/webhook_endpoints", {"url": url, **fields}, expected=(201,))
    secret = endpoint.get("secret")
    shaped = isinstance(secret, str) and secret.startswith("whsec_")
    assert shaped, "the created endpoint carries no whsec_ secret"
    assert len(secret_key_bytes(secret)) == 32, "the secret is not base64 of 32 bytes"
    return endpoint


def refused_create(client: Client, body: dict) -> tuple[int, str | None]:
    """POSTs an endpoint that must be refused; one that is accepted anyway is deleted at once
    (before anything can be sent to it). Returns (status, code)."""
    response = client.request("POST", "/v1/webhook_endpoints", body)
    if response.status_code == 201:
        client.request("DELETE", f"/v1/webhook_endpoints/{response.json()['id']}")
        return 201, None
    try:
        problem = response.json()
    except ValueError:
        return response.status_code, None
    content_type = response.headers.get("Content-Type", "")
    if not content_type.startswith("application/problem+json"):
        return response.status_code, f"(not problem+json: {content_type})"
    return response.status_code, problem.get("code")


def create_verification(client: Client) -> dict:
    verification = client.call("POST", "/v1/verifications",
                               {"user_id": f"u-{uuid.uuid4().hex[:12]}", "workflow": "kyc", "mobile": MOBILE},
                               expected=(201,))
    assert verification["status"] == "created", verification
    return verification


def cancel(client: Client, verification_id: str) -> dict:
    canceled = client.call("POST", f"/v1/verifications/{verification_id}/cancel", {})
    assert canceled["status"] == "canceled", canceled
    return canceled


def events_of(client: Client, verification_id: str) -> list[dict]:
    page = client.call("GET", f"/v1/verifications/{verification_id}/events")
    assert page["has_more"] is False, "more than one page of events"
    return page["data"]


def deliveries_page(client: Client, endpoint_id: str, **params) -> dict:
    page = client.call("GET", f"/v1/webhook_endpoints/{endpoint_id}/deliveries", params=params or None)
    assert page["object"] == "list" and isinstance(page["data"], list), page
    return page


def all_deliveries(client: Client, endpoint_id: str) -> list[dict]:
    """Every attempt row of the endpoint, newest first (following the cursor, at most 20 pages)."""
    rows: list[dict] = []
    params: dict = {"limit": 100}
    for _ in range(20):
        page = deliveries_page(client, endpoint_id, **params)
        rows += page["data"]
        if not page["has_more"]:
            return rows
        params = {"limit": 100, "starting_after": page["data"][-1]["id"]}
    raise AssertionError("more than 20 pages of deliveries")


def rows_of(client: Client, endpoint_id: str, event_id: str) -> list[dict]:
    return [row for row in all_deliveries(client, endpoint_id) if row["event_id"] == event_id]


def wait_rows(client: Client, endpoint_id: str, event_id: str, predicate, what: str, timeout: float = 6.0):
    """Polls the deliveries log until `predicate(rows of this event)` holds; returns the rows."""
    seen: list = []

    def check():
        seen[:] = rows_of(client, endpoint_id, event_id)
        return seen if predicate(seen) else None

    try:
        return wait_until(check, timeout, what)
    except AssertionError:
        raise AssertionError(f"{what}: not reached within {timeout:.0f} s; the log shows {describe_rows(seen)}") from None


def describe_rows(rows: list[dict]) -> str:
    return str([(row.get("attempt"), row.get("status"), row.get("response_status"), row.get("error"),
                 row.get("next_attempt_at")) for row in rows])


def assert_delivery_row(row: dict, event: dict, endpoint_id: str | None = None) -> None:
    assert set(row) == DELIVERY_FIELDS, f"delivery fields {sorted(row)}, expected {sorted(DELIVERY_FIELDS)}"
    assert row["object"] == "webhook_delivery", row
    assert re.fullmatch(r"whd_[A-Za-z0-9]+", row["id"]), row
    assert row["event_id"] == event["id"] and row["event_type"] == event["type"], row
    assert isinstance(row["attempt"], int) and row["attempt"] >= 1, row
    assert row["status"] in ("pending", "succeeded", "failed"), row
    assert RFC3339.fullmatch(row["created_at"]), row
    assert row["next_attempt_at"] is None or RFC3339.fullmatch(row["next_attempt_at"]), row
    if row["status"] != "pending":
        assert isinstance(row["duration_ms"], int) and row["duration_ms"] >= 0, row


def succeeded(rows: list[dict]) -> bool:
    return any(row["status"] == "succeeded" for row in rows)


def webhook_headers(request: Received) -> dict[str, str]:
    return {name: request.headers[name] for name in ("webhook-id", "webhook-timestamp", "webhook-signature")
            if name in request.headers}


def verify(request: Received, secret: str):
    """The official library's verification of one received message (raises if it fails)."""
    return Webhook(secret).verify(request.body, webhook_headers(request))


def assert_signed(request: Received, signing: list[str]) -> None:
    """Verifies with each secret in `signing` (the library), the header has exactly that many
    `v1,` entries, and a stranger's secret or a changed body does not verify."""
    entries = request.headers.get("webhook-signature", "").split(" ")
    assert len(entries) == len(signing) and all(entry.startswith("v1,") for entry in entries), (
        f"webhook-signature has {len(entries)} entries {[entry[:3] for entry in entries]}, expected "
        f"{len(signing)} v1, entries"
    )
    for position, secret in enumerate(signing):
        try:
            verify(request, secret)
        except WebhookVerificationError as error:
            raise AssertionError(f"message {request.headers.get('webhook-id')} does not verify with secret "
                                 f"#{position + 1} of {len(signing)}: {error}") from None
    stranger = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    with pytest.raises(WebhookVerificationError):
        verify(request, stranger)
    tampered = Received(request.method, request.target, request.path, request.headers,
                        request.body.replace(b'"data"', b'"data" ', 1), request.at)
    with pytest.raises(WebhookVerificationError):
        verify(tampered, signing[0])


def assert_message(request: Received, signing: list[str], event: dict, verification_id: str | None,
                   status: str | None) -> dict:
    """One received message: headers, signature (official library), exact thin body."""
    where = f"message {request.headers.get('webhook-id')} ({event['type']})"
    assert request.method == "POST", f"{where}: method {request.method}"
    content_type = request.headers.get("content-type", "")
    assert content_type.split(";")[0].strip().lower() == "application/json", f"{where}: content-type {content_type!r}"
    assert request.headers.get("user-agent") == "Hosted-Webhooks/1", f"{where}: user-agent {request.headers.get('user-agent')!r}"
    assert request.headers.get("webhook-id") == event["id"], f"{where}: webhook-id is not the event id {event['id']}"
    timestamp = request.headers.get("webhook-timestamp", "")
    assert re.fullmatch(r"[0-9]+", timestamp), f"{where}: webhook-timestamp {timestamp!r} is not unix seconds"
    assert abs(int(timestamp) - request.at) <= 2, (
        f"{where}: webhook-timestamp {timestamp} is not the time of the attempt ({request.at:.1f})"
    )
    assert_signed(request, signing)
    body = request.json()
    assert set(body) == {"type", "timestamp", "data"}, f"{where}: body keys {sorted(body)}"
    assert body["type"] == event["type"], f"{where}: type {body['type']}"
    assert isinstance(body["timestamp"], str) and RFC3339_MS.fullmatch(body["timestamp"]), (
        f"{where}: timestamp {body['timestamp']!r} is not RFC 3339 UTC to the millisecond"
    )
    if "created_at" in event:
        assert parse_time(body["timestamp"]) == parse_time(event["created_at"]), (
            f"{where}: timestamp {body['timestamp']} is not the event's created_at {event['created_at']}"
        )
    expected = {"object": "event", "id": event["id"], "verification_id": verification_id,
                "sequence": event.get("sequence"), "status": status, "livemode": True}
    assert body["data"] == expected, f"{where}: data {body['data']}, expected {expected}"
    return body


def problem_code(response) -> str | None:
    try:
        return response.json().get("code")
    except ValueError:
        return None


# --- endpoints ------------------------------------------------------------------------------

def test_endpoint_crud_shows_the_secret_only_on_create(client, receiver, deployment):
    url = receiver.url(new_path("crud"))
    created = create_endpoint(client, url, description="orders service")
    secret = created["secret"]
    assert set(created) == ENDPOINT_FIELDS | {"secret"}, f"create answered the fields {sorted(created)}"
    assert created["object"] == "webhook_endpoint"
    assert re.fullmatch(r"we_[A-Za-z0-9]+", created["id"]), created["id"]
    assert created["url"] == url
    assert created["events"] == ["*"], "events does not default to [\"*\"]"
    assert created["description"] == "orders service"
    assert created["status"] == "enabled" and created["disabled_reason"] is None
    assert RFC3339.fullmatch(created["created_at"]), created["created_at"]
    public = {name: value for name, value in created.items() if name != "secret"}

    response = client.request("GET", f"/v1/webhook_endpoints/{created['id']}")
    assert response.status_code == 200, redact(response.text[:300])
    leaked = secret in response.text or secret[6:] in response.text
    assert not leaked, "GET shows the secret"
    assert hide_secrets(response.json()) == public, "GET shows other fields than create"

    second = create_endpoint(client, receiver.url(new_path("crud-2")),
                             events=["verification.created", "verification.canceled"])
    same = second["secret"] == secret
    assert not same, "two endpoints got the same secret"
    assert second["description"] is None
    assert second["events"] == ["verification.created", "verification.canceled"]

    listing = client.request("GET", "/v1/webhook_endpoints")
    assert listing.status_code == 200, redact(listing.text[:300])
    leaked = "whsec_" in listing.text or secret[6:] in listing.text
    assert not leaked, "the list shows a secret"
    page = hide_secrets(listing.json())
    assert page["object"] == "list" and page["has_more"] is False, redact(listing.text[:300])
    assert [endpoint["id"] for endpoint in page["data"]] == [second["id"], created["id"]], "not newest first"
    assert all("secret" not in endpoint for endpoint in page["data"]), "the list shows secrets"
    first_page = client.call("GET", "/v1/webhook_endpoints", params={"limit": 1})
    assert [e["id"] for e in first_page["data"]] == [second["id"]] and first_page["has_more"] is True, first_page
    next_page = client.call("GET", "/v1/webhook_endpoints", params={"limit": 1, "starting_after": second["id"]})
    assert [e["id"] for e in next_page["data"]] == [created["id"]] and next_page["has_more"] is False, next_page

    # Another account sees none of it.
    other = _client(deployment)
    assert other.call("GET", "/v1/webhook_endpoints")["data"] == [], "another account lists this account's endpoints"
    assert other.request("GET", f"/v1/webhook_endpoints/{created['id']}").status_code == 404
    assert other.request("DELETE", f"/v1/webhook_endpoints/{created['id']}").status_code == 404
    assert client.request("GET", "/v1/webhook_endpoints", auth=False).status_code == 401

    new_url = receiver.url(new_path("crud-moved"))
    patched = client.call("PATCH", f"/v1/webhook_endpoints/{created['id']}",
                          {"events": ["verification.*"], "description": "changed", "url": new_url})
    assert "secret" not in patched, "PATCH shows the secret"
    assert patched == {**public, "events": ["verification.*"], "description": "changed", "url": new_url}, patched
    disabled = client.call("PATCH", f"/v1/webhook_endpoints/{created['id']}", {"status": "disabled"})
    assert disabled["status"] == "disabled", disabled
    enabled = client.call("PATCH", f"/v1/webhook_endpoints/{created['id']}", {"status": "enabled"})
    assert enabled["status"] == "enabled" and enabled["disabled_reason"] is None, enabled
    assert client.call("GET", f"/v1/webhook_endpoints/{created['id']}") == enabled

    deleted = client.call("DELETE", f"/v1/webhook_endpoints/{created['id']}")
    assert deleted == {"object": "webhook_endpoint", "id": created["id"], "deleted": True}, deleted
    for method, path, body in (("GET", "", None), ("DELETE", "", None), ("PATCH", "", {"description": "x"}),
                               ("POST", "/rotate_secret", None)):
        response = client.request(method, f"/v1/webhook_endpoints/{created['id']}{path}", body)
        assert response.status_code == 404 and problem_code(response) == "not_found", (
            f"{method} of a deleted endpoint{path} answered {response.status_code}: {redact(response.text[:300])}"
        )
    assert [e["id"] for e in client.call("GET", "/v1/webhook_endpoints")["data"]] == [second["id"]]
    response = client.request("GET", "/v1/webhook_endpoints/we_doesnotexist0000")
    assert response.status_code == 404 and problem_code(response) == "not_found", response.text[:300]


def test_endpoint_validation_answers_422(client, receiver):
    url = receiver.url(new_path("validation"))
    cases = [
        ({"url": url, "events": []}, {"invalid_request"}),
        ({"url": url, "events": ["verification.nope"]}, {"invalid_request"}),
        ({"url": url, "events": ["order.created"]}, {"invalid_request"}),
        ({"url": url, "events": ["*", "*"]}, {"invalid_request"}),
        ({"url": url, "events": ["verification.created", "verification.created"]}, {"invalid_request"}),
        ({"url": url, "events": "*"}, {"invalid_request"}),
        ({"url": url, "events": [1]}, {"invalid_request"}),
        ({"url": url, "description": "x" * 501}, {"invalid_request"}),
        ({"url": url, "description": 5}, {"invalid_request"}),
        ({}, {"invalid_request"}),
        ({"url": 5}, {"invalid_request"}),
        ({"url": ""}, URL_CODES),
        ({"url": "not a url"}, URL_CODES),
        ({"url": receiver.url("/" + "a" * 2050)}, URL_CODES),
        ({"url": f"ftp://127.0.0.1:{receiver.port}/x"}, URL_CODES),
        ({"url": "file:///etc/passwd"}, URL_CODES),
        ({"url": "javascript:alert(1)"}, URL_CODES),
    ]
    problems = []
    for body, codes in cases:
        status, code = refused_create(client, body)
        if status != 422 or code not in codes:
            problems.append(f"POST /v1/webhook_endpoints {redact(json.dumps(body))[:120]}: {status} {code}, "
                            f"expected 422 {sorted(codes)}")
    response = client.request("POST", "/v1/webhook_endpoints", raw_body=b'{"url": ')
    if response.status_code != 422 and response.status_code != 400:
        problems.append(f"malformed JSON answered {response.status_code}")
    assert not problems, "\n".join(problems)
    assert client.call("GET", "/v1/webhook_endpoints")["data"] == [], "a refused endpoint was stored"

    # The edges that are fine.
    at_limit = create_endpoint(client, url, description="x" * 500,
                               events=["verification.*", "verification.approved"])
    assert at_limit["events"] == ["verification.*", "verification.approved"]
    every_type = create_endpoint(client, url, events=EVENT_TYPES)
    assert every_type["events"] == EVENT_TYPES
    long_url = receiver.url("/" + "a" * 1990)
    assert len(long_url) <= 2048
    create_endpoint(client, long_url)

    # PATCH validates the same way and changes nothing when it refuses.
    before = client.call("GET", f"/v1/webhook_endpoints/{at_limit['id']}")
    for body, codes in [({"events": []}, {"invalid_request"}), ({"status": "paused"}, {"invalid_request"}),
                        ({"description": "y" * 501}, {"invalid_request"}),
                        ({"url": "https://10.0.0.1/hook"}, {"webhook_url_not_allowed"}),
                        ({"url": "http://example.invalid/hook"}, {"webhook_url_not_allowed"})]:
        response = client.request("PATCH", f"/v1/webhook_endpoints/{at_limit['id']}", body)
        if response.status_code != 422 or problem_code(response) not in codes:
            problems.append(f"PATCH {json.dumps(body)[:80]}: {response.status_code} {problem_code(response)}, "
                            f"expected 422 {sorted(codes)}")
    after = client.call("GET", f"/v1/webhook_endpoints/{at_limit['id']}")
    if after != before:
        problems.append(f"a refused PATCH changed the endpoint: {after}")
    assert not problems, "\n".join(problems)


# --- messages -------------------------------------------------------------------------------

def test_messages_are_signed_and_carry_the_event(client, receiver, deployment):
    paths = {"all": new_path("all"), "verification": new_path("verif"), "canceled": new_path("canceled")}
    endpoints = {
        "all": create_endpoint(client, receiver.url(paths["all"])),
        "verification": create_endpoint(client, receiver.url(paths["verification"]), events=["verification.*"]),
        "canceled": create_endpoint(client, receiver.url(paths["canceled"]), events=["verification.canceled"]),
    }
    verification = create_verification(client)
    vid = verification["id"]
    cancel(client, vid)
    events = events_of(client, vid)
    assert [event["type"] for event in events] == ["verification.created", "verification.canceled"], events
    by_id = {event["id"]: event for event in events}
    statuses = {"verification.created": "created", "verification.canceled": "canceled"}
    expected_ids = {"all": set(by_id), "verification": set(by_id),
                    "canceled": {e["id"] for e in events if e["type"] == "verification.canceled"}}

    for name, path in paths.items():
        received = receiver.wait_for(path, len(expected_ids[name]), timeout=10, what=f"endpoint {name}")
        for request in received:
            event = by_id.get(request.headers.get("webhook-id"))
            assert event is not None, f"{name}: webhook-id {request.headers.get('webhook-id')} is no event of {vid}"
            assert_message(request, [endpoints[name]["secret"]], event, vid, statuses[event["type"]])
    time.sleep(1.5)  # anything extra (a duplicate, an unsubscribed type) would have come by now
    for name, path in paths.items():
        ids = [request.headers.get("webhook-id") for request in receiver.requests_to(path)]
        assert sorted(ids) == sorted(expected_ids[name]), (
            f"endpoint {name} ({endpoints[name]['events']}) received {ids}, expected each of "
            f"{sorted(expected_ids[name])} once"
        )
    # The log agrees: one succeeded first attempt per message.
    for name in paths:
        rows = all_deliveries(client, endpoints[name]["id"])
        for row in rows:
            assert_delivery_row(row, by_id[row["event_id"]])
        assert sorted(((row["event_id"], row["attempt"], row["status"], row["response_status"], row["error"])
                       for row in rows), key=repr) == sorted(((event_id, 1, "succeeded", 200, None)
                                                              for event_id in expected_ids[name]), key=repr), (
            f"endpoint {name}: {describe_rows(rows)}")


def test_rotation_signs_with_the_old_and_the_new_secret(client, receiver):
    path = new_path("rotate")
    endpoint = create_endpoint(client, receiver.url(path))
    old = endpoint["secret"]
    rotated = client.call("POST", f"/v1/webhook_endpoints/{endpoint['id']}/rotate_secret")
    new = rotated.get("secret")
    shaped = isinstance(new, str) and new.startswith("whsec_") and len(secret_key_bytes(new)) == 32
    assert shaped, "rotate_secret did not answer a new whsec_ secret of 32 bytes"
    same = new == old
    assert not same, "rotate_secret answered the old secret"
    assert {k: v for k, v in rotated.items() if k != "secret"} == {k: v for k, v in endpoint.items() if k != "secret"}
    fetched = client.request("GET", f"/v1/webhook_endpoints/{endpoint['id']}")
    leaked = "secret" in fetched.json() or new in fetched.text or new[6:] in fetched.text
    assert not leaked, "GET shows the rotated secret"

    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    request = receiver.wait_for(path, 1, timeout=5)[0]
    assert_message(request, [new, old], event, verification["id"], "created")
    # Order as specified: `v1,<new> v1,<old>`.
    stamp = datetime.fromtimestamp(int(request.headers["webhook-timestamp"]), tz=timezone.utc)
    body = request.body.decode()
    expected = f"{Webhook(new).sign(event['id'], stamp, body)} {Webhook(old).sign(event['id'], stamp, body)}"
    assert request.headers["webhook-signature"] == expected, "the signature header is not `v1,<new> v1,<old>`"


# --- retries --------------------------------------------------------------------------------

def test_500_500_200_is_three_attempts_on_the_schedule(client, receiver):
    path = new_path("retry")
    receiver.program(path, [500, 500, 200])
    endpoint = create_endpoint(client, receiver.url(path))
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]

    attempts = receiver.wait_for(path, 3, timeout=schedule_bound(STEPS[:2]), what="500, 500, 200")
    for request in attempts:
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    stamps = [int(request.headers["webhook-timestamp"]) for request in attempts]
    assert stamps[0] < stamps[1] < stamps[2], f"webhook-timestamp does not increase over the attempts: {stamps}"
    for number, step in enumerate(STEPS[:2], start=1):
        gap = attempts[number].at - attempts[number - 1].at
        low, high = step_window(step)
        assert low <= gap <= high, f"attempt {number + 1} came {gap:.2f} s after attempt {number}; schedule step {step} s"

    rows = wait_rows(client, endpoint["id"], event["id"], succeeded, "the third attempt logged as succeeded")
    for row in rows:
        assert_delivery_row(row, event)
    assert [row["attempt"] for row in rows] == [3, 2, 1], f"not one row per attempt, newest first: {describe_rows(rows)}"
    assert [row["status"] for row in rows] == ["succeeded", "failed", "failed"], describe_rows(rows)
    assert [row["response_status"] for row in rows] == [200, 500, 500], describe_rows(rows)
    assert [row["error"] for row in rows] == [None, "HTTP 500", "HTTP 500"], describe_rows(rows)
    assert rows[0]["next_attempt_at"] is None, describe_rows(rows)
    # A retried attempt's next_attempt_at is when the next one came.
    for row, following in ((rows[2], attempts[1]), (rows[1], attempts[2])):
        assert row["next_attempt_at"] is not None, describe_rows(rows)
        due = parse_time(row["next_attempt_at"]).timestamp()
        assert due - 1.0 <= following.at <= due + LATENCY + 1.0, (
            f"attempt {row['attempt'] + 1} came at {following.at:.2f}, its next_attempt_at says {due:.2f}"
        )

    first = deliveries_page(client, endpoint["id"], limit=2)
    assert [row["attempt"] for row in first["data"]] == [3, 2] and first["has_more"] is True, describe_rows(first["data"])
    rest = deliveries_page(client, endpoint["id"], limit=2, starting_after=first["data"][-1]["id"])
    assert [row["attempt"] for row in rest["data"]] == [1] and rest["has_more"] is False, describe_rows(rest["data"])

    dev = client.call("GET", "/dev/webhooks")
    messages = [m for m in dev["data"] if m.get("event_id") == event["id"] and m.get("endpoint_id") == endpoint["id"]]
    assert len(messages) == 1, f"GET /dev/webhooks lists {len(messages)} messages for the event"
    assert messages[0]["url"] == endpoint["url"] and messages[0]["event_type"] == "verification.created", messages[0]
    assert sorted(a["attempt"] for a in messages[0]["attempts"]) == [1, 2, 3], messages[0]["attempts"]

    time.sleep(1.5)
    assert len(receiver.requests_to(path)) == 3, "an attempt came after the success"


def test_a_retry_carries_the_status_right_after_its_event(client, receiver):
    """The verification changes between two attempts: the retried message is the same message
    (its event's status, not the current one)."""
    path = new_path("retry-status")
    receiver.program(path, [500], then=200)
    endpoint = create_endpoint(client, receiver.url(path), events=["verification.created"])
    verification = create_verification(client)
    first = receiver.wait_for(path, 1, timeout=5, what="the first attempt")[0]
    cancel(client, verification["id"])
    event = events_of(client, verification["id"])[0]
    retry = receiver.wait_for(path, 2, timeout=schedule_bound(STEPS[:1]), what="the retry")[1]
    for request in (first, retry):
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    assert retry.body == first.body, "the retry's body differs from the first attempt's"


def test_410_disables_the_endpoint_at_once(client, receiver):
    path = new_path("gone")
    receiver.program(path, [410])
    endpoint = create_endpoint(client, receiver.url(path))
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    request = receiver.wait_for(path, 1, timeout=5)[0]
    assert_message(request, [endpoint["secret"]], event, verification["id"], "created")

    def disabled_endpoint():
        current = client.call("GET", f"/v1/webhook_endpoints/{endpoint['id']}")
        return current if current["status"] == "disabled" else None

    disabled = wait_until(disabled_endpoint, 5, "the endpoint disabled after 410")
    assert disabled["disabled_reason"] == "gone", disabled
    rows = wait_rows(client, endpoint["id"], event["id"], lambda rows: rows and rows[0]["status"] == "failed",
                     "the 410 attempt logged as failed")
    assert len(rows) == 1, f"a 410 was followed by another attempt row: {describe_rows(rows)}"
    assert rows[0]["response_status"] == 410 and rows[0]["error"] == "HTTP 410", describe_rows(rows)
    assert rows[0]["next_attempt_at"] is None, f"a retry is scheduled after 410: {describe_rows(rows)}"

    later = create_verification(client)
    later_event = events_of(client, later["id"])[0]
    time.sleep(step_window(STEPS[0])[1] + 0.5)  # past when a retry (or the new event) would have come
    assert len(receiver.requests_to(path)) == 1, (
        f"{len(receiver.requests_to(path))} requests after a 410 disabled the endpoint, expected 1"
    )
    assert rows_of(client, endpoint["id"], later_event["id"]) == [], "a disabled endpoint got a message"
    assert [row["attempt"] for row in rows_of(client, endpoint["id"], event["id"])] == [1]

    enabled = client.call("PATCH", f"/v1/webhook_endpoints/{endpoint['id']}", {"status": "enabled"})
    assert enabled["status"] == "enabled" and enabled["disabled_reason"] is None, enabled


def test_retry_after_is_honoured_up_to_the_next_step(client, receiver):
    path = new_path("retry-after")
    # After the first failure the step is 2 s and the following one 4 s: Retry-After 3 waits 3 s.
    # After the second the following step is 4 s: Retry-After 3600 is capped at 4 s.
    receiver.program(path, [(429, {"Retry-After": "3"}), (503, {"Retry-After": "3600"}), 200])
    endpoint = create_endpoint(client, receiver.url(path))
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    attempts = receiver.wait_for(path, 3, timeout=3 * 1.1 + 4 * 1.1 + 2 * LATENCY + 3, what="429, 503, 200")
    for request in attempts:
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    first_gap = attempts[1].at - attempts[0].at
    assert first_gap >= 3 - 0.05, f"the attempt after 429 Retry-After: 3 came after {first_gap:.2f} s"
    assert first_gap <= 3 * (1 + JITTER) + LATENCY, f"the attempt after 429 Retry-After: 3 came after {first_gap:.2f} s"
    second_gap = attempts[2].at - attempts[1].at
    low, high = step_window(STEPS[2])
    assert low <= second_gap <= high, (
        f"after 503 Retry-After: 3600 the next attempt came after {second_gap:.2f} s; expected the cap, the "
        f"following step of {STEPS[2]} s"
    )
    rows = wait_rows(client, endpoint["id"], event["id"], succeeded, "the third attempt logged as succeeded")
    assert [(row["attempt"], row["status"], row["response_status"]) for row in rows] == [
        (3, "succeeded", 200), (2, "failed", 503), (1, "failed", 429)], describe_rows(rows)


def test_a_redirect_is_a_failure_and_is_never_followed(client, receiver):
    path, target = new_path("redirect"), new_path("redirect-target")
    receiver.program(path, [(301, {"Location": receiver.url(target)}), 200])
    receiver.program(target, [], then=200)
    endpoint = create_endpoint(client, receiver.url(path))
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    attempts = receiver.wait_for(path, 2, timeout=schedule_bound(STEPS[:1]), what="301 then 200")
    for request in attempts:
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    rows = wait_rows(client, endpoint["id"], event["id"], succeeded, "the retry after 301 logged as succeeded")
    assert [(row["attempt"], row["status"], row["response_status"], row["error"]) for row in rows] == [
        (2, "succeeded", 200, None), (1, "failed", 301, "HTTP 301")], describe_rows(rows)
    time.sleep(0.5)
    followed = receiver.requests_to(target)
    assert followed == [], f"the redirect's Location was requested {len(followed)} time(s)"


def test_an_attempt_past_the_timeout_fails_with_timeout(client, receiver):
    path = new_path("timeout")
    receiver.program(path, ["sleep 5", 200])
    endpoint = create_endpoint(client, receiver.url(path))
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    attempts = receiver.wait_for(path, 2, timeout=TIMEOUT + schedule_bound(STEPS[:1]), what="a slow answer, then 200")
    for request in attempts:
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    gap = attempts[1].at - attempts[0].at
    low, high = step_window(STEPS[0])
    assert TIMEOUT + low <= gap <= TIMEOUT + high + 0.5, (
        f"the retry came {gap:.2f} s after the slow attempt; expected the {TIMEOUT} s timeout plus the {STEPS[0]} s step"
    )
    rows = wait_rows(client, endpoint["id"], event["id"], succeeded, "the retry after the timeout logged as succeeded")
    assert [row["attempt"] for row in rows] == [2, 1], describe_rows(rows)
    slow = rows[1]
    assert slow["status"] == "failed" and slow["error"] == "timeout" and slow["response_status"] is None, describe_rows(rows)
    assert TIMEOUT * 1000 * 0.9 <= slow["duration_ms"] <= TIMEOUT * 1000 + 1500, (
        f"the timed-out attempt took {slow['duration_ms']} ms, the timeout is {TIMEOUT} s"
    )


def test_an_exhausted_schedule_fails_the_message_and_recover_sends_it_again(client, receiver):
    path = new_path("exhausted")
    receiver.program(path, [], then=500)
    endpoint = create_endpoint(client, receiver.url(path))
    since = int(time.time()) - 1
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    attempts = receiver.wait_for(path, 1 + len(STEPS), timeout=schedule_bound(STEPS), what="every attempt failing")
    for request in attempts:
        assert_message(request, [endpoint["secret"]], event, verification["id"], "created")
    for number, step in enumerate(STEPS, start=1):
        gap = attempts[number].at - attempts[number - 1].at
        low, high = step_window(step)
        assert low <= gap <= high, f"attempt {number + 1} came {gap:.2f} s after attempt {number}; step {step} s"

    last = 1 + len(STEPS)
    rows = wait_rows(client, endpoint["id"], event["id"],
                     lambda rows: rows and rows[0]["attempt"] == last and rows[0]["status"] == "failed",
                     "the last attempt logged as failed")
    assert [row["attempt"] for row in rows] == list(range(last, 0, -1)), describe_rows(rows)
    assert all(row["status"] == "failed" and row["response_status"] == 500 for row in rows), describe_rows(rows)
    assert rows[0]["next_attempt_at"] is None, f"the message is not failed for good: {describe_rows(rows)}"
    assert all(row["next_attempt_at"] is not None for row in rows[1:]), describe_rows(rows)
    time.sleep(2.5)
    assert len(receiver.requests_to(path)) == last, "an attempt came after the schedule was exhausted"
    assert client.call("GET", f"/v1/webhook_endpoints/{endpoint['id']}")["status"] == "enabled"

    receiver.program(path, [], then=200)
    queued = client.call("POST", f"/v1/webhook_endpoints/{endpoint['id']}/recover", {"since": since}, expected=(202,))
    assert queued == {"queued": 1}, f"recover of a failed message answered {queued}"
    again = receiver.wait_for(path, last + 1, timeout=5, what="the recovered message")[-1]
    assert_message(again, [endpoint["secret"]], event, verification["id"], "created")
    wait_rows(client, endpoint["id"], event["id"], succeeded, "the recovered message logged as succeeded")
    assert client.call("POST", f"/v1/webhook_endpoints/{endpoint['id']}/recover", {"since": since},
                       expected=(202,)) == {"queued": 0}, "recover queued a message that was delivered"


def test_recover_queues_events_that_were_never_delivered(client, receiver):
    path = new_path("recover")
    endpoint = create_endpoint(client, receiver.url(path))
    client.call("PATCH", f"/v1/webhook_endpoints/{endpoint['id']}", {"status": "disabled"})
    since = time.time() - 1
    verification = create_verification(client)
    vid = verification["id"]
    cancel(client, vid)
    events = events_of(client, vid)
    time.sleep(1.5)
    assert receiver.requests_to(path) == [], "a disabled endpoint received messages"
    assert all_deliveries(client, endpoint["id"]) == [], "a disabled endpoint got deliveries"
    client.call("PATCH", f"/v1/webhook_endpoints/{endpoint['id']}", {"status": "enabled"})

    recover = f"/v1/webhook_endpoints/{endpoint['id']}/recover"
    assert client.call("POST", recover, {"since": rfc3339(time.time() + 60)}, expected=(202,)) == {"queued": 0}
    for bad in ({"since": "yesterday"}, {}, {"since": None}):
        response = client.request("POST", recover, bad)
        assert response.status_code == 422, f"recover {bad} answered {response.status_code}: {response.text[:200]}"
    assert client.call("POST", recover, {"since": rfc3339(since)}, expected=(202,)) == {"queued": 2}
    received = receiver.wait_for(path, 2, timeout=5, what="the recovered messages")
    by_id = {event["id"]: event for event in events}
    assert sorted(r.headers.get("webhook-id") for r in received) == sorted(by_id)
    for request in received:
        event = by_id[request.headers["webhook-id"]]
        # `status` is the verification's right after the event, not its current one.
        assert_message(request, [endpoint["secret"]], event, vid,
                       "created" if event["type"] == "verification.created" else "canceled")
    for event in events:
        wait_rows(client, endpoint["id"], event["id"], succeeded, f"the recovered {event['type']} logged as succeeded")
    assert client.call("POST", recover, {"since": int(since)}, expected=(202,)) == {"queued": 0}

    # An endpoint made afterwards, for one type: recover brings exactly the matching event.
    later_path = new_path("recover-later")
    later = create_endpoint(client, receiver.url(later_path), events=["verification.canceled"])
    assert client.call("POST", f"/v1/webhook_endpoints/{later['id']}/recover", {"since": int(since)},
                       expected=(202,)) == {"queued": 1}
    request = receiver.wait_for(later_path, 1, timeout=5)[0]
    assert_message(request, [later["secret"]], events[1], vid, "canceled")
    time.sleep(1)
    assert len(receiver.requests_to(later_path)) == 1


def test_the_test_endpoint_sends_webhook_test(client, receiver):
    path = new_path("test-message")
    endpoint = create_endpoint(client, receiver.url(path))
    queued = client.call("POST", f"/v1/webhook_endpoints/{endpoint['id']}/test", expected=(202,))
    assert set(queued) == {"queued", "event_id"} and queued["queued"] == 1, queued
    assert re.fullmatch(r"evt_[A-Za-z0-9]+", queued["event_id"]), queued
    request = receiver.wait_for(path, 1, timeout=5)[0]
    body = assert_message(request, [endpoint["secret"]], {"id": queued["event_id"], "type": "webhook.test"},
                          None, None)
    assert body["data"]["sequence"] is None
    rows = wait_rows(client, endpoint["id"], queued["event_id"], succeeded, "the test message logged as succeeded")
    assert rows[0]["event_type"] == "webhook.test", describe_rows(rows)


# --- SSRF -----------------------------------------------------------------------------------

REFUSED_ADDRESSES = {
    "internal": "10.0.0.1", "private172": "172.16.0.1", "router": "192.168.1.1", "cgnat": "100.64.0.1",
    "metadata": "169.254.169.254", "linklocal": "169.254.1.1", "multicast": "224.0.0.1",
    "unspecified": "0.0.0.0", "ula": "fc00::1", "metadata6": "fd00:ec2::254", "linklocal6": "fe80::1",
    "unspecified6": "::", "mapped": "::ffff:10.0.0.1",
}


def test_urls_to_private_addresses_are_refused(client, receiver, deployment):
    tag = uuid.uuid4().hex[:6]
    for name, address in REFUSED_ADDRESSES.items():
        deployment.hosts.set(f"{name}-{tag}.test", address)
    deployment.hosts.set(f"public-{tag}.test", "93.184.216.34")
    deployment.hosts.set(f"loop-{tag}.test", "127.0.0.1")
    port = receiver.port
    refused = [f"https://{name}-{tag}.test/hook" for name in REFUSED_ADDRESSES]
    refused += [f"https://metadata-{tag}.test/latest/meta-data/"]
    refused += [
        "https://10.0.0.1/hook", "https://10.255.255.254:8443/hook", "https://172.31.255.1/", "https://192.168.1.1/",
        "https://100.64.0.1/", "https://169.254.169.254/latest/meta-data/", "https://169.254.1.1/",
        "https://224.0.0.1/", "https://0.0.0.0/", "https://[fc00::1]/", "https://[fd00:ec2::254]/",
        "https://[fe80::1]/", "https://[ff02::1]/", "https://[::]/", "https://[::ffff:10.0.0.1]/",
        "https://[::ffff:169.254.169.254]/", "https://167772161/", "https://0xa9fea9fe/",
        "https://0251.0376.0251.0376/", "https://10.1/",
        f"https://nowhere-{tag}.test/hook",  # resolves nowhere
        f"http://user:pass@127.0.0.1:{port}/hook", f"https://user:pass@loop-{tag}.test/hook",
        f"http://public-{tag}.test/hook", "http://93.184.216.34/hook", "http://8.8.8.8/",  # http, not loopback
    ]
    problems = []
    for url in refused:
        status, code = refused_create(client, {"url": url})
        if (status, code) != (422, "webhook_url_not_allowed"):
            problems.append(f"{url}: {status} {code}" + (" (accepted, deleted at once)" if status == 201 else ""))
    assert client.call("GET", "/v1/webhook_endpoints")["data"] == [], "a refused endpoint is listed"
    assert not problems, "expected 422 webhook_url_not_allowed for:\n" + "\n".join(problems)

    # Loopback over http is fine in dev mode, by address and by a name the hosts file maps to it.
    create_endpoint(client, receiver.url(new_path("loopback")))
    create_endpoint(client, receiver.url(new_path("loopback-name"), host=f"loop-{tag}.test"))


def test_a_name_remapped_to_a_private_address_is_caught_at_delivery(client, receiver, deployment):
    name = f"rebind-{uuid.uuid4().hex[:6]}.test"
    deployment.hosts.set(name, "127.0.0.1")
    path = new_path("rebind")
    endpoint = create_endpoint(client, receiver.url(path, host=name))
    # The name works while it maps to loopback ...
    probe = client.call("POST", f"/v1/webhook_endpoints/{endpoint['id']}/test", expected=(202,))
    request = receiver.wait_for(path, 1, timeout=5, what="the test message through the hosts-file name")[0]
    assert_message(request, [endpoint["secret"]], {"id": probe["event_id"], "type": "webhook.test"}, None, None)
    # ... and once it maps to 10.0.0.1 the attempt is refused before any connection.
    deployment.hosts.set(name, "10.0.0.1")
    verification = create_verification(client)
    event = events_of(client, verification["id"])[0]
    try:
        rows = wait_rows(client, endpoint["id"], event["id"],
                         lambda rows: any(row["status"] == "failed" for row in rows),
                         "the attempt to the remapped name logged as failed")
    finally:
        # No retry goes anywhere: the endpoint goes before anything else is asserted.
        client.request("DELETE", f"/v1/webhook_endpoints/{endpoint['id']}")
    failed = [row for row in rows if row["status"] == "failed"][0]
    assert failed["error"] == "address not allowed" and failed["response_status"] is None, describe_rows(rows)
    assert len(receiver.requests_to(path)) == 1, "the remapped name still reached the loopback receiver"


# --- timing, concurrency --------------------------------------------------------------------

def test_the_first_attempt_comes_within_a_second(client, receiver):
    path = new_path("latency")
    create_endpoint(client, receiver.url(path))
    latencies = []
    for count in range(1, 6):
        create_verification(client)
        returned = time.time()
        request = receiver.wait_for(path, count, timeout=5, what=f"message {count}")[-1]
        latencies.append(request.at - returned)
    assert max(latencies) <= 1.0 + 0.5, (
        f"first attempts came {[round(latency, 3) for latency in latencies]} s after the create returned "
        "(expected within 1 s, plus 0.5 s slack)"
    )


def test_at_most_four_requests_at_once_per_endpoint(client, receiver):
    path = new_path("concurrency")
    receiver.program(path, [], then={"status": 200, "sleep": 1.0})
    create_endpoint(client, receiver.url(path))
    for _ in range(10):
        create_verification(client)
    receiver.wait_for(path, 10, timeout=20, what="10 slow messages")
    assert receiver.max_inflight(path) <= 4, f"{receiver.max_inflight(path)} requests to one endpoint at once"


# --- crash, several processes ---------------------------------------------------------------

def test_a_delivery_cut_by_kill_9_is_delivered_after_restart(receiver, tmp_path):
    deployment = _deployment(tmp_path, schedule=SCHEDULE, timeout=5)
    try:
        first_process = _start(deployment)
        client = _client(deployment)
        path = new_path("crash")
        receiver.program(path, ["sleep 30"], then=200)
        endpoint = create_endpoint(client, receiver.url(path))
        verification = create_verification(client)
        event = events_of(client, verification["id"])[0]
        cut = receiver.wait_for(path, 1, timeout=5, what="the first attempt")[0]
        first_process.kill9()
        killed_at = time.time()
        assert cut.at > killed_at - 5, "the kill came after the attempt's own timeout"
        assert_message(cut, [endpoint["secret"]], event, verification["id"], "created")

        restarted = _start(deployment)  # same database
        client = client.moved_to(restarted)
        # The lease (timeout + 5 s) runs out, then the retry schedule: bounded generously.
        again = receiver.wait_for(path, 2, timeout=5 + 5 + schedule_bound(STEPS[:1], extra=8),
                                  what="the delivery after the restart")[1]
        assert again.headers.get("webhook-id") == event["id"], "the redelivery is another message"
        assert_message(again, [endpoint["secret"]], event, verification["id"], "created")
        rows = wait_rows(client, endpoint["id"], event["id"], succeeded, "the redelivery logged as succeeded")
        for row in rows:
            assert_delivery_row(row, event)
    finally:
        problems = deployment.close()
    assert not problems, "\n".join(problems)


def test_two_processes_on_postgresql_deliver_each_event_once(receiver, tmp_path):
    admin_url = os.environ.get("HOSTED_TEST_POSTGRES_URL")
    if not admin_url:
        pytest.skip("HOSTED_TEST_POSTGRES_URL is not set: run under scripts/with-postgres.sh to test two serve "
                    "processes on one PostgreSQL database")
    from hostile_support import create_database, drop_database

    name = f"webhooks_{uuid.uuid4().hex[:12]}"
    database_url = create_database(admin_url, name)
    deployment = None
    try:
        deployment = _deployment(tmp_path, schedule=SCHEDULE, timeout=TIMEOUT, database_url=database_url,
                                 secret_key=Secret(secrets.token_hex(32)))
        first, second = _start(deployment), _start(deployment)
        client_one = _client(deployment, first)
        client_two = client_one.moved_to(second)
        path = new_path("two-processes")
        endpoint = create_endpoint(client_one, receiver.url(path))

        def lifecycle(number: int) -> str:
            creator, canceler = (client_one, client_two) if number % 2 else (client_two, client_one)
            verification = create_verification(creator)
            cancel(canceler, verification["id"])
            return verification["id"]

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=8) as pool:
            verification_ids = list(pool.map(lifecycle, range(50)))
        events = {event["id"]: (vid, event) for vid in verification_ids for event in events_of(client_one, vid)}
        assert len(events) == 100, f"{len(events)} events for 50 creates and 50 cancels"

        receiver.wait_distinct(path, "webhook-id", 100, timeout=60)
        elapsed = time.monotonic() - started
        time.sleep(3)  # a duplicate delivery would come now
        received = receiver.requests_to(path)
        counts = Counter(request.headers.get("webhook-id") for request in received)
        assert set(counts) == set(events), (
            f"received webhook-ids that are no event: {sorted(set(counts) - set(events))[:5]}"
        )
        duplicates = {event_id: count for event_id, count in counts.items() if count != 1}
        assert not duplicates, f"{len(duplicates)} events delivered more than once, e.g. {list(duplicates.items())[:5]}"
        for request in received:
            vid, event = events[request.headers["webhook-id"]]
            assert_message(request, [endpoint["secret"]], event, vid,
                           "created" if event["type"] == "verification.created" else "canceled")
        assert elapsed <= 60, f"100 events took {elapsed:.1f} s to deliver"
    finally:
        problems = deployment.close() if deployment else []
        drop_database(admin_url, name)
    assert not problems, "\n".join(problems)
