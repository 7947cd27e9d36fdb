"""The verification lifecycle end to end: expiry in the journey, the event log, redaction.

A workflow may set `expires_after_seconds` (down to 1 in dev mode, which `journey_hosted` runs
in): past its `expires_at`, a verification that was not submitted is `expired` (decided on
read, so these tests never wait for the background sweeper), its handoffs and journey sessions
stop working, and the journey page says so (`<body data-state="closed">`,
`[data-testid=journey-status][data-status=expired]`, `#done-title`, `#done-note`), in English
and Hindi, in Chromium and WebKitGTK, without accessibility violations (axe-core).

Every change is an event in a hash-chained log (`GET /v1/verifications/{id}/events`,
`GET /v1/events`): each test recomputes the whole chain in Python from the API's answer alone.
`POST /v1/verifications/{id}/redact` erases a closed verification's personal data (its
artifacts answer 410 afterwards), once.

Each test uses a workflow key of its own (`life_…`) on the `journey_hosted` account, so the
sign-in tests' `kyc` workflow stays as it is. Screenshots go to `test-artifacts/lifecycle-*.png`.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from datetime import datetime, timezone

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import (
    axe_violations,
    console_problems,
    describe,
    screenshot,
    session_cookies,
    summarize_violations,
    wait_for_settled_state,
)
from test_journey_signin import _api, mint_handoff
from test_journey_steps import journey_session, picture

# Not another module's number (no SMS is sent here: every sign-in is a handoff).
MOBILE = "+919800044455"

EXPIRED_TITLE = {"en": "Time ran out", "hi": "समय समाप्त हो गया"}
EXPIRED_NOTE = {
    "en": "It is no longer open. Go back to the app to start again.",
    "hi": "यह अब खुला नहीं है। फिर से शुरू करने के लिए ऐप पर वापस जाएँ।",
}
# Past `expires_at` by this much before the expired verification is read (its `expires_at` is
# to the second; the margin covers that and a loaded machine).
MARGIN = 1.2


# --- the customer API -------------------------------------------------------------------------

def new_workflow(server, *, expires_after_seconds: int | None = None) -> str:
    """A selfie-only workflow under a fresh key; returns the key."""
    key = f"life_{uuid.uuid4().hex[:10]}"
    body: dict = {"key": key, "name": "Lifecycle", "steps": [{"type": "selfie"}]}
    if expires_after_seconds is not None:
        body["expires_after_seconds"] = expires_after_seconds
    workflow = _api(server, "POST", "/v1/workflows", body, expected=(201,))
    if expires_after_seconds is not None:
        assert workflow["expires_after_seconds"] == expires_after_seconds, f"the created workflow: {workflow}"
    return key


def new_verification(server, workflow: str, **extra) -> dict:
    body = {"user_id": f"e2e-life-{uuid.uuid4().hex[:8]}", "workflow": workflow, "mobile": MOBILE, **extra}
    verification = _api(server, "POST", "/v1/verifications", body, expected=(201,))
    assert verification["status"] == "created"
    assert verification["expired_reason"] is None and verification["last_step"] is None
    assert verification["redacted_at"] is None
    return verification


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def sleep_past_expiry(verification: dict) -> None:
    """Sleeps until `MARGIN` seconds after the verification's `expires_at`."""
    remaining = (parse_time(verification["expires_at"]) - datetime.now(timezone.utc)).total_seconds() + MARGIN
    assert remaining < 10, f"expires_at {verification['expires_at']} is further away than the workflow says"
    if remaining > 0:
        time.sleep(remaining)


def expiring_handoff(server, expires_after_seconds: int = 2) -> tuple[dict, dict]:
    """A verification of a workflow that expires after `expires_after_seconds`, with a handoff
    minted while it is still open (default TTL)."""
    verification = new_verification(server, new_workflow(server, expires_after_seconds=expires_after_seconds))
    created = parse_time(verification["created_at"])
    lifetime = (parse_time(verification["expires_at"]) - created).total_seconds()
    assert abs(lifetime - expires_after_seconds) <= 1, (
        f"expires_at {verification['expires_at']} is not created_at {verification['created_at']} "
        f"+ {expires_after_seconds} s"
    )
    return verification, mint_handoff(server, verification)


def events_of(server, verification_id: str) -> list[dict]:
    page = _api(server, "GET", f"/v1/verifications/{verification_id}/events")
    assert page["object"] == "list", page
    assert page["has_more"] is False, "more than one page of events for a handful of changes"
    return page["data"]


def account_events(server, **params) -> list[dict]:
    response = requests.get(server.base_url + "/v1/events", params=params, headers=server.auth_headers, timeout=10)
    assert response.status_code == 200, f"GET /v1/events {params} answered {response.status_code}: {response.text[:500]}"
    page = response.json()
    assert page["object"] == "list" and page["has_more"] is False, page
    return page["data"]


def chain_problems(events: list[dict]) -> list[str]:
    """Recomputes the hash chain: sha256 hex of (previous_hash or "") + "\\n" + the event's
    canonical JSON without `hash` and `previous_hash`. Returns what does not hold."""
    problems = []
    previous = None
    for position, event in enumerate(events, start=1):
        where = f"event {position} ({event.get('type')}, {event.get('id')})"
        if event.get("sequence") != position:
            problems.append(f"{where}: sequence {event.get('sequence')}, expected {position}")
        if event.get("previous_hash") != previous:
            problems.append(f"{where}: previous_hash {event.get('previous_hash')}, expected {previous}")
        body = {name: value for name, value in event.items() if name not in ("hash", "previous_hash")}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        expected = hashlib.sha256(((event.get("previous_hash") or "") + "\n" + canonical).encode("utf-8")).hexdigest()
        if event.get("hash") != expected:
            problems.append(f"{where}: hash {event.get('hash')}, recomputed {expected} from {canonical}")
        previous = event.get("hash")
    return problems


def assert_chain(events: list[dict], verification_id: str) -> None:
    assert events, "no events"
    for event in events:
        assert event["object"] == "event" and event["id"].startswith("evt_"), event
        assert event["verification_id"] == verification_id, event
        assert event["created_at"].endswith("Z"), event
    assert events[0]["type"] == "verification.created", [event["type"] for event in events]
    assert events[0]["actor"]["type"] == "api_key", events[0]
    problems = chain_problems(events)
    assert not problems, "the event hash chain does not verify:\n" + "\n".join(problems)


def of_type(events: list[dict], event_type: str) -> list[dict]:
    return [event for event in events if event["type"] == event_type]


def assert_expired_event(events: list[dict], reason: str) -> None:
    """The log ends with exactly one `verification.expired`, by the system, for `reason`."""
    types = [event["type"] for event in events]
    assert types[-1] == "verification.expired", f"the events end with {types[-1]}: {types}"
    assert types.count("verification.expired") == 1, f"more than one verification.expired: {types}"
    expired = events[-1]
    assert expired["actor"] == {"type": "system", "id": None}, expired
    assert expired["data"].get("reason") == reason, expired


# --- the page -----------------------------------------------------------------------------------

def with_lang(handoff_url: str, lang: str) -> str:
    """The handoff URL with `?lang=` before its fragment (as test_journey_steps.open_signed_in)."""
    return handoff_url.replace("#handoff=", f"?lang={lang}#handoff=", 1)


def assert_expired_screen(driver, lang: str = "en") -> None:
    state = wait_for_settled_state(driver)
    assert state == "closed", f"an expired verification's journey shows {state}: {describe(driver)}"
    assert driver.execute_script("return document.documentElement.lang;") == lang
    status = driver.find_element(By.CSS_SELECTOR, '[data-testid="journey-status"]')
    assert status.get_attribute("data-status") == "expired", f"journey-status: {status.get_attribute('outerHTML')}"
    title = driver.find_element(By.ID, "done-title")
    note = driver.find_element(By.ID, "done-note")
    assert title.is_displayed() and note.is_displayed(), describe(driver)
    assert title.text.strip() == EXPIRED_TITLE[lang]
    assert note.text.strip() == EXPIRED_NOTE[lang]
    assert driver.execute_script("return location.hash;") == "", "the handoff secret stayed in the address bar"


def shoot(driver, name: str):
    time.sleep(0.15)  # let the screen finish painting (fonts)
    return screenshot(driver, name)


def assert_clean_console(driver) -> None:
    problems = console_problems(driver)
    assert not problems, "the journey page logged errors:\n" + "\n".join(problems)


# --- 1. a handoff opened after expiry -------------------------------------------------------------

def test_a_handoff_opened_after_expiry_shows_the_expired_screen(browser, journey_hosted):
    verification, handoff = expiring_handoff(journey_hosted, 2)
    vid = verification["id"]
    sleep_past_expiry(verification)

    browser.get(handoff["url"])
    assert_expired_screen(browser, "en")
    assert session_cookies(browser) == [], "an expired verification's handoff signed the browser in"
    shoot(browser, "lifecycle-expired-en")
    assert_clean_console(browser)

    expired = _api(journey_hosted, "GET", f"/v1/verifications/{vid}")
    assert expired["status"] == "expired", expired
    assert expired["expired_reason"] == "not_started", expired
    assert expired["last_step"] is None, expired

    events = events_of(journey_hosted, vid)
    assert_chain(events, vid)
    assert_expired_event(events, "not_started")
    assert not of_type(events, "verification.signed_in"), "an expired handoff was recorded as a sign-in"
    # The account feed shows the same chain, and filters by type.
    assert account_events(journey_hosted, verification_id=vid) == events
    assert account_events(journey_hosted, verification_id=vid, type="verification.expired") == [events[-1]]


# --- 2. an open session ends at expiry ----------------------------------------------------------

def test_an_open_session_ends_when_the_verification_expires(browser, journey_hosted):
    verification, handoff = expiring_handoff(journey_hosted, 4)
    vid = verification["id"]

    browser.get(handoff["url"])
    state = wait_for_settled_state(browser)
    assert state == "step", f"a fresh handoff: {describe(browser)}"
    assert datetime.now(timezone.utc) < parse_time(verification["expires_at"]), (
        "the step screen showed only after expires_at: the machine is too slow for a 4 s expiry"
    )
    cookies = session_cookies(browser)
    assert len(cookies) == 1, f"expected one hosted_session cookie, got {len(cookies)}"
    journey_hosted.secrets.append(cookies[0]["value"])
    signed_in = _api(journey_hosted, "GET", f"/v1/verifications/{vid}")
    assert signed_in["status"] == "in_progress", signed_in

    sleep_past_expiry(verification)
    # The session itself no longer works, already on the first read after expiry (this one;
    # asserted at the end, so that the rest is checked too when it fails).
    state_call = requests.get(f"{journey_hosted.base_url}/j/{vid}/api/state", timeout=10,
                              cookies={"hosted_session": cookies[0]["value"]})

    browser.refresh()
    assert_expired_screen(browser, "en")
    shoot(browser, "lifecycle-session-expired-en")

    expired = _api(journey_hosted, "GET", f"/v1/verifications/{vid}")
    assert expired["status"] == "expired", expired
    assert expired["expired_reason"] == "abandoned", expired
    assert expired["last_step"] is None, "no step was completed, yet last_step is set"

    events = events_of(journey_hosted, vid)
    assert_chain(events, vid)
    sign_ins = of_type(events, "verification.signed_in")
    assert len(sign_ins) == 1, [event["type"] for event in events]
    assert sign_ins[0]["data"].get("method") == "handoff", sign_ins[0]
    assert sign_ins[0]["actor"] == {"type": "journey", "id": None}, sign_ins[0]
    assert_expired_event(events, "abandoned")
    assert events.index(sign_ins[0]) < len(events) - 1

    assert (state_call.status_code, state_call.json().get("code")) == (401, "signin_required"), (
        f"the first GET /j/{{id}}/api/state with the session after expiry answered {state_call.status_code}: "
        f"{state_call.text[:300]}"
    )


# --- 3. the expired screen in Hindi, accessible ----------------------------------------------------

def test_the_expired_screen_in_hindi_is_accessible(browser, journey_hosted, capsys):
    verification, handoff = expiring_handoff(journey_hosted, 2)
    sleep_past_expiry(verification)

    browser.get(with_lang(handoff["url"], "hi"))
    assert_expired_screen(browser, "hi")
    violations = axe_violations(browser)
    shot = shoot(browser, "lifecycle-expired-hi")
    with capsys.disabled():
        print(f"\n  [axe, hi] expired screen: {len(violations)} violation(s); screenshot {shot.name}")
    assert not violations, "accessibility violations on the expired screen:\n" + "\n".join(summarize_violations(violations))
    assert _api(journey_hosted, "GET", f"/v1/verifications/{verification['id']}")["status"] == "expired"


# --- 4. the expired screen in WebKitGTK ----------------------------------------------------------

def test_expired_screen_in_webkit(webkit, journey_hosted):
    verification, handoff = expiring_handoff(journey_hosted, 2)
    sleep_past_expiry(verification)

    webkit.get(handoff["url"])
    assert_expired_screen(webkit, "en")
    shoot(webkit, "lifecycle-expired-webkit")
    assert _api(journey_hosted, "GET", f"/v1/verifications/{verification['id']}")["status"] == "expired"


# --- 4b. a decided verification's link, without a session --------------------------------------

@pytest.mark.parametrize("decision", ["approved", "rejected"])
def test_the_link_alone_never_shows_the_decision(browser, journey_hosted, decision, capsys):
    """Issue 37: the journey link alone told whether the user was approved or rejected. Without a
    session the page (and its status call) says only that the verification is closed."""
    workflow = new_workflow(journey_hosted)
    verification = new_verification(journey_hosted, workflow)
    vid = verification["id"]
    session = journey_session(journey_hosted, verification)
    base = f"{journey_hosted.base_url}/j/{vid}/api"
    uploaded = session.post(f"{base}/steps/selfie/images", data=picture(640, 480), timeout=30,
                            headers={"Content-Type": "image/jpeg"})
    assert uploaded.status_code == 201, uploaded.text[:300]
    for path in ("/steps/selfie/complete", "/submit"):
        answer = session.post(base + path, timeout=10)
        assert answer.status_code == 200, f"{path}: {answer.status_code} {answer.text[:300]}"
    _api(journey_hosted, "POST", f"/v1/verifications/{vid}/decision", {"decision": decision}, expected=(200,))

    told = requests.get(f"{base}/status", timeout=10)
    assert (told.status_code, told.json()) == (200, {"status": "closed"}), told.text[:300]
    for lang, note in (("en", "This verification is closed."), ("hi", "यह सत्यापन बंद हो चुका है।")):
        browser.delete_all_cookies()
        browser.get(f"{verification['journey_url']}?lang={lang}")
        state = wait_for_settled_state(browser)
        assert state == "closed", f"a decided verification's link shows {state}: {describe(browser)}"
        status = browser.find_element(By.CSS_SELECTOR, '[data-testid="journey-status"]')
        assert status.get_attribute("data-status") == "closed", status.get_attribute("outerHTML")
        assert status.text.strip() == note, status.get_attribute("outerHTML")
        page = browser.find_element(By.TAG_NAME, "body").text
        assert decision not in page and "could not be completed" not in page and "is complete" not in page, page
        violations = axe_violations(browser)
        shot = shoot(browser, f"lifecycle-decided-link-{decision}-{lang}")
        with capsys.disabled():
            print(f"\n  [axe, {lang}] {decision} verification's link: {len(violations)} violation(s); screenshot {shot.name}")
        assert not violations, "\n".join(summarize_violations(violations))
        assert_clean_console(browser)


# --- 5. redaction through the API ----------------------------------------------------------------

def test_redaction_through_the_api(journey_hosted):
    server = journey_hosted
    metadata = {"plan": "gold-" + uuid.uuid4().hex[:6]}
    verification = new_verification(server, new_workflow(server), metadata=metadata)
    vid = verification["id"]
    assert verification["metadata"] == metadata and verification["mobile_last4"] == MOBILE[-4:], verification

    # A selfie through a real journey session, so there are artifact bytes to erase.
    session = journey_session(server, verification)
    uploaded = session.post(f"{server.base_url}/j/{vid}/api/steps/selfie/images", data=picture(640, 480),
                            headers={"Content-Type": "image/jpeg"}, timeout=30)
    assert uploaded.status_code == 201, uploaded.text[:300]
    artifact = uploaded.json()["artifact_id"]

    # Open (in progress): not redactable.
    refused = requests.post(f"{server.base_url}/v1/verifications/{vid}/redact", headers=server.auth_headers, timeout=10)
    assert refused.status_code == 409, f"redact of an open verification answered {refused.status_code}: {refused.text[:300]}"
    assert refused.headers.get("Content-Type", "").startswith("application/problem+json"), refused.headers
    assert refused.json().get("code") == "verification_not_terminal", refused.text[:300]

    download_url = f"{server.base_url}/v1/verifications/{vid}/artifacts/{artifact}"
    before = requests.get(download_url, headers=server.auth_headers, timeout=10)
    assert before.status_code == 200 and before.content[:3] == b"\xff\xd8\xff", before.status_code

    assert _api(server, "POST", f"/v1/verifications/{vid}/cancel")["status"] == "canceled"
    redacted = _api(server, "POST", f"/v1/verifications/{vid}/redact")
    assert redacted["status"] == "canceled", redacted
    assert redacted["user_id"] is None, redacted
    assert redacted["mobile_last4"] is None, redacted
    assert redacted["metadata"] == {}, redacted
    assert redacted["redacted_at"], redacted
    assert [step["artifacts"] for step in redacted["steps"]] == [[artifact]], "redaction changed the steps"
    assert _api(server, "GET", f"/v1/verifications/{vid}") == redacted

    gone = requests.get(download_url, headers=server.auth_headers, timeout=10)
    assert gone.status_code == 410, f"artifact download after redaction answered {gone.status_code}: {gone.text[:300]}"
    assert gone.json().get("code") == "artifact_redacted", gone.text[:300]

    again = _api(server, "POST", f"/v1/verifications/{vid}/redact")
    assert again == redacted, "a second redact changed the verification"

    events = events_of(server, vid)
    assert_chain(events, vid)
    redactions = of_type(events, "verification.redacted")
    assert len(redactions) == 1, f"expected one verification.redacted, got {[event['type'] for event in events]}"
    assert redactions[0]["actor"]["type"] == "api_key", redactions[0]
    assert len(of_type(events, "verification.canceled")) == 1
    # The log carries no personal data.
    serialized = json.dumps(events, ensure_ascii=False)
    for personal in (verification["user_id"], MOBILE, metadata["plan"]):
        assert personal not in serialized, f"the event log contains {personal!r}"

    # The chain check can fail: change one event's data and it no longer verifies.
    tampered = json.loads(json.dumps(events))
    tampered[-1]["data"] = {**tampered[-1]["data"], "tampered": "yes"}
    assert chain_problems(tampered), "a tampered event still verified"
