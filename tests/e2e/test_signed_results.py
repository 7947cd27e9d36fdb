"""The signed result on return, verified as a customer would (issue 40, docs/results.md).

A real browser journey (Chromium; a workflow with a profile step only) is sent to a loopback
return page; the fragment of the URL it lands on, `#hosted_result=<JWS>`, is verified with
jwcrypto (a JOSE library from PyPI) against only the keys served at `/.well-known/jwks.json`,
and its claims are checked: `aud` the account, `sub` the verification, `status` submitted,
the `nonce` given when the handoff was created, `exp - iat` = 600. Then `hosted signing-keys
rotate`: the next result names the new `kid`, and the JWKS still serves the old one.

The server is `journey_hosted` (conftest.py) through an account of this module's own.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import subprocess
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from jwcrypto import jwk, jws

from conftest import REPO_ROOT, _create_account
from test_journey_signin import _api, mint_handoff
from test_journey_steps import MOBILE, fill_profile, on_review, wait_until
from browser import wait_for_state

WORKFLOW = {"key": "kyc_profile", "name": "Profile only", "steps": [{"type": "profile"}]}


@pytest.fixture(scope="module")
def results_hosted(journey_hosted, return_page, tmp_path_factory):
    """`journey_hosted` through an account whose workflow is one profile step and whose
    registered return URL is the loopback `return_page`."""
    created = _create_account(journey_hosted.binary, journey_hosted.cli_env, tmp_path_factory.mktemp("results-account"))
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    for path, body in (("/v1/return_urls", {"url": return_page.url}), ("/v1/workflows", WORKFLOW)):
        _api(server, "POST", path, body, expected=(200, 201))
    return server


def served_keys(server) -> tuple[jwk.JWKSet, list[str], requests.Response]:
    """The JWKS exactly as served (no key from anywhere else), its kids, and the response."""
    response = requests.get(server.base_url + "/.well-known/jwks.json", timeout=10)
    assert response.status_code == 200, response.text[:300]
    keyset = jwk.JWKSet.from_json(response.text)
    return keyset, [key["kid"] for key in response.json()["keys"]], response


def journey_to_the_return_page(driver, server, return_page, request, nonce: str | None) -> tuple[str, str]:
    """A verification worked through in the browser: its id and the URL the browser lands on."""
    body = {"user_id": f"e2e-results-{uuid.uuid4().hex[:10]}", "workflow": WORKFLOW["key"], "mobile": MOBILE,
            "return_url": return_page.url}
    verification = _api(server, "POST", "/v1/verifications", body, expected=(201,))
    handoff = mint_handoff(server, verification, **({"nonce": nonce} if nonce is not None else {}))
    driver.get(handoff["url"])
    wait_for_state(driver, "step")
    fill_profile(driver)
    on_review(driver).click()
    base = return_page.url.split("?")[0]
    wait_until(driver, lambda d: d.current_url.startswith(base), f"the return URL {base}")
    return verification["id"], driver.current_url


def verified(token: str, keyset: jwk.JWKSet) -> tuple[dict, dict]:
    """jwcrypto's verification with the served keys only, ES256 only: (header, claims)."""
    signed = jws.JWS()
    signed.allowed_algs = ["ES256"]
    signed.deserialize(token)
    signed.verify(keyset)  # picks the key by the header's kid; raises when nothing verifies
    return signed.jose_header, json.loads(signed.payload)


def result_of(landed: str) -> str:
    fragment = urlsplit(landed).fragment
    assert fragment.startswith("hosted_result="), f"no signed result in the landing URL: {landed}"
    return fragment[len("hosted_result="):]


def test_the_landing_url_carries_a_result_verified_with_the_served_jwks(browser, results_hosted, return_page, request):
    nonce = f"n-{uuid.uuid4().hex}"
    verification_id, landed = journey_to_the_return_page(browser, results_hosted, return_page, request, nonce)
    query = parse_qs(urlsplit(landed).query)
    assert query == {"src": ["app"], "verification_id": [verification_id], "status": ["submitted"]}, landed
    keyset, kids, response = served_keys(results_hosted)
    assert response.headers["Cache-Control"] == "max-age=300"
    header, claims = verified(result_of(landed), keyset)
    assert header == {"alg": "ES256", "kid": header["kid"], "typ": "hosted-result+jwt"}
    assert header["kid"] in kids
    assert claims["iss"] == results_hosted.base_url
    assert claims["aud"] == results_hosted.account_id
    assert claims["sub"] == verification_id
    assert claims["status"] == "submitted"
    assert claims["workflow"] == WORKFLOW["key"]
    assert claims["livemode"] is True
    assert claims["nonce"] == nonce
    assert claims["exp"] - claims["iat"] == 600
    assert abs(claims["iat"] - time.time()) < 120
    assert isinstance(claims["jti"], str) and len(claims["jti"]) >= 16
    # The poll agrees: the result said what was true at return.
    assert _api(results_hosted, "GET", f"/v1/verifications/{verification_id}")["status"] == "submitted"
    # A changed claim no longer verifies.
    token = result_of(landed)
    head, payload, signature = token.split(".")
    forged = dict(claims, status="approved")
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    with pytest.raises(Exception):
        verified(f"{head}.{forged_payload}.{signature}", keyset)


def rotate(server) -> dict:
    result = subprocess.run([str(server.binary), "signing-keys", "rotate"], env=server.cli_env, cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"hosted signing-keys rotate exited {result.returncode}: {result.stderr}"
    return json.loads(result.stdout)


def test_after_rotation_the_new_kid_signs_and_the_old_one_is_still_served(browser, results_hosted, return_page, request):
    _, old_landed = journey_to_the_return_page(browser, results_hosted, return_page, request, "before-rotation")
    _, before, _ = served_keys(results_hosted)
    helped = subprocess.run([str(results_hosted.binary), "signing-keys", "--help"], env=results_hosted.cli_env,
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "signing-keys rotate" in helped.stdout
    rotated = rotate(results_hosted)
    assert rotated["previous_kid"] == before[0] and rotated["kid"] != before[0] and rotated["kid"].startswith("sig_")
    # Every process reads the keys again within 10 s.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        _, kids, _ = served_keys(results_hosted)
        if kids[:1] == [rotated["kid"]]:
            break
        time.sleep(0.5)
    keyset, kids, _ = served_keys(results_hosted)
    assert kids[:2] == [rotated["kid"], before[0]], kids
    verification_id, landed = journey_to_the_return_page(browser, results_hosted, return_page, request, None)
    header, claims = verified(result_of(landed), keyset)
    assert header["kid"] == rotated["kid"]
    assert claims["sub"] == verification_id and "nonce" not in claims
    # What the previous key signed still verifies with the JWKS served now.
    old_header, old_claims = verified(result_of(old_landed), keyset)
    assert old_header["kid"] == before[0] and old_claims["nonce"] == "before-rotation"
