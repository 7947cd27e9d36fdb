"""Issue 42 in real browsers: the phone types the computer's number, "This wasn't me" from the
phone blocks the computer for a minute, the journey continues in the customer's own app, and the
phone says where and when the request came from.

The browsers are test_continue_on_phone.py's: camera-less desktop Chromiums (`desktops`, with its
recording hook of the page's `/api/continuations…` answers and `<body data-state>` changes), the
phone-sized Chromium with a fake camera (`phone(browsers)`) and, for one test, WebKitGTK's
MiniBrowser (`webkit`). A desktop here says it is Chrome on Windows (CDP
`Network.setUserAgentOverride`), and the phones run in India's time zone (CDP
`Emulation.setTimezoneOverride`), so the context line is checked against the create time.

The server is `steps_hosted` (conftest.py) with this module's workflows: typed matching, the
default choice, and `on_report: cancel`. The app test makes an account of its own named "Acme"
(its name goes on the button) whose webhook endpoint, subscribed to
`verification.continuation_requested`, is a loopback receiver (webhook_support.Receiver) playing
the customer's backend: it verifies the message with the `standardwebhooks` library, then mints
`{"continuation": true}` handoff through the API and opens it on a second browser.

The report test waits out the real 60-second pause once (English only); the last test checks,
over plain HTTP, that a long-poll answer that waited tells the pause left when it answers.
Screenshots go to `test-artifacts/continue-<screen>-<lang>.png`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import time
import uuid
from datetime import datetime
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests
from selenium.webdriver.common.by import By
from standardwebhooks import Webhook

from browser import REPO_ROOT, axe_violations, body_state, summarize_violations, visible, wait_for_settled_state, wait_for_state
from test_continue_on_phone import (  # noqa: F401 (desktops is a fixture)
    FOLLOW_WITHIN,
    api_continuation,
    ask_for_phone,
    assert_clean_console,
    created_links,
    desktops,
    keep_session_secret,
    match_options,
    open_desktop,
    open_link,
    phone,
    pick,
    recorded,
    refused_to_signin,
    shot,
    state_time,
    wait_for_link,
)
from test_journey_signin import _api, mint_handoff
from test_journey_steps import fill_profile, on_review, on_step, take_photos, wait_until
from webhook_support import Receiver

# This module's own number: codes and texts are limited per number and per verification.
MOBILE = "+919822255566"
STEPS = [{"type": "profile"}, {"type": "selfie"}]
WORKFLOWS = {
    "typed": {"key": "kyc_typed", "name": "KYC, typed number", "steps": STEPS, "continuation": {"matching": "type"}},
    "chosen": {"key": "kyc_report", "name": "KYC, chosen number", "steps": STEPS},
    "cancel": {"key": "kyc_report_cancel", "name": "KYC, canceled on report", "steps": STEPS,
               "continuation": {"on_report": "cancel"}},
}
WINDOWS_CHROME = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/131.0.0.0 Safari/537.36")
PHONE_ZONE = "Asia/Kolkata"
PAUSE = 60  # seconds without a new code after a report (ContinuationRules.pauseAfterReport)
APP_NAME = "Acme"
APP_EVENT = "verification.continuation_requested"

# The words the page shows (public/journey/i18n/en.js, hi.js), for what is asserted here.
WORDS = {
    "en": {
        "type_title": "Type the number on your computer screen",
        "type_label": "Number on your computer",
        "type_shape": "Type the two digits your computer shows.",
        "context": re.compile(r"Requested from Chrome on Windows at (?P<time>.+)\."),
        "report": "This wasn't me",
        "reported_title": "Request stopped",
        "reported": "Thank you for telling us. The request was stopped and its link no longer works. "
                    "Nothing else will happen: you can close this page.",
        "blocked_title": "We stopped that request",
        "blocked_wait": re.compile(r"For your safety, no new code can be made for (\d+) seconds?\."),
        "blocked_ready": "You can make a new code now. Scan it only with your own phone.",
        "app": f"Continue in the {APP_NAME} app",
        "app_intro": "To be sure it is you, choose the number your computer shows next to the code.",
        "app_sent": f"Open the notification from the {APP_NAME} app on your phone. It will ask for the number shown here.",
        "continued": "Done. Go back to your computer to finish.",
        "wrong_pick": "That was not the number. Scan the new code on your computer.",
    },
    "hi": {
        "type_title": "अपनी कंप्यूटर स्क्रीन पर दिख रहा नंबर लिखें",
        "type_label": "कंप्यूटर पर दिख रहा नंबर",
        "context": re.compile(r"यह अनुरोध Windows पर Chrome से (?P<time>.+) पर किया गया।"),
        "report": "यह अनुरोध मैंने नहीं किया",
        "reported_title": "अनुरोध रोक दिया गया",
        "blocked_title": "हमने वह अनुरोध रोक दिया",
        "blocked_wait": re.compile(r"आपकी सुरक्षा के लिए (\d+) सेकंड तक नया कोड नहीं बन सकता।"),
    },
}


# --- the server and its workflows --------------------------------------------------------------

@pytest.fixture(scope="module")
def server(steps_hosted):
    """steps_hosted with this module's workflows (the server accepts `continuation` on a workflow)."""
    for workflow in WORKFLOWS.values():
        response = requests.post(steps_hosted.base_url + "/v1/workflows", json=workflow, headers=steps_hosted.auth_headers, timeout=10)
        assert response.status_code in (201, 409), \
            f"creating the {workflow['key']} workflow answered {response.status_code}: {response.text[:300]}"
    return steps_hosted


def new_verification(server, request, workflow: str, return_url: str | None = None) -> dict:
    name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
    body = {"user_id": f"e2e-{name}-{uuid.uuid4().hex[:8]}", "workflow": WORKFLOWS[workflow]["key"], "mobile": MOBILE}
    if return_url:
        body["return_url"] = return_url
    return _api(server, "POST", "/v1/verifications", body, expected=(201,))


def events_of(server, verification_id: str) -> list[dict]:
    """Every event of the verification (one page of up to 100: a continued journey has a dozen)."""
    page = _api(server, "GET", f"/v1/verifications/{verification_id}/events?limit=100")
    assert page["has_more"] is False, "more than 100 events"
    return page["data"]


# --- browsers ------------------------------------------------------------------------------------

def windows_desktop(desktops):
    """A camera-less desktop Chromium whose every request says it is Chrome on Windows."""
    driver = desktops()
    driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": WINDOWS_CHROME, "platform": "Win32"})
    return driver


def indian_phone(browsers):
    """The phone-sized Chromium (with the recording hook) in India's time zone."""
    driver = phone(browsers)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": PHONE_ZONE})
    return driver


# --- page helpers --------------------------------------------------------------------------------

def text_of(element) -> str:
    """An element's text with the no-break spaces Intl puts in times made plain."""
    return re.sub(r"[\u00a0\u202f]", " ", element.text).strip()


def typed_field(driver):
    """The typed-number screen: the field (numeric keyboard, no autofill, two digits) with its
    label and button, and no choices. Returns the field."""
    wait_for_state(driver, "match")
    field = visible(driver, "match-input")
    expected = {"inputmode": "numeric", "autocomplete": "off", "maxlength": "2", "pattern": "[0-9]{2}"}
    found = {name: field.get_attribute(name) for name in expected}
    assert found == expected, f"the match-input's attributes are {found}"
    label = driver.find_element(By.CSS_SELECTOR, 'label[for="match-input"]')
    assert label.is_displayed() and label.text.strip(), "the match-input has no visible label"
    assert visible(driver, "match-submit").is_enabled()
    shown_options = [b for b in driver.find_elements(By.CSS_SELECTOR, '[data-testid="match-option"]') if b.is_displayed()]
    assert not shown_options, "the typed-number screen also offers choices"
    return field


def type_number(driver, number: str) -> float:
    """Types `number` and presses match-submit; returns the time of the press (Unix ms)."""
    field = visible(driver, "match-input")
    field.clear()
    field.send_keys(number)
    pressed = time.time() * 1000
    visible(driver, "match-submit").click()
    return pressed


def api_calls(driver, suffix: str) -> list[dict]:
    return [call for call in recorded(driver)["calls"] if call["path"].endswith(suffix)]


def opened_context(driver) -> dict:
    """The `context` of this phone's `POST /continuations/open` answer."""
    opened = [call for call in api_calls(driver, "/continuations/open") if call["status"] == 200]
    assert len(opened) == 1, opened
    return opened[0]["body"]["context"]


def assert_context_line(driver, lang: str, created_at: str) -> str:
    """`continuation-context` names Chrome on Windows and the create time as the phone's clock
    (India) shows it, in the page's language."""
    line = text_of(visible(driver, "continuation-context"))
    match = WORDS[lang]["context"].fullmatch(line)
    assert match, f"the context line reads {line!r}"
    local = datetime.fromisoformat(created_at.replace("Z", "+00:00")).astimezone(ZoneInfo(PHONE_ZONE))
    clock = re.search(r"(\d{1,2}):(\d{2})", match.group("time"))
    assert clock, f"no time in {line!r}"
    hour, minute = int(clock.group(1)), int(clock.group(2))
    assert minute == local.minute and hour in (local.hour, local.hour % 12 or 12), \
        f"the line says {match.group('time')!r}, the request was made at {local:%H:%M} in {PHONE_ZONE}"
    return line


def api_resources(driver) -> list[str]:
    """Every journey API request the page made so far (Resource Timing: fetches included)."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/api/'));")


def page_fetch(driver, method: str, path: str) -> dict:
    """A same-origin call from the page's own context (its cookies and Origin): status, Retry-After, body."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[1], { method: arguments[0], credentials: 'same-origin', cache: 'no-store',"
        "  headers: { 'Content-Type': 'application/json' }, body: arguments[0] === 'GET' ? undefined : '{}' })"
        "  .then(async (r) => done({ status: r.status, retryAfter: r.headers.get('Retry-After'),"
        "                             body: await r.json().catch(() => null) }), (e) => done({ status: 0, body: String(e) }));",
        method, path)


def axe_clean(driver, screen: str, report: dict) -> None:
    time.sleep(0.2)
    report[screen] = summarize_violations(axe_violations(driver))


def assert_axe(report: dict, capsys, what: str) -> None:
    with capsys.disabled():
        print(f"\n  [axe, {what}] " + "; ".join(f"{screen}: {'none' if not lines else lines}" for screen, lines in report.items()))
    found = [f"[{screen}] {line}" for screen, lines in report.items() for line in lines]
    assert not found, "accessibility violations:\n" + "\n".join(found)


def visible_new_code(driver):
    """The blocked screen's "Show a new code", once it is offered (else False)."""
    found = [e for e in driver.find_elements(By.CSS_SELECTOR, '[data-testid="continuation-new"]') if e.is_displayed()]
    return found[0] if found else False


def blocked_seconds_shown(driver, lang: str) -> int:
    wait = visible(driver, "blocked-wait")
    match = WORDS[lang]["blocked_wait"].fullmatch(wait.text.strip())
    assert match, f"the blocked screen says {wait.text!r}"
    return int(match.group(1))


# --- 1. typed matching, end to end, with the context line -----------------------------------------

@pytest.mark.parametrize("lang", ["en", "hi"])
def test_typed_number_end_to_end(desktops, browsers, server, request, lang, capsys):
    verification = new_verification(server, request, "typed")
    vid = verification["id"]
    report: dict[str, list[str]] = {}
    desktop = windows_desktop(desktops)
    open_desktop(desktop, server, verification, lang=lang)
    assert desktop.execute_script("return navigator.userAgent;") == WINDOWS_CHROME
    ask_for_phone(desktop)
    link = wait_for_link(desktop, server, verification)
    assert link.get("app") is None, f"no endpoint hears {APP_EVENT}, yet the create answer offers {link.get('app')}"
    assert not [b for b in desktop.find_elements(By.CSS_SELECTOR, '[data-testid="continuation-app"]') if b.is_displayed()]
    # The computer says the number is to be typed, not chosen.
    assert link.get("matching") == "type", link
    number_label = visible(desktop, "continuation-number").get_attribute("aria-label")
    assert number_label == {"en": f"Number to type on your phone: {link['number']}",
                            "hi": f"फ़ोन पर टाइप करने वाला नंबर: {link['number']}"}[lang], number_label

    handset = indian_phone(browsers)
    assert open_link(handset, link["url"], verification, query=f"lang={lang}") == "match"
    field = typed_field(handset)
    assert handset.find_element(By.ID, "match-title").text.strip() == WORDS[lang]["type_title"]
    assert handset.find_element(By.CSS_SELECTOR, 'label[for="match-input"]').text.strip() == WORDS[lang]["type_label"]
    context = opened_context(handset)
    assert (context["browser"], context["os"]) == ("Chrome", "Windows"), context
    created = datetime.fromisoformat(context["created_at"].replace("Z", "+00:00")).timestamp()
    assert abs(created - time.time()) < 120, f"the request's time {context['created_at']} is not about now"
    line = assert_context_line(handset, lang, context["created_at"])
    assert visible(handset, "continuation-report").text.strip() == WORDS[lang]["report"]
    axe_clean(handset, "phone-type", report)
    shot(handset, "phone-type", lang)

    # A reload on the typing screen asks again, the same way (kept in sessionStorage, without the secret).
    handset.refresh()
    assert wait_for_settled_state(handset) == "match"
    field = typed_field(handset)
    assert text_of(visible(handset, "continuation-context")) == line

    if lang == "en":
        # Not two digits: said on the page, and nothing is sent (the link is not burnt).
        field.send_keys("7")
        visible(handset, "match-submit").click()
        error = visible(handset, "match-error")
        assert error.text.strip() == WORDS["en"]["type_shape"], error.text
        assert field.get_attribute("aria-invalid") == "true"
        assert not api_calls(handset, "/continuations/match"), "a one-digit entry was sent"
        shot(handset, "phone-type-error", lang)

    pressed = type_number(handset, link["number"])
    on_step(handset, "profile")
    keep_session_secret(server, handset)
    wait_for_state(desktop, "elsewhere", timeout=FOLLOW_WITHIN + 5)
    followed = (state_time(desktop, "elsewhere") - pressed) / 1000
    assert followed <= FOLLOW_WITHIN, f"the desktop showed the progress screen {followed:.2f} s after the typed number"
    matches = api_calls(handset, "/continuations/match")
    assert [call["status"] for call in matches] == [200], matches
    axe_clean(desktop, "desktop-elsewhere", report)
    assert_clean_console(handset, "phone")
    assert_clean_console(desktop, "desktop")

    events = events_of(server, vid)
    types = [event["type"] for event in events]
    assert "verification.continuation_matched" in types and "verification.continuation_failed" not in types, types
    assert [e["data"].get("method") for e in events if e["type"] == "verification.signed_in"] == ["handoff", "continuation"]
    assert_axe(report, capsys, f"typed, {lang}")
    with capsys.disabled():
        print(f"\n  [typed, {lang}] context line {line!r}; desktop followed in {followed:.2f} s")


def test_wrong_typed_number_burns_the_link(browsers, server, request):
    verification = new_verification(server, request, "typed")
    _, link = api_continuation(server, verification)
    handset = indian_phone(browsers)
    assert open_link(handset, link["url"], verification) == "match"
    typed_field(handset)
    wrong = f"{(int(link['number']) + 1) % 100:02d}"
    type_number(handset, wrong)
    refused_to_signin(handset, WORDS["en"]["wrong_pick"])
    assert not [c for c in handset.get_cookies() if c["name"] == "hosted_session"], "a wrong number left a session"
    failed = [e for e in events_of(server, verification["id"]) if e["type"] == "verification.continuation_failed"]
    assert len(failed) == 1 and failed[0]["data"] == {"reason": "wrong_number"}, failed


def test_typed_number_in_webkit(server, request):
    driver = request.getfixturevalue("webkit")  # fails with its reason when WebKitGTK or a display is missing
    verification = new_verification(server, request, "typed")
    _, link = api_continuation(server, verification)
    assert open_link(driver, link["url"], verification) == "match"
    typed_field(driver)
    line = text_of(visible(driver, "continuation-context"))
    assert line.startswith("Requested") and "at " in line, line  # made over plain HTTP: no browser to name
    shot(driver, "webkit-type")
    type_number(driver, link["number"])
    on_step(driver, "profile")
    state = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], { credentials: 'same-origin' }).then((r) => r.json()).then(done, (e) => done(String(e)));",
        f"/j/{verification['id']}/api/state")
    assert isinstance(state, dict) and state.get("continued") is True, state


# --- 2. "This wasn't me" -----------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "hi"])
def test_report_from_the_phone_blocks_the_computer(desktops, browsers, server, request, lang, capsys):
    verification = new_verification(server, request, "chosen")
    vid = verification["id"]
    report: dict[str, list[str]] = {}
    desktop = windows_desktop(desktops)
    open_desktop(desktop, server, verification, lang=lang)
    ask_for_phone(desktop)
    link = wait_for_link(desktop, server, verification)

    handset = indian_phone(browsers)
    assert open_link(handset, link["url"], verification, query=f"lang={lang}") == "match"
    match_options(handset)
    assert_context_line(handset, lang, opened_context(handset)["created_at"])
    axe_clean(handset, "phone-choose", report)
    shot(handset, "phone-choose-context", lang)
    button = visible(handset, "continuation-report")
    assert button.text.strip() == WORDS[lang]["report"]
    reported_at = time.time() * 1000
    button.click()

    # The phone: a calm word, and nothing more (no sign-in form, no new request by itself).
    wait_for_state(handset, "reported")
    assert handset.find_element(By.ID, "match-title").text.strip() == WORDS[lang]["reported_title"]
    if lang == "en":
        assert handset.find_element(By.ID, "match-intro").text.strip() == WORDS["en"]["reported"]
    for testid in ("match-option", "continuation-report", "match-input", "signin-mobile", "continuation-context"):
        assert not [e for e in handset.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]') if e.is_displayed()], \
            f"{testid} still shows after the report"
    reports = api_calls(handset, "/continuations/report")
    assert [call["status"] for call in reports] == [200] and reports[0]["body"] == {"status": "reported"}, reports
    sent_after_report = len(api_resources(handset))

    # The computer: blocked within 2 s, counting down the pause.
    wait_for_state(desktop, "blocked", timeout=FOLLOW_WITHIN + 5)
    blocked_after = (state_time(desktop, "blocked") - reported_at) / 1000
    assert blocked_after <= FOLLOW_WITHIN, f"the desktop turned blocked {blocked_after:.2f} s after the report"
    assert desktop.find_element(By.ID, "blocked-title").text.strip() == WORDS[lang]["blocked_title"]
    polls = [call for call in api_calls(desktop, "/continuations/current")
             if call["status"] == 200 and (call["body"].get("continuation") or {}).get("status") == "reported"]
    assert polls, "no poll answer with the continuation reported"
    blocked_seconds = polls[0]["body"].get("blocked_seconds")
    assert isinstance(blocked_seconds, int) and PAUSE - 5 <= blocked_seconds <= PAUSE, polls[0]["body"]
    first = blocked_seconds_shown(desktop, lang)
    assert PAUSE - 8 <= first <= PAUSE, first
    assert not visible_new_code(desktop), "a new code is offered during the pause"

    # The server agrees: no new code, 429 with Retry-After within the pause.
    refused = page_fetch(desktop, "POST", f"/j/{vid}/api/continuations")
    assert refused["status"] == 429 and (refused["body"] or {}).get("code") == "rate_limited", refused
    assert refused["retryAfter"] and 0 < int(refused["retryAfter"]) <= PAUSE, refused
    time.sleep(2.2)
    later = blocked_seconds_shown(desktop, lang)
    assert later < first, f"the countdown does not move: {first} then {later}"
    axe_clean(desktop, "desktop-blocked", report)
    shot(desktop, "desktop-blocked", lang)
    axe_clean(handset, "phone-reported", report)
    shot(handset, "phone-reported", lang)

    # Flagged and recorded; the verification stays open (the workflow only flags).
    verification_now = _api(server, "GET", f"/v1/verifications/{vid}")
    assert "continuation_reported" in verification_now.get("flags", []), verification_now.get("flags")
    assert verification_now["status"] in ("created", "in_progress"), verification_now["status"]
    assert "verification.continuation_reported" in [e["type"] for e in events_of(server, vid)]
    assert len(api_resources(handset)) == sent_after_report, "the phone sent something after the report"
    assert_axe(report, capsys, f"report, {lang}")
    if lang != "en":
        return

    # Only once the pause is over: "Show a new code", never a code by itself.
    fresh = wait_until(desktop, lambda d: visible_new_code(d), "continuation-new after the pause", timeout=PAUSE + 15)
    waited = time.time() - reported_at / 1000
    assert waited >= PAUSE - 3, f"a new code was offered {waited:.1f} s after the report"
    assert desktop.find_element(By.CSS_SELECTOR, '[data-testid="blocked-wait"]').text.strip() == WORDS["en"]["blocked_ready"]
    time.sleep(1.0)
    assert len(created_links(desktop)) == 1, "the desktop made a new code by itself"
    shot(desktop, "desktop-blocked-ready", lang)
    fresh.click()
    second = wait_for_link(desktop, server, verification, after=1)
    assert second["url"] != link["url"]
    wait_for_state(desktop, "step")
    assert visible(desktop, "continuation-qr")
    assert len(api_resources(handset)) == sent_after_report, "the phone sent something after the report"
    with capsys.disabled():
        print(f"\n  [report] desktop blocked {blocked_after:.2f} s after the report; new code offered after {waited:.1f} s")


def test_report_cancels_with_on_report_cancel(desktops, browsers, server, request):
    verification = new_verification(server, request, "cancel")
    desktop = desktops()
    open_desktop(desktop, server, verification)
    ask_for_phone(desktop)
    link = wait_for_link(desktop, server, verification)
    handset = indian_phone(browsers)
    assert open_link(handset, link["url"], verification) == "match"
    match_options(handset)
    visible(handset, "continuation-report").click()
    wait_for_state(handset, "reported")
    # The computer shows the closed screen, as for any cancel.
    wait_for_state(desktop, "closed", timeout=10)
    assert visible(desktop, "journey-status").get_attribute("data-status") == "canceled"
    shot(desktop, "desktop-report-canceled")
    after = _api(server, "GET", f"/v1/verifications/{verification['id']}")
    assert after["status"] == "canceled" and "continuation_reported" in after.get("flags", []), \
        (after["status"], after.get("flags"))


# --- 3. continue in the customer's app -------------------------------------------------------------

@pytest.fixture(scope="module")
def acme(journey_hosted, return_page):
    """An account named Acme on the journey server, with the return page and a workflow."""
    result = subprocess.run([str(journey_hosted.binary), "accounts", "create", "--name", APP_NAME],
                            env=journey_hosted.cli_env, capture_output=True, text=True, timeout=60,
                            cwd=REPO_ROOT)
    assert result.returncode == 0, f"`hosted accounts create` exited {result.returncode}: {result.stderr[-500:]}"
    created = json.loads(result.stdout)
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    for path, body in (("/v1/return_urls", {"url": return_page.url}), ("/v1/workflows", WORKFLOWS["chosen"])):
        _api(server, "POST", path, body, expected=(200, 201))
    return server


@pytest.fixture
def receiver():
    receiver = Receiver()
    try:
        yield receiver
    finally:
        receiver.close()


def test_continue_in_the_app(desktops, browsers, acme, receiver, return_page, request, capsys):
    path = f"/acme/hooks-{uuid.uuid4().hex[:8]}"
    endpoint = _api(acme, "POST", "/v1/webhook_endpoints", {"url": receiver.url(path), "events": [APP_EVENT]},
                    expected=(201,))
    signing = endpoint["secret"]
    acme.secrets.append(signing)
    verification = new_verification(acme, request, "chosen", return_url=return_page.url)
    vid = verification["id"]

    # The computer: the code panel, with the app's button under the account's name.
    desktop = desktops()
    open_desktop(desktop, acme, verification)
    ask_for_phone(desktop)
    link = wait_for_link(desktop, acme, verification)
    assert link.get("app") == {"name": APP_NAME}, link.get("app")
    app_button = visible(desktop, "continuation-app")
    assert app_button.text.strip() == WORDS["en"]["app"]
    shot(desktop, "desktop-app-offer")
    app_button.click()
    sent = visible(desktop, "continuation-app-sent")
    assert sent.text.strip() == WORDS["en"]["app_sent"], sent.text
    assert [call["status"] for call in api_calls(desktop, "/continuations/app")] == [202]
    assert visible(desktop, "continuation-number").text.strip() == link["number"], "the number went away"
    assert visible(desktop, "continuation-qr")
    shot(desktop, "desktop-app-sent")

    # The customer's backend: the signed message, then a handoff for its app.
    message = receiver.wait_for(path, 1, timeout=15, what=f"the {APP_EVENT} message")[0]
    headers = {name: message.headers[name] for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
    payload = Webhook(signing).verify(message.body, headers)
    assert payload["type"] == APP_EVENT and payload["data"].get("verification_id") == vid, payload
    secret = link["url"].split("#continue=", 1)[1]
    assert secret not in message.body.decode() and "number" not in json.dumps(payload), "the message carries the link or number"
    requested = [e for e in events_of(acme, vid) if e["type"] == APP_EVENT]
    assert len(requested) == 1 and set(requested[0]["data"]) == {"continuation_id"}, requested
    handoff = mint_handoff(acme, verification, continuation=True)

    # The app's in-app browser: the number first, then the journey.
    handset = indian_phone(browsers)
    handset.get(handoff["url"])
    assert wait_for_settled_state(handset) == "match"
    assert "handoff" not in handset.current_url, "the handoff secret stayed in the address bar"
    buttons = match_options(handset)
    assert handset.find_element(By.ID, "match-intro").text.strip() == WORDS["en"]["app_intro"], "the phone speaks of a scanned code"
    line = text_of(visible(handset, "continuation-context"))
    assert line.startswith("Requested from Chrome"), line
    shot(handset, "phone-app-match")
    # The QR code's link no longer opens: the app took this continuation.
    opened = requests.post(f"{acme.base_url}/j/{vid}/api/continuations/open", json={"secret": secret},
                           headers={"Origin": acme.base_url}, timeout=10)
    assert opened.status_code == 401, f"the QR link still opens after the app joined: {opened.status_code}"
    clicked, _ = pick(buttons, number=link["number"])
    on_step(handset, "profile")
    keep_session_secret(acme, handset)
    wait_for_state(desktop, "elsewhere", timeout=FOLLOW_WITHIN + 5)
    followed = (state_time(desktop, "elsewhere") - clicked) / 1000
    assert followed <= FOLLOW_WITHIN, f"the desktop followed {followed:.2f} s after the pick"

    # The phone finishes; the computer lands on the return URL as with a link.
    fill_profile(handset)
    take_photos(handset, "selfie", 1)
    on_review(handset).click()
    wait_for_state(handset, "submitted")
    assert handset.find_element(By.ID, "done-note").text.strip() == WORDS["en"]["continued"]
    base = return_page.url.split("?")[0]
    wait_until(desktop, lambda d: d.current_url.startswith(base), f"the desktop on the return URL {base}", timeout=10)
    assert parse_qs(urlsplit(desktop.current_url).query).get("status") == ["submitted"], desktop.current_url
    assert_clean_console(handset, "phone")
    methods = [e["data"].get("method") for e in events_of(acme, vid) if e["type"] == "verification.signed_in"]
    assert methods[0] == "handoff" and "continuation" in methods, methods
    assert body_state(handset) == "submitted"
    with capsys.disabled():
        print(f"\n  [app] message {message.headers.get('webhook-id')} verified; desktop followed in {followed:.2f} s")


# --- 4. the server's word on the pause, without a browser ------------------------------------------

def test_blocked_seconds_of_a_waited_poll_answer(server, request):
    """A long-poll that waited with nothing new answers the pause left when it answers, not
    when it began (the page counts from the answer, only ever down)."""
    verification = new_verification(server, request, "chosen")
    computer, link = api_continuation(server, verification)
    base = f"{server.base_url}/j/{verification['id']}/api"
    handset = requests.Session()
    handset.headers["Origin"] = server.base_url
    opened = handset.post(f"{base}/continuations/open", json={"secret": link["url"].split("#continue=", 1)[1]}, timeout=10)
    assert opened.status_code == 200, opened.text[:300]
    reported = handset.post(f"{base}/continuations/report", json={}, timeout=10)
    assert reported.status_code == 200 and reported.json() == {"status": "reported"}, reported.text[:300]
    assert not handset.cookies.get("hosted_claim"), "the report left the claim cookie"
    again = handset.post(f"{base}/continuations/report", json={}, timeout=10)
    assert again.status_code == 401, f"a second report answered {again.status_code}"
    reported_at = time.monotonic()
    first = computer.get(f"{base}/continuations/current", timeout=10).json()
    assert first["continuation"]["status"] == "reported", first
    started = time.monotonic()
    waited = computer.get(f"{base}/continuations/current", params={"since": first["tag"], "wait": 5}, timeout=15).json()
    answered = time.monotonic()
    assert answered - started >= 4, "the poll did not wait: nothing changed"
    left = PAUSE - (answered - reported_at)
    assert waited["blocked_seconds"] <= left + 1.5, \
        f"blocked_seconds {waited['blocked_seconds']} after a {answered - started:.1f} s wait; {left:.1f} s of the pause are left"
