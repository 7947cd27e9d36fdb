"""The live server against its published contract (`GET /v1/openapi.yaml`).

Schemathesis generates requests for every operation of the contract (its examples, coverage
and fuzzing phases, positive and negative inputs, at most 30 generated examples per operation)
and checks each answer: no 5xx, a documented status code, a documented content type, and a
body matching the documented schema. Each operation is reported as its own sub-test, e.g.
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
    """Cap `?wait=` on GET /v1/verifications/{id}: a 30 s long-poll per example would be too slow."""
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
