"""Signing in to the journey in a real browser (headless Chromium, phone-sized).

Covers the handoff URL (fragment removed, single use, expiry, cancel), the session cookie
surviving a reload, and the mobile number + SMS code fallback through the dev outbox, all
through the page's stable test hooks (`body[data-state]`, `data-testid`; DESIGN.md, "Stable
test hooks in the journey pages").

Every test opens fresh browser profiles. The server is `journey_hosted` (conftest.py): its
public URL is the address it listens on, so the browser's `Origin` matches what the journey's
POSTs require. Screenshots of the sign-in, code and step screens go to `test-artifacts/`
(gitignored), and the sign-in screen's first-render timings are printed, not asserted.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import datetime, timezone

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import (
    ARTIFACTS,
    console_problems,
    describe,
    screenshot,
    session_cookies,
    visible,
    wait_for_settled_state,
    wait_for_state,
)

MOBILE = "+919876543210"
MOBILE_AS_TYPED = "+91 98765 43210"
OTHER_MOBILE = "+14155550123"
OTHER_MOBILE_AS_TYPED = "+1 415 555 0123"
CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")


# --- the customer API and the dev outbox ----------------------------------------------------

def _api(server, method: str, path: str, body: dict | None = None, expected: tuple[int, ...] = (200,)) -> dict:
    response = requests.request(method, server.base_url + path, json=body, headers=server.auth_headers, timeout=10)
    assert response.status_code in expected, (
        f"{method} {path} answered {response.status_code}, expected {expected}: {response.text[:500]}"
    )
    return response.json()


def create_verification(server, user_id: str, mobile: str = MOBILE) -> dict:
    verification = _api(server, "POST", "/v1/verifications",
                        {"user_id": user_id, "workflow": "kyc", "mobile": mobile}, expected=(201,))
    assert verification["status"] == "created"
    assert verification["journey_url"] == f"{server.base_url}/j/{verification['id']}"
    return verification


def mint_handoff(server, verification: dict, **body) -> dict:
    handoff = _api(server, "POST", f"/v1/verifications/{verification['id']}/handoffs", body, expected=(201,))
    prefix = f"{verification['journey_url']}#handoff="
    assert handoff["url"].startswith(prefix), "the handoff URL is not the journey URL plus a #handoff= fragment"
    server.secrets.append(handoff["url"][len(prefix):])
    return handoff


def status_of(server, verification: dict) -> str:
    return _api(server, "GET", f"/v1/verifications/{verification['id']}")["status"]


def outbox(server, number: str) -> list[dict]:
    response = requests.get(server.base_url + "/dev/outbox", params={"to": number}, timeout=10)
    assert response.status_code == 200, f"GET /dev/outbox answered {response.status_code}: {response.text[:300]}"
    return response.json()["data"]


def newest_code(server, number: str, messages_before: int) -> str:
    """The code in the message sent after `messages_before` messages to `number`."""
    deadline = time.monotonic() + 5
    while True:
        messages = outbox(server, number)
        if len(messages) > messages_before:
            break
        assert time.monotonic() < deadline, f"no new SMS to {number} in the dev outbox"
        time.sleep(0.05)
    assert len(messages) == messages_before + 1, f"expected one new SMS to {number}, got {len(messages) - messages_before}"
    match = CODE.search(messages[0]["body"])
    assert match, f"the newest SMS has no 6-digit code: {messages[0]['body']!r}"
    return match.group(1)


@pytest.fixture
def new_verification(request, journey_hosted):
    """Creates a fresh verification (a unique user_id per call) of the `kyc` workflow."""

    def create(mobile: str = MOBILE) -> dict:
        name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
        return create_verification(journey_hosted, f"e2e-{name}-{uuid.uuid4().hex[:8]}", mobile)

    return create


# --- page helpers ---------------------------------------------------------------------------

def location_hash(driver) -> str:
    return driver.execute_script("return location.hash;")


def assert_clean_console(driver) -> None:
    problems = console_problems(driver)
    assert not problems, "the journey page logged errors:\n" + "\n".join(problems)


def sign_in_with_mobile(driver, typed_number: str) -> None:
    """On the sign-in screen: types the number and asks for a code; ends on the code screen."""
    visible(driver, "signin-mobile").send_keys(typed_number)
    visible(driver, "signin-send").click()
    wait_for_state(driver, "otp")


def enter_code(driver, code: str) -> None:
    field = visible(driver, "signin-code")
    field.clear()
    field.send_keys(code)
    visible(driver, "signin-verify").click()


def assert_signed_in_cookie(driver, server, verification: dict) -> None:
    cookies = session_cookies(driver)
    assert len(cookies) == 1, f"expected one hosted_session cookie, got {len(cookies)}"
    cookie = cookies[0]
    server.secrets.append(cookie["value"])
    assert cookie["httpOnly"] is True
    assert cookie.get("sameSite") == "Lax"
    assert cookie["path"] == f"/j/{verification['id']}"
    assert cookie.get("secure") is False  # http public URL; Secure only on https
    assert "hosted_session" not in driver.execute_script("return document.cookie;")


# A handoff with the shortest lifetime allowed (30 s), minted when the module starts so that
# its wait overlaps the other tests instead of adding 30 s to the run.
@pytest.fixture(scope="module")
def expiring_handoff(journey_hosted):
    verification = create_verification(journey_hosted, f"e2e-expiring-{uuid.uuid4().hex[:8]}")
    handoff = mint_handoff(journey_hosted, verification, expires_in_seconds=30)
    assert handoff["expires_in_seconds"] == 30
    return verification, handoff


@pytest.fixture(scope="module", autouse=True)
def _mint_expiring_handoff_first(expiring_handoff):
    return expiring_handoff


# --- the handoff URL ------------------------------------------------------------------------

def test_handoff_opens_the_journey_signed_in(browser, journey_hosted, new_verification):
    verification = new_verification()
    handoff = mint_handoff(journey_hosted, verification)

    browser.get(handoff["url"])
    wait_for_state(browser, "step")

    assert location_hash(browser) == "", "the handoff fragment is still in the address bar"
    assert browser.current_url == verification["journey_url"]
    step = visible(browser, "step-profile")
    assert step.text.strip(), "the profile step container is empty"
    assert_signed_in_cookie(browser, journey_hosted, verification)
    screenshot(browser, "journey-step")
    assert status_of(journey_hosted, verification) == "in_progress"
    assert_clean_console(browser)


def test_reload_keeps_the_session(browser, journey_hosted, new_verification):
    verification = new_verification()
    handoff = mint_handoff(journey_hosted, verification)
    browser.get(handoff["url"])
    wait_for_state(browser, "step")

    browser.refresh()
    assert wait_for_settled_state(browser) == "step", f"after a reload: {describe(browser)}"
    visible(browser, "step-profile")

    # Coming back later through the plain journey link works too: the cookie carries the visit.
    browser.get(verification["journey_url"])
    assert wait_for_settled_state(browser) == "step", f"journey_url in the same profile: {describe(browser)}"
    assert_clean_console(browser)


def test_used_handoff_asks_a_second_browser_to_sign_in(browsers, journey_hosted, new_verification):
    verification = new_verification()
    handoff = mint_handoff(journey_hosted, verification)

    first = browsers()
    first.get(handoff["url"])
    wait_for_state(first, "step")
    browsers.quit(first)

    second = browsers()
    second.get(handoff["url"])
    assert wait_for_settled_state(second) == "signin", f"a used handoff: {describe(second)}"
    assert location_hash(second) == ""
    visible(second, "signin-mobile")
    assert not second.find_element("css selector", "[data-testid=signin-error]").is_displayed()
    assert session_cookies(second) == []
    assert_clean_console(second)


def test_handoff_of_a_canceled_verification_shows_it_is_closed(browser, journey_hosted, new_verification):
    verification = new_verification()
    handoff = mint_handoff(journey_hosted, verification)
    canceled = _api(journey_hosted, "POST", f"/v1/verifications/{verification['id']}/cancel")
    assert canceled["status"] == "canceled"

    browser.get(handoff["url"])
    # Not a sign-in that could lead nowhere: the journey says the verification was canceled.
    assert wait_for_settled_state(browser) == "closed", f"a canceled verification's handoff: {describe(browser)}"
    status = browser.find_element(By.CSS_SELECTOR, '[data-testid="journey-status"]')
    assert status.get_attribute("data-status") == "canceled"
    assert location_hash(browser) == ""
    assert session_cookies(browser) == []
    assert status_of(journey_hosted, verification) == "canceled"


def test_cancel_ends_an_open_session(browser, journey_hosted, new_verification):
    verification = new_verification()
    handoff = mint_handoff(journey_hosted, verification)
    browser.get(handoff["url"])
    wait_for_state(browser, "step")

    _api(journey_hosted, "POST", f"/v1/verifications/{verification['id']}/cancel")
    browser.refresh()
    state = wait_for_settled_state(browser)
    # DESIGN: cancel stops the verification's journey sessions; the steps never show again.
    assert state in ("signin", "closed"), f"after cancel the journey shows: {describe(browser)}"


# Following the handoff link while the same journey's page is already open is a same-document
# (fragment-only) navigation: no reload, so main.js's hashchange handler must strip and use it.
def test_handoff_followed_from_the_open_journey_page(browser, journey_hosted, new_verification):
    verification = new_verification()
    browser.get(verification["journey_url"])
    wait_for_state(browser, "signin")

    browser.get(mint_handoff(journey_hosted, verification)["url"])  # same path, new fragment
    try:
        wait_for_state(browser, "step", timeout=5)
    finally:
        assert location_hash(browser) == "", "the handoff secret stayed in the address bar"


# --- the mobile number + SMS code fallback --------------------------------------------------

# Records when `<body data-state>` first takes each value, from before the page's own scripts
# run (CDP injects it into every new document; the page's CSP does not apply to it).
STATE_TIMES_SCRIPT = """
(() => {
  const times = {};
  Object.defineProperty(window, "__stateTimes", { value: times });
  const record = () => {
    const state = document.body && document.body.dataset.state;
    if (state && !(state in times)) {
      times[state] = performance.now();
      requestAnimationFrame(() => { times[state + ":frame"] = performance.now(); });
    }
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, attributes: true,
                                                   attributeFilter: ["data-state"] });
})();
"""


def first_render_timings(driver) -> dict:
    """Navigation Timing of the current page plus when the sign-in screen was first shown."""
    deadline = time.monotonic() + 10
    while True:
        timings = driver.execute_script(
            """
            const nav = performance.getEntriesByType('navigation')[0];
            const paint = Object.fromEntries(performance.getEntriesByType('paint').map(p => [p.name, p.startTime]));
            return { nav: nav ? nav.toJSON() : null, paint, states: window.__stateTimes || {} };
            """
        )
        nav = timings["nav"]
        if nav and nav["loadEventEnd"] > 0 and "signin:frame" in timings["states"]:
            break
        assert time.monotonic() < deadline, f"navigation timing incomplete: {timings}"
        time.sleep(0.05)
    ms = lambda value: round(value, 1)  # noqa: E731
    return {
        "responseStart": ms(nav["responseStart"]),
        "responseEnd": ms(nav["responseEnd"]),
        "domInteractive": ms(nav["domInteractive"]),
        "domContentLoadedEventEnd": ms(nav["domContentLoadedEventEnd"]),
        "loadEventEnd": ms(nav["loadEventEnd"]),
        "first-contentful-paint": ms(timings["paint"].get("first-contentful-paint", -1)),
        "data-state=signin set": ms(timings["states"]["signin"]),
        "data-state=signin next frame": ms(timings["states"]["signin:frame"]),
        "transferSize": nav.get("transferSize"),
    }


def test_mobile_sign_in_with_the_code_from_the_outbox(browser, journey_hosted, new_verification, capsys):
    verification = new_verification()
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STATE_TIMES_SCRIPT})

    browser.get(verification["journey_url"])
    wait_for_state(browser, "signin")
    timings = first_render_timings(browser)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "journey-signin-timing.json").write_text(json.dumps(timings, indent=2) + "\n")
    with capsys.disabled():
        print("\n  first render of the sign-in screen (ms since navigation start): "
              + ", ".join(f"{key}={value}" for key, value in timings.items()))
    visible(browser, "signin-mobile")
    screenshot(browser, "journey-signin")

    before = len(outbox(journey_hosted, MOBILE))
    sign_in_with_mobile(browser, MOBILE_AS_TYPED)
    assert browser.execute_script("return document.activeElement.dataset.testid;") == "signin-code"
    screenshot(browser, "journey-otp")
    code = newest_code(journey_hosted, MOBILE, before)

    enter_code(browser, code)
    wait_for_state(browser, "step")
    visible(browser, "step-profile")
    assert_signed_in_cookie(browser, journey_hosted, verification)
    assert status_of(journey_hosted, verification) == "in_progress"
    assert_clean_console(browser)


def test_wrong_code_shows_an_error_and_stays_on_the_code_screen(browser, journey_hosted, new_verification):
    verification = new_verification()
    browser.get(verification["journey_url"])
    wait_for_state(browser, "signin")
    before = len(outbox(journey_hosted, MOBILE))
    sign_in_with_mobile(browser, MOBILE_AS_TYPED)
    code = newest_code(journey_hosted, MOBILE, before)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    enter_code(browser, wrong)
    error = visible(browser, "signin-error")
    assert error.text.strip(), "the sign-in error is shown but empty"
    assert browser.execute_script("return document.body.dataset.state;") == "otp"
    visible(browser, "signin-code")
    assert session_cookies(browser) == []
    screenshot(browser, "journey-otp-error")
    assert status_of(journey_hosted, verification) == "created"

    # One wrong try does not burn the code (five do).
    enter_code(browser, code)
    wait_for_state(browser, "step")
    assert not browser.find_element("css selector", "[data-testid=signin-error]").is_displayed()


def test_a_number_that_does_not_match_gets_the_same_answer_and_no_sms(browser, journey_hosted, new_verification):
    verification = new_verification(MOBILE)
    browser.get(verification["journey_url"])
    wait_for_state(browser, "signin")
    other_before = len(outbox(journey_hosted, OTHER_MOBILE))
    own_before = len(outbox(journey_hosted, MOBILE))

    sign_in_with_mobile(browser, OTHER_MOBILE_AS_TYPED)
    assert not browser.find_element("css selector", "[data-testid=signin-error]").is_displayed()
    visible(browser, "signin-code")

    time.sleep(0.3)  # an SMS, if one were (wrongly) sent, is in the outbox before the 202; margin only
    assert len(outbox(journey_hosted, OTHER_MOBILE)) == other_before, "an SMS went to a number that does not match"
    assert len(outbox(journey_hosted, MOBILE)) == own_before, "an SMS went to the verification's own number"
    assert status_of(journey_hosted, verification) == "created"


# --- how it looks ----------------------------------------------------------------------------

def test_screens_in_dark_mode(browser, journey_hosted, new_verification):
    """Screenshots only (the stylesheet declares `color-scheme: light dark`); nothing asserted
    about colours, the report says what they look like."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    signed_in = new_verification()
    browser.get(mint_handoff(journey_hosted, signed_in)["url"])
    wait_for_state(browser, "step")
    screenshot(browser, "journey-step-dark")

    # Another verification's journey link: a new document, not a same-page fragment change.
    browser.get(new_verification()["journey_url"])
    wait_for_state(browser, "signin")
    screenshot(browser, "journey-signin-dark")

    # The code screen with its error: a number that does not match (no SMS), then any code.
    sign_in_with_mobile(browser, OTHER_MOBILE_AS_TYPED)
    enter_code(browser, "000000")
    visible(browser, "signin-error")
    screenshot(browser, "journey-otp-error-dark")


# --- expiry (last: its handoff was minted when the module started) ---------------------------

def test_expired_handoff_asks_to_sign_in(browsers, journey_hosted, expiring_handoff):
    verification, handoff = expiring_handoff
    expires_at = datetime.fromisoformat(handoff["expires_at"].replace("Z", "+00:00"))
    remaining = (expires_at - datetime.now(timezone.utc)).total_seconds() + 1.0
    if remaining > 0:
        time.sleep(remaining)  # only what is left of its 30 s; the browser opens after

    browser = browsers()
    browser.get(handoff["url"])
    assert wait_for_settled_state(browser) == "signin", f"an expired handoff: {describe(browser)}"
    assert location_hash(browser) == ""
    assert session_cookies(browser) == []
    assert status_of(journey_hosted, verification) == "created"
