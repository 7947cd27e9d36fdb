"""Test mode's simulate helper as a customer would use it (issue 40, docs/test-mode.md
"Simulate"): a real `hosted serve` process, a test key made with the live key, a test-mode
webhook endpoint on a loopback receiver (webhook_support.Receiver), and
`POST /v1/test_helpers/verifications/{id}/simulate` driving a test verification through
`complete_steps`, `submit` and `approve`. Every message the receiver gets is verified with the
official `standardwebhooks` library and says `"livemode": false`; its event (read back by id)
says `data.simulated: true`. A live endpoint of the same account gets nothing, and a live key
is refused with 403 `test_mode_only`. Everything stays on loopback.
"""

from __future__ import annotations

import json
import time

import pytest
from standardwebhooks import Webhook

from webhook_support import Client, Deployment, Receiver, SetupError, secret_key_bytes

WORKFLOW = {
    "key": "simulated",
    "name": "Simulated KYC",
    "steps": [
        {"type": "profile"},
        {"type": "selfie", "quality": "require"},
        {"type": "premises_photos", "id": "shop", "min": 2, "max": 3, "quality": "require"},
        {"type": "digilocker"},
    ],
}
# created, signed_in, one step_completed per step, submitted, approved
EXPECTED_EVENTS = ["verification.created", "verification.signed_in"] + ["verification.step_completed"] * 4 + [
    "verification.submitted", "verification.approved"]


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver()
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    try:
        deployment = Deployment(tmp_path_factory.mktemp("simulate"), schedule="1,1", timeout=2)
        deployment.start()
    except SetupError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        yield deployment
    finally:
        problems = deployment.close()
    assert not problems, "\n".join(problems)


def keys(deployment: Deployment) -> tuple[Client, Client]:
    """A fresh account's live client (the workflow made with it) and a test client."""
    process = deployment.processes[0]
    account_id, api_key = deployment.create_account()
    live = Client(process.base_url, api_key, deployment.secrets, account_id=account_id)
    live.call("POST", "/v1/workflows", WORKFLOW, expected=(201,))
    made = live.call("POST", "/v1/api_keys", {"mode": "test"}, expected=(201,))
    assert made["livemode"] is False and str(made["secret"]).startswith("sk_test_")
    deployment.secrets.append(str(made["secret"]))
    return live, Client(process.base_url, made["secret"], deployment.secrets, account_id=account_id)


def simulate(client: Client, verification_id: str, body: dict):
    return client.request("POST", f"/v1/test_helpers/verifications/{verification_id}/simulate", body)


def test_simulated_journey_sends_signed_test_mode_webhooks(deployment, receiver):
    live, test = keys(deployment)
    deployment.hosts.set("hooks-simulate.test", "127.0.0.1")
    test_endpoint = test.call("POST", "/v1/webhook_endpoints", {"url": receiver.url("/simulate/test", "hooks-simulate.test")},
                              expected=(201,))
    live_endpoint = live.call("POST", "/v1/webhook_endpoints", {"url": receiver.url("/simulate/live", "hooks-simulate.test")},
                              expected=(201,))
    assert test_endpoint["livemode"] is False and live_endpoint["livemode"] is True
    secret = test_endpoint["secret"]
    assert len(secret_key_bytes(secret)) == 32

    verification = test.call("POST", "/v1/verifications",
                             {"user_id": "sim-user", "workflow": "simulated", "mobile": "+919876543210"}, expected=(201,))
    vid = verification["id"]
    assert verification["livemode"] is False and verification["status"] == "created"

    # A live key is refused, whatever it names, and changes nothing.
    refused = simulate(live, vid, {"action": "complete_steps"})
    assert refused.status_code == 403, refused.text[:300]
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert refused.json()["code"] == "test_mode_only"

    completed = simulate(test, vid, {"action": "complete_steps"})
    assert completed.status_code == 200, completed.text[:500]
    body = completed.json()
    assert body["status"] == "in_progress"
    assert [step["status"] for step in body["steps"]] == ["completed"] * 4
    photos = [capture for step in body["steps"] for capture in step["captures"]]
    assert len(photos) == 3 and all(photo["quality"]["passed"] for photo in photos), photos
    # The answer is the verification as GET shows it.
    assert completed.json() == test.call("GET", f"/v1/verifications/{vid}")

    assert test.call("POST", f"/v1/test_helpers/verifications/{vid}/simulate", {"action": "submit"})["status"] == "submitted"
    approved = test.call("POST", f"/v1/test_helpers/verifications/{vid}/simulate", {"action": "approve"})
    assert approved["status"] == "approved" and approved["decision"] == "approved"

    # An impossible transition: 409 with the status machine's code.
    again = simulate(test, vid, {"action": "submit"})
    assert again.status_code == 409 and again.json()["code"] == "verification_closed", again.text[:300]

    events = test.call("GET", f"/v1/verifications/{vid}/events")["data"]
    assert [event["type"] for event in events] == EXPECTED_EVENTS
    assert all(event["data"].get("simulated") is True for event in events[1:]), events
    assert all(event["livemode"] is False for event in events)
    by_id = {event["id"]: event for event in events}

    received = receiver.wait_for("/simulate/test", len(events), timeout=30, what="test-mode endpoint")
    for request in received:
        # The official library: the signature, the timestamp, the id.
        verified = Webhook(secret).verify(request.body, {name: request.headers[name] for name in
                                                         ("webhook-id", "webhook-timestamp", "webhook-signature")})
        message = json.loads(request.body)
        assert verified == message
        assert '"livemode":false' in request.body.decode().replace(" ", ""), request.body[:300]
        assert message["data"]["livemode"] is False and message["data"]["verification_id"] == vid
        assert request.headers["webhook-id"] in by_id and message["type"] == by_id[request.headers["webhook-id"]]["type"]
    assert sorted(request.headers["webhook-id"] for request in received) == sorted(by_id)

    # The live endpoint of the same account hears nothing of the test verification.
    time.sleep(2)
    assert receiver.requests_to("/simulate/live") == []
    deliveries = live.call("GET", f"/v1/webhook_endpoints/{live_endpoint['id']}/deliveries")["data"]
    assert deliveries == []
