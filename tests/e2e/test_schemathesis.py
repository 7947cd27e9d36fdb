"""The live server against its published contract (`GET /v1/openapi.yaml`).

Schemathesis generates requests for every operation of the contract (its examples, coverage
and fuzzing phases, positive and negative inputs, at most 30 generated examples per operation)
and checks each answer: no 5xx, a documented status code, a documented content type, a body
matching the documented schema, and the documented response headers (`ETag`, `Retry-After`).
Each operation is reported as its own sub-test, e.g.
`test_api_conforms_to_contract[POST /v1/verifications]`.
"""

from __future__ import annotations

import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

# Longest long-poll a generated request may ask for, so a run stays short.
MAX_WAIT_SECONDS = 1

schema = schemathesis.pytest.from_fixture("api_schema")


@schemathesis.hook
def map_query(ctx, query):
    """Cap generated `?wait=` values on GET /v1/verifications/{id} so no example long-polls for
    long. (The coverage phase's boundary values, 29 and 30, bypass hooks, but they go to random
    ids, which answer 404 at once.)"""
    if query and isinstance(query.get("wait"), int) and query["wait"] > MAX_WAIT_SECONDS:
        query["wait"] = MAX_WAIT_SECONDS
    return query


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_contract(case):
    case.call_and_validate(checks=CHECKS, timeout=40)


def _call(api_schema, operation_id, expected_status, **parts):
    """One explicit request, checked with the same contract checks as the generated ones."""
    __tracebackhide__ = True
    case = api_schema.find_operation_by_id(operation_id).Case(**parts)
    # Hand-made cases do not pick up the configured headers by themselves.
    response = case.call_and_validate(headers=dict(api_schema.config.headers or {}), checks=CHECKS, timeout=40)
    assert response.status_code == expected_status, (
        f"{operation_id}: expected {expected_status}, got {response.status_code}: {response.text[:500]}"
    )
    return response


def test_verification_lifecycle_follows_contract(api_schema):
    """The answers fuzzing cannot reach with random ids (200 with ETag, 304, long-poll, 409
    on a closed verification), for one real verification, checked against the contract."""
    # Its own workflow and a fresh registration of the return URL, so whatever the fuzzing run
    # did to `kyc_basic` or the registered URLs does not matter here.
    workflow = {
        "key": "e2e_lifecycle",
        "name": "E2E lifecycle",
        "steps": [{"type": "profile"}, {"type": "premises_photos", "id": "shop", "min": 2, "max": 3}],
    }
    made = _call(api_schema, "createWorkflow", 201, body=workflow).json()
    assert made["key"] == "e2e_lifecycle" and made["version"] >= 1
    assert [(step["id"], step["type"]) for step in made["steps"]] == [("profile", "profile"), ("shop", "premises_photos")]
    _call(api_schema, "getWorkflow", 200, path_parameters={"key": "e2e_lifecycle"})
    registered = (
        api_schema.find_operation_by_id("createReturnURL")
        .Case(body={"url": "https://app.example.com/kyc/done"})
        .call_and_validate(headers=dict(api_schema.config.headers or {}), checks=CHECKS, timeout=40)
    )
    assert registered.status_code in (200, 201), registered.text[:500]

    body = {
        "user_id": "e2e-lifecycle@example",
        "workflow": "e2e_lifecycle",
        "mobile": "+919876543210",
        "return_url": "https://app.example.com/kyc/done",
        "metadata": {"order": "42"},
    }
    created = _call(api_schema, "createVerification", 201, body=body).json()
    assert created["status"] == "created"
    assert created["mobile_last4"] == "3210"
    assert created["workflow"] == "e2e_lifecycle" and created["workflow_version"] == made["version"]
    assert [(step["id"], step["status"]) for step in created["steps"]] == [("profile", "pending"), ("shop", "pending")]
    vid = created["id"]

    again = _call(api_schema, "createVerification", 200, body=body).json()
    assert again["id"] == vid

    got = _call(api_schema, "getVerification", 200, path_parameters={"id": vid})
    etag = got.headers["etag"][0]
    _call(api_schema, "getVerification", 304, path_parameters={"id": vid}, headers={"If-None-Match": etag})
    _call(
        api_schema,
        "getVerification",
        304,
        path_parameters={"id": vid},
        headers={"If-None-Match": etag},
        query={"wait": 1},
    )

    patched = _call(
        api_schema, "updateVerification", 200, path_parameters={"id": vid}, body={"metadata": {"order": "43"}}
    ).json()
    assert patched["metadata"] == {"order": "43"}
    changed = _call(api_schema, "getVerification", 200, path_parameters={"id": vid}, headers={"If-None-Match": etag})
    assert changed.headers["etag"][0] != etag

    listed = _call(api_schema, "listVerifications", 200, query={"user_id": body["user_id"], "limit": 1}).json()
    assert [item["id"] for item in listed["data"]] == [vid]

    canceled = _call(api_schema, "cancelVerification", 200, path_parameters={"id": vid}).json()
    assert canceled["status"] == "canceled"
    # A retried cancel is not an error: the verification comes back unchanged.
    again_canceled = _call(api_schema, "cancelVerification", 200, path_parameters={"id": vid}).json()
    assert again_canceled["status"] == "canceled"
    assert again_canceled["updated_at"] == canceled["updated_at"]
    closed = _call(api_schema, "updateVerification", 409, path_parameters={"id": vid}, body={"metadata": {}})
    assert closed.json()["code"] == "verification_closed"

    # A canceled verification no longer blocks a new one for the same user and workflow.
    fresh = _call(api_schema, "createVerification", 201, body=body).json()
    assert fresh["id"] != vid


def test_account_without_key_is_401_problem(hosted):
    for headers in ({}, {"Authorization": "Bearer sk_not_a_real_key"}, {"Authorization": "Basic Zm9vOmJhcg=="}):
        response = requests.get(f"{hosted.base_url}/v1/account", headers=headers, timeout=10)
        assert response.status_code == 401, (headers, response.status_code, response.text)
        assert response.headers["Content-Type"].split(";")[0].strip() == "application/problem+json"
        body = response.json()
        assert body["status"] == 401
        assert body["code"] == "unauthorized"
        assert isinstance(body["title"], str) and isinstance(body["detail"], str)
        assert "sk_not_a_real_key" not in response.text


def test_account_with_key(hosted):
    response = requests.get(f"{hosted.base_url}/v1/account", headers=hosted.auth_headers, timeout=10)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "account"
    assert body["id"] == hosted.account_id
    assert body["name"] == "e2e"


def test_server_log_never_contains_the_api_key(hosted):
    # Runs last in this module, after the contract run has sent the key many times. The session
    # fixture checks the log once more after the server has exited and flushed everything.
    log = hosted.log_text()
    assert log, "the server wrote nothing to stderr"
    assert hosted.api_key not in log, "the server log contains the API key"
    # Key prefixes are allowed ("logs show key prefixes at most"); the secret part is not.
    secret_part = hosted.api_key.split("_", 1)[-1]
    assert secret_part not in log, "the server log contains the API key's secret part"
