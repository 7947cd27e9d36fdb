"""Continuing on another device, end to end in real browsers: a computer without a camera hands
the journey to a phone by QR code (or SMS) and a two-digit number, and follows it to the end.

The computer ("desktop") is a headless Chromium started WITHOUT the fake-camera flags, in a
1280 x 800 window: `navigator.mediaDevices.enumerateDevices()` lists no `videoinput` there, so
the page must offer the phone by itself on its first photo step. Each test asserts that the
desktop really has no camera; only if the machine running the tests has a real one is
`navigator.mediaDevices` taken away before the page loads (CDP
`Page.addScriptToEvaluateOnNewDocument`; the run prints which). The phones are the usual
phone-sized Chromium with a fake camera (`browsers` fixture) and, for one test, WebKitGTK's
MiniBrowser (`webkit` fixture; skipped when WebKitGTK or a display is missing).

Both Chromiums get a small CDP-injected hook (not subject to the page's CSP) that records the
answers of the page's own `/api/continuations…` calls (the link and number the desktop got) and
every change of `<body data-state>` with its time, so the test can compare the QR code, decoded
with `zbarimg` from an element screenshot of `continuation-qr`, with the link the server gave,
and measure how soon the desktop follows the phone.

The server is `steps_hosted` (conftest.py) with a workflow of this module's own: profile, selfie,
premises photos (1..4), the return URL being the loopback `return_page`. Screenshots go to
`test-artifacts/continue-<screen>-<lang>.png`.
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from PIL import Image, ImageOps
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from browser import (
    ARTIFACTS,
    CHROMEDRIVER,
    CHROMIUM,
    DEFAULT_WAIT,
    FLAGS,
    MINIBROWSER,
    WEBKIT_DRIVER,
    axe_violations,
    body_state,
    console_problems,
    require_browser,
    screenshot,
    summarize_violations,
    visible,
    wait_for_settled_state,
    wait_for_state,
)
from test_journey_lifecycle import events_of
from test_journey_signin import _api, mint_handoff, outbox
from test_journey_steps import fill_profile, journey_session, on_review, on_step, shown, step_css, take_photos, wait_until

# This module's own number (the SMS test reads its outbox; codes and texts are limited per
# number and per verification, so no other test module's number).
MOBILE = "+919822233344"
WORKFLOW_KEY = "kyc_continue"
WORKFLOW = {
    "key": WORKFLOW_KEY,
    "name": "KYC on the phone",
    "steps": [{"type": "profile"}, {"type": "selfie"}, {"type": "premises_photos", "min": 1, "max": 4}],
}
STEP_IDS = ["profile", "selfie", "premises_photos"]
DESKTOP = (1280, 800)
SECRET = re.compile(r"[A-Za-z0-9_-]{43}")
FOLLOW_WITHIN = 2.0  # seconds from the phone's pick to the desktop's progress screen

# The words the page shows (public/journey/i18n/en.js, hi.js), for the messages asserted here.
WORDS = {
    "en": {
        "no_camera": "This device has no camera. You can take the photos on your phone instead.",
        "match_title": "Which number is on your computer screen?",
        "used": "This code was already used or has expired. Scan the new code on your computer, "
                "or sign in with your mobile number.",
        "wrong_pick": "That was not the number. Scan the new code on your computer.",
        "wrong_number": "A different number was chosen on the phone, so that code can no longer be used. Here is a new code.",
        "sms_sent": "Sent to your mobile number.",
        "continued": "Done. Go back to your computer to finish.",
        "elsewhere_title": "Continuing on your phone",
    },
    "hi": {
        "no_camera": "इस डिवाइस पर कैमरा नहीं है। आप फ़ोटो अपने फ़ोन से ले सकते हैं।",
        "match_title": "आपकी कंप्यूटर स्क्रीन पर कौन-सा नंबर है?",
        "elsewhere_title": "आपके फ़ोन पर जारी है",
    },
}

# Injected before any of the page's scripts (CDP; the page's CSP does not apply to it): records
# the answers of the page's continuation calls and every `<body data-state>` change, with times.
HOOK_SCRIPT = """
(() => {
  const record = { calls: [], states: [] };
  Object.defineProperty(window, "__e2e", { value: record });
  const realFetch = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    const url = typeof input === "string" ? input : (input && input.url) || String(input);
    const method = String((init && init.method) || (input && input.method) || "GET").toUpperCase();
    const response = await realFetch(input, init);
    if (url.includes("/api/continuations")) {
      const entry = { method, path: new URL(url, location.href).pathname, status: response.status, at: Date.now(), body: null };
      try { entry.body = await response.clone().json(); } catch (error) { /* 204, or not JSON */ }
      record.calls.push(entry);
    }
    return response;
  };
  new MutationObserver(() => {
    const state = document.body && document.body.dataset.state;
    const last = record.states[record.states.length - 1];
    if (state && (!last || last.state !== state)) record.states.push({ state, at: Date.now() });
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-state"] });
})();
"""

# Only for a machine with a real camera: the desktop then has no way to list or open one.
NO_MEDIA_DEVICES_SCRIPT = "Object.defineProperty(Navigator.prototype, 'mediaDevices', { get: () => undefined });"
CAMERA_MODE: list[str] = []  # how the desktops got to have no camera (printed once)


# --- the browsers ------------------------------------------------------------------------------

NO_CAMERA_FLAGS = [
    flag for flag in FLAGS
    if flag not in ("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream")
    and not flag.startswith("--window-size=")
] + [f"--window-size={DESKTOP[0]},{DESKTOP[1]}"]


def new_desktop_driver(profile_dir: Path):
    """A headless Chromium with a fresh profile, a desktop window and no camera at all (started
    without the fake media flags), with the recording hook."""
    require_browser()
    profile_dir.mkdir(parents=True, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in NO_CAMERA_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_output=str(profile_dir.parent / f"{profile_dir.name}.chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(DEFAULT_WAIT * 2)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.set_window_size(*DESKTOP)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK_SCRIPT})
    except Exception:
        driver.quit()
        raise
    return driver


@pytest.fixture
def desktops(tmp_path: Path):
    """Opens camera-less desktop Chromiums (`desktop = desktops()`); quits them after the test."""
    opened = []

    def open_desktop():
        driver = new_desktop_driver(tmp_path / f"desktop-{len(opened) + 1}")
        opened.append(driver)
        return driver

    try:
        yield open_desktop
    finally:
        for driver in opened:
            try:
                driver.quit()
            except Exception:
                pass


def phone(browsers):
    """A phone-sized Chromium with a fake camera (browser.new_driver), with the recording hook."""
    driver = browsers()
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK_SCRIPT})
    return driver


# --- the server --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(steps_hosted):
    """steps_hosted with this module's workflow (profile, selfie, 1..4 premises photos)."""
    response = requests.post(steps_hosted.base_url + "/v1/workflows", json=WORKFLOW, headers=steps_hosted.auth_headers, timeout=10)
    assert response.status_code in (201, 409), f"creating the {WORKFLOW_KEY} workflow answered {response.status_code}: {response.text[:300]}"
    return steps_hosted


def new_verification(server, request, return_url: str | None = None) -> dict:
    name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
    body = {"user_id": f"e2e-{name}-{uuid.uuid4().hex[:8]}", "workflow": WORKFLOW_KEY, "mobile": MOBILE}
    if return_url:
        body["return_url"] = return_url
    verification = _api(server, "POST", "/v1/verifications", body, expected=(201,))
    assert [step["id"] for step in verification["steps"]] == STEP_IDS
    return verification


# --- page helpers ------------------------------------------------------------------------------

def recorded(driver) -> dict:
    return driver.execute_script("return window.__e2e ? { calls: window.__e2e.calls, states: window.__e2e.states } : null;") \
        or {"calls": [], "states": []}


def created_links(driver) -> list[dict]:
    """The answers of the page's `POST /continuations` that made a link (201), oldest first."""
    return [call["body"] for call in recorded(driver)["calls"]
            if call["method"] == "POST" and call["path"].endswith("/api/continuations") and call["status"] == 201]


def check_link(server, verification: dict, link: dict) -> str:
    """The create answer is well formed; returns its secret (registered for the log check)."""
    prefix = f"{server.base_url}/j/{verification['id']}#continue="
    assert link["url"].startswith(prefix), f"the link {link['url'][:60]}… is not {prefix}SECRET"
    secret = link["url"][len(prefix):]
    assert SECRET.fullmatch(secret), f"the link's secret is not 43 base64url characters: {len(secret)} characters"
    assert re.fullmatch(r"[1-9][0-9]", link["number"]), link["number"]
    assert link["qr_svg"].lstrip().startswith(("<svg", "<?xml")), link["qr_svg"][:80]
    server.secrets.append(secret)  # checked against the server log at teardown
    return secret


def wait_for_link(driver, server, verification: dict, after: int = 0) -> dict:
    """The link the desktop page made after its first `after` ones: shown with its number."""
    links = wait_until(driver, lambda d: (lambda found: found if len(found) > after else False)(created_links(d)),
                       f"link {after + 1} made by the desktop page")
    link = links[-1]
    check_link(server, verification, link)
    number = visible(driver, "continuation-number")
    wait_until(driver, lambda d: number.text.strip() == link["number"],
               f"the number {link['number']} of the new link on screen (shows {number.text!r})")
    return link


def shown_panel(driver) -> None:
    panel = visible(driver, "continuation")
    assert panel.is_displayed()
    visible(driver, "continuation-number")
    visible(driver, "continuation-qr")
    visible(driver, "continuation-sms")


def decode_qr(driver, tmp_path: Path, name: str) -> str:
    """The text of the QR code on screen: an element screenshot of `continuation-qr` (an <img> of
    the server's SVG), read by zbarimg (once more enlarged and thresholded if it reads nothing)."""
    if not shutil.which("zbarimg"):
        pytest.fail("zbarimg is missing: `apt-get install zbar-tools`", pytrace=False)
    qr = visible(driver, "continuation-qr")
    wait_until(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0;", qr),
               "the QR code image loaded")
    png = qr.screenshot_as_png
    path = tmp_path / f"{name}.png"
    path.write_bytes(png)
    attempts = [path]
    with Image.open(io.BytesIO(png)) as image:
        gray = image.convert("L").point(lambda value: 255 if value > 140 else 0)
        big = ImageOps.expand(gray.resize((gray.width * 3, gray.height * 3), Image.NEAREST), border=60, fill=255)
        enlarged = tmp_path / f"{name}-enlarged.png"
        big.save(enlarged)
        attempts.append(enlarged)
    for attempt in attempts:
        result = subprocess.run(["zbarimg", "--raw", "-q", str(attempt)], capture_output=True, text=True, timeout=30)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        if result.returncode == 0 and lines:
            assert len(lines) == 1, f"zbarimg found {len(lines)} codes in {attempt}"
            return lines[0].strip()
    pytest.fail(f"zbarimg could not read the QR code (screenshot {path}): rc {result.returncode} {result.stderr[:200]}",
                pytrace=False)


def has_camera(driver) -> bool:
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "if (!navigator.mediaDevices || !navigator.mediaDevices.enumerateDevices) { done(false); return; }"
        "navigator.mediaDevices.enumerateDevices().then("
        "  (devices) => done(devices.some((device) => device.kind === 'videoinput')), () => done(true));"
    )


def open_desktop(driver, server, verification: dict, lang: str | None = None) -> None:
    """Opens the journey signed in by a handoff (optionally `?lang=`) on a camera-less desktop,
    on its first step (the profile), and makes sure this browser really lists no camera."""
    url = mint_handoff(server, verification)["url"]
    if lang:
        url = url.replace("#handoff=", f"?lang={lang}#handoff=", 1)
    driver.get(url)
    on_step(driver, "profile")
    if has_camera(driver):
        # This machine has a real camera: take the device list away, then the page again (the
        # session cookie is kept; the handoff was single use).
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_MEDIA_DEVICES_SCRIPT})
        driver.refresh()
        on_step(driver, "profile")
        assert not has_camera(driver)
        if not CAMERA_MODE:
            CAMERA_MODE.append("a camera was listed: navigator.mediaDevices removed by CDP script")
    elif not CAMERA_MODE:
        CAMERA_MODE.append("no fake-media flags: enumerateDevices() lists no videoinput (no script needed)")
    assert driver.execute_script("return [innerWidth, innerHeight];")[0] >= 1200, "the desktop window is not desktop-sized"


def ask_for_phone(driver) -> None:
    """The `continue-elsewhere` button (offered on the profile step as on every step before a photo)."""
    shown(driver, '[data-testid="continue-elsewhere"]', "the continue-elsewhere button").click()
    shown_panel(driver)


def open_link(driver, url: str, verification: dict, query: str = "") -> str:
    """Opens the link (a `?lang=` query goes before the fragment); returns the state it settled
    in, after checking that the secret left the address bar."""
    if query:
        url = url.replace("#continue=", f"?{query}#continue=", 1)
    driver.get(url)
    state = wait_for_settled_state(driver)
    current = driver.current_url
    assert "#continue" not in current and "continue=" not in current, "the link's secret stayed in the address bar"
    expected = verification["journey_url"] + (f"?{query}" if query else "")
    assert current == expected, f"the phone's address is {current}, expected {expected}"
    return state


def match_options(driver) -> list:
    wait_for_state(driver, "match")
    buttons = wait_until(driver, lambda d: (lambda found: found if len(found) == 3 else False)(
        [b for b in d.find_elements(By.CSS_SELECTOR, '[data-testid="match-option"]') if b.is_displayed()]),
        "three match-option buttons")
    numbers = [button.text.strip() for button in buttons]
    assert all(re.fullmatch(r"[0-9]{2}", number) for number in numbers), numbers
    assert len(set(numbers)) == 3, f"the three options are not distinct: {numbers}"
    return buttons


def pick(buttons, number: str | None = None, wrong_for: str | None = None):
    """Clicks the option whose text is `number` (or, with `wrong_for`, one that is not); returns
    the time of the click (Unix ms)."""
    for button in buttons:
        text = button.text.strip()
        if (number is not None and text == number) or (wrong_for is not None and text != wrong_for):
            clicked = time.time() * 1000
            button.click()
            return clicked, text
    pytest.fail(f"no option {number or 'other than ' + str(wrong_for)} among {[b.text for b in buttons]}", pytrace=False)


def refused_to_signin(driver, message: str) -> None:
    """The phone was refused: the sign-in screen, with `message` above it."""
    wait_for_state(driver, "signin")
    visible(driver, "signin-mobile")
    error = visible(driver, "signin-error")
    wait_until(driver, lambda d: error.text.strip() == message, f"the sign-in message {message!r} (shows {error.text!r})")


def state_time(driver, state: str) -> float | None:
    for entry in recorded(driver)["states"]:
        if entry["state"] == state:
            return entry["at"]
    return None


def elsewhere_rows(driver) -> dict[str, str]:
    return {row.get_attribute("data-step"): row.get_attribute("data-status")
            for row in driver.find_elements(By.CSS_SELECTOR, '#elsewhere [data-testid="elsewhere-step"]')}


def phone_state(driver, verification: dict) -> dict:
    """The phone's own `GET /api/state` (its session cookie)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], { credentials: 'same-origin', cache: 'no-store' })"
        "  .then((r) => r.json().then((body) => done({ status: r.status, body })), (e) => done({ status: 0, body: String(e) }));",
        f"/j/{verification['id']}/api/state",
    )


def keep_session_secret(server, driver) -> None:
    for cookie in driver.get_cookies():
        if cookie.get("name") in ("hosted_session", "hosted_claim"):
            server.secrets.append(cookie["value"])


def assert_clean_console(driver, who: str) -> None:
    problems = console_problems(driver)
    assert not problems, f"the {who}'s page logged errors:\n" + "\n".join(problems)


def shot(driver, screen: str, lang: str = "en") -> str:
    """`test-artifacts/continue-SCREEN-LANG.png`: the phone's viewport, or the desktop's whole
    page (its panel is taller than the window)."""
    time.sleep(0.15)  # let the screen finish painting
    name = f"continue-{screen}-{lang}"
    if driver.execute_script("return innerWidth;") < DESKTOP[0] - 100:
        return screenshot(driver, name).name
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    captured = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    path.write_bytes(base64.b64decode(captured["data"]))
    return path.name


def api_continuation(server, verification: dict) -> tuple[requests.Session, dict]:
    """A desktop's link made over plain HTTP with a handoff session (for the tests about phones)."""
    session = journey_session(server, verification)
    response = session.post(f"{server.base_url}/j/{verification['id']}/api/continuations", timeout=10)
    assert response.status_code == 201, f"POST /continuations answered {response.status_code}: {response.text[:300]}"
    link = response.json()
    check_link(server, verification, link)
    return session, link


# --- 1. the whole journey: desktop without camera, phone by QR code ------------------------------

def test_desktop_without_camera_continues_on_phone(desktops, browsers, server, return_page, request, tmp_path, capsys):
    verification = new_verification(server, request, return_url=return_page.url)
    vid = verification["id"]
    desktop = desktops()
    open_desktop(desktop, server, verification)

    # The profile step needs no camera: the page only offers the phone (a button), no panel.
    assert desktop.find_elements(By.CSS_SELECTOR, '[data-testid="continue-elsewhere"]'), "no continue-elsewhere on the profile step"
    assert not desktop.find_elements(By.CSS_SELECTOR, '[data-testid="continuation"]'), "the panel showed on the profile step"
    assert created_links(desktop) == [], "a link was made before any photo step"
    fill_profile(desktop)

    # On the first photo step the panel comes by itself, above the step (whose file input stays).
    on_step(desktop, "selfie")
    shown_panel(desktop)
    panel = visible(desktop, "continuation")
    assert WORDS["en"]["no_camera"] in panel.text, panel.text
    assert desktop.find_element(By.CSS_SELECTOR, step_css("selfie")).is_displayed(), "the selfie step went away"
    link = wait_for_link(desktop, server, verification)
    number = visible(desktop, "continuation-number").text.strip()
    assert re.fullmatch(r"[1-9][0-9]", number), number
    assert decode_qr(desktop, tmp_path, "qr-1") == link["url"], "the QR code is not the link"
    shots = [shot(desktop, "desktop-panel")]

    # The phone opens the link: the secret leaves its address bar; three numbers, one the desktop's.
    handset = phone(browsers)
    assert open_link(handset, link["url"], verification) == "match"
    assert handset.find_element(By.ID, "match-title").text.strip() == WORDS["en"]["match_title"]
    buttons = match_options(handset)
    options = [button.text.strip() for button in buttons]
    assert number in options, f"the desktop's number {number} is not among the phone's options {options}"
    shots.append(shot(handset, "phone-match"))

    clicked, _ = pick(buttons, number=number)
    on_step(handset, "selfie")  # the profile was done on the desktop
    keep_session_secret(server, handset)
    wait_for_state(desktop, "elsewhere", timeout=FOLLOW_WITHIN + 5)
    followed = (state_time(desktop, "elsewhere") - clicked) / 1000
    assert followed <= FOLLOW_WITHIN, f"the desktop showed the progress screen {followed:.2f} s after the pick"
    assert elsewhere_rows(desktop) == {"profile": "completed", "selfie": "pending", "premises_photos": "pending"}, \
        elsewhere_rows(desktop)
    assert visible(desktop, "continue-here")

    state = phone_state(handset, verification)
    assert state["status"] == 200, state
    assert state["body"].get("continued") is True and state["body"].get("return_url") is None, \
        {key: state["body"].get(key) for key in ("continued", "return_url")}
    assert not handset.find_elements(By.CSS_SELECTOR, '[data-testid="continue-elsewhere"]'), \
        "the phone that continued offers to continue elsewhere again"

    # The phone takes the photos; the desktop ticks each step off as it is completed.
    take_photos(handset, "selfie", 1)
    wait_until(desktop, lambda d: elsewhere_rows(d).get("selfie") == "completed", "the desktop showing the selfie done")
    shots.append(shot(desktop, "desktop-progress"))
    take_photos(handset, "premises_photos", 1)
    wait_until(desktop, lambda d: elsewhere_rows(d).get("premises_photos") == "completed",
               "the desktop showing the premises photos done")
    submit = on_review(handset)
    assert_clean_console(handset, "phone")
    submitted_at = time.monotonic()
    submit.click()

    # The phone stays on its submitted screen; the desktop goes to the return URL.
    wait_for_state(handset, "submitted")
    assert visible(handset, "journey-status").get_attribute("data-status") == "submitted"
    assert handset.find_element(By.ID, "done-note").text.strip() == WORDS["en"]["continued"]
    assert handset.current_url == verification["journey_url"], f"the phone left the journey: {handset.current_url}"
    shots.append(shot(handset, "phone-submitted"))

    base = return_page.url.split("?")[0]
    assert_clean_console(desktop, "desktop")
    wait_until(desktop, lambda d: d.current_url.startswith(base), f"the desktop on the return URL {base}", timeout=10)
    returned = time.monotonic() - submitted_at
    query = parse_qs(urlsplit(desktop.current_url).query)
    assert query == {"src": ["app"], "verification_id": [vid], "status": ["submitted"]}, desktop.current_url
    assert any(path.startswith("/kyc/done?") and vid in path for path in return_page.paths), return_page.paths
    time.sleep(0.3)
    assert handset.current_url == verification["journey_url"], "the phone went to the return URL too"

    events = events_of(server, vid)
    types = [event["type"] for event in events]
    for expected in ("verification.continuation_created", "verification.continuation_matched", "verification.submitted"):
        assert expected in types, f"no {expected} in {types}"
    sign_ins = [event["data"].get("method") for event in events if event["type"] == "verification.signed_in"]
    assert sign_ins == ["handoff", "continuation"], f"signed_in methods {sign_ins}"
    continued = next(i for i, e in enumerate(events) if e["type"] == "verification.signed_in" and e["data"].get("method") == "continuation")
    assert types.index("verification.continuation_created") < types.index("verification.continuation_matched") < continued \
        < types.index("verification.submitted"), types
    assert types.count("verification.continuation_created") == 1, types
    assert "verification.continuation_failed" not in types, types
    final = _api(server, "GET", f"/v1/verifications/{vid}")
    assert final["status"] == "submitted" and all(step["status"] == "completed" for step in final["steps"]), final["status"]
    with capsys.disabled():
        print(f"\n  [continue] desktop: {CAMERA_MODE[0] if CAMERA_MODE else '?'}; "
              f"desktop followed the pick in {followed:.2f} s; on the return URL {returned:.2f} s after the phone's "
              f"submit; screenshots {shots}")


# --- 2. a wrong pick burns the link; the desktop shows a new one -----------------------------------

def test_wrong_pick_burns_the_link(desktops, browsers, server, request, tmp_path):
    verification = new_verification(server, request)
    desktop = desktops()
    open_desktop(desktop, server, verification)
    ask_for_phone(desktop)
    first = wait_for_link(desktop, server, verification)
    assert decode_qr(desktop, tmp_path, "qr-first") == first["url"]

    handset = phone(browsers)
    assert open_link(handset, first["url"], verification) == "match"
    _, wrong = pick(match_options(handset), wrong_for=first["number"])
    assert wrong != first["number"]
    refused_to_signin(handset, WORDS["en"]["wrong_pick"])
    assert not [c for c in handset.get_cookies() if c["name"] == "hosted_session"], "a wrong pick left a session"
    shots = [shot(handset, "phone-wrong-pick")]

    # The desktop makes a fresh link by itself: another secret, another QR code, and says why.
    second = wait_for_link(desktop, server, verification, after=1)
    assert second["url"] != first["url"]
    assert decode_qr(desktop, tmp_path, "qr-second") == second["url"], "the new QR code is not the new link"
    wait_until(desktop, lambda d: WORDS["en"]["wrong_number"] in visible(d, "continuation").text,
               "the desktop saying the previous code can no longer be used")
    assert body_state(desktop) == "step"
    shots.append(shot(desktop, "desktop-new-code"))

    # The burnt link is no use to anyone any more.
    browsers.quit(handset)
    again = phone(browsers)
    assert open_link(again, first["url"], verification) == "signin"
    refused_to_signin(again, WORDS["en"]["used"])

    events = events_of(server, verification["id"])
    failed = [event for event in events if event["type"] == "verification.continuation_failed"]
    assert len(failed) == 1 and failed[0]["data"] == {"reason": "wrong_number"}, failed
    types = [event["type"] for event in events]
    assert types.count("verification.continuation_created") == 2, types
    assert "verification.continuation_matched" not in types, types
    assert [e["data"].get("method") for e in events if e["type"] == "verification.signed_in"] == ["handoff"]


# --- 3. two phones open the link at once: exactly one gets the numbers -----------------------------

def test_two_phones_racing_one_wins(browsers, server, request):
    verification = new_verification(server, request)
    _, link = api_continuation(server, verification)
    phones = [phone(browsers), phone(browsers)]
    ready = threading.Barrier(len(phones))
    states: dict[int, str] = {}
    failures: list[str] = []

    def load(index: int) -> None:
        try:
            ready.wait(timeout=30)
            phones[index].get(link["url"])
        except Exception as error:  # reported below, from the test's own thread
            failures.append(f"phone {index}: {error!r}")

    threads = [threading.Thread(target=load, args=(index,)) for index in range(len(phones))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    for index, driver in enumerate(phones):
        states[index] = wait_for_settled_state(driver)
        assert "continue" not in driver.current_url, "the secret stayed in the address bar"
    assert sorted(states.values()) == ["match", "signin"], f"the phones settled in {states}"
    winner = phones[[i for i, s in states.items() if s == "match"][0]]
    loser = phones[[i for i, s in states.items() if s == "signin"][0]]
    assert link["number"] in [button.text.strip() for button in match_options(winner)]
    refused_to_signin(loser, WORDS["en"]["used"])
    shot(loser, "phone-used")
    # The loser sees nothing of the winner's choice; the winner still picks and gets in.
    assert not [b for b in loser.find_elements(By.CSS_SELECTOR, '[data-testid="match-option"]') if b.is_displayed()]
    pick(match_options(winner), number=link["number"])
    on_step(winner, "profile")
    keep_session_secret(server, winner)


# --- 4. the link by SMS --------------------------------------------------------------------------

def test_link_texted_to_the_phone(desktops, browsers, server, request):
    verification = new_verification(server, request)
    desktop = desktops()
    open_desktop(desktop, server, verification)
    ask_for_phone(desktop)
    link = wait_for_link(desktop, server, verification)
    before = [message["body"] for message in outbox(server, MOBILE)]
    visible(desktop, "continuation-sms").click()
    wait_until(desktop, lambda d: WORDS["en"]["sms_sent"] in visible(d, "continuation").text, "the desktop saying the text was sent")
    sms = [call for call in recorded(desktop)["calls"] if call["path"].endswith("/continuations/sms")]
    assert [call["status"] for call in sms] == [202], sms
    shot(desktop, "desktop-sms-sent")

    def texted(_driver):
        new = [message for message in outbox(server, MOBILE) if message["body"] not in before]
        return new or False

    messages = wait_until(desktop, texted, f"the link texted to {MOBILE} in the dev outbox", timeout=10)
    assert len(messages) == 1, messages
    body = messages[0]["body"]
    assert messages[0]["to"] == MOBILE, messages[0]["to"]
    assert body.endswith(link["url"]), f"the text does not end with the link: {body[:60]}…"
    assert body == f"Continue your verification on this phone: {link['url']}"

    texted_url = body.rsplit(" ", 1)[-1]
    handset = phone(browsers)
    assert open_link(handset, texted_url, verification) == "match"
    assert link["number"] in [button.text.strip() for button in match_options(handset)]


# --- 5. "continue here instead" ends the link ------------------------------------------------------

def test_continue_here_instead_ends_the_link(desktops, browsers, server, request):
    verification = new_verification(server, request)
    desktop = desktops()
    open_desktop(desktop, server, verification)
    fill_profile(desktop)
    on_step(desktop, "selfie")
    shown_panel(desktop)  # offered by itself: no camera
    link = wait_for_link(desktop, server, verification)

    visible(desktop, "continue-here").click()
    wait_until(desktop, lambda d: not d.find_elements(By.CSS_SELECTOR, '[data-testid="continuation"]'), "the panel gone")
    on_step(desktop, "selfie")
    deletes = [call for call in recorded(desktop)["calls"] if call["method"] == "DELETE"]
    assert [call["status"] for call in deletes] == [204], deletes
    # Declined: the step stays as it is (its file input), with only the button to ask again.
    assert desktop.find_elements(By.CSS_SELECTOR, '[data-testid="continue-elsewhere"]'), "no way to ask for the phone again"
    time.sleep(1.5)
    assert not desktop.find_elements(By.CSS_SELECTOR, '[data-testid="continuation"]'), "the panel came back by itself"
    assert len(created_links(desktop)) == 1, "a new link was made after continue-here"
    shot(desktop, "desktop-continue-here")

    handset = phone(browsers)
    assert open_link(handset, link["url"], verification) == "signin"
    refused_to_signin(handset, WORDS["en"]["used"])
    assert body_state(desktop) == "step"


# --- 6. the phone in WebKitGTK ---------------------------------------------------------------------

def test_phone_in_webkit(server, request):
    missing = [path for path in (WEBKIT_DRIVER, MINIBROWSER) if not Path(path).exists()]
    if missing:
        pytest.skip(f"WebKitGTK is not installed ({', '.join(missing)})")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        pytest.skip("WebKitGTK needs a display: run under `xvfb-run -a`")
    driver = request.getfixturevalue("webkit")
    verification = new_verification(server, request)
    _, link = api_continuation(server, verification)
    assert open_link(driver, link["url"], verification) == "match"
    buttons = match_options(driver)
    assert link["number"] in [button.text.strip() for button in buttons]
    screenshot(driver, "continue-webkit-match-en")
    pick(buttons, number=link["number"])
    on_step(driver, "profile")
    state = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], { credentials: 'same-origin' }).then((r) => r.json()).then(done, (e) => done(String(e)));",
        f"/j/{verification['id']}/api/state",
    )
    assert isinstance(state, dict) and state.get("continued") is True, state
    screenshot(driver, "continue-webkit-step-en")


# --- 7. accessibility and screenshots, English and Hindi -------------------------------------------

@pytest.mark.parametrize("lang", ["en", "hi"])
def test_continue_screens_are_accessible(desktops, browsers, server, request, lang, capsys):
    verification = new_verification(server, request)
    report: dict[str, list[str]] = {}

    def check(driver, screen: str) -> None:
        time.sleep(0.2)
        report[screen] = summarize_violations(axe_violations(driver))
        shot(driver, screen, lang)

    desktop = desktops()
    open_desktop(desktop, server, verification, lang=lang)
    assert desktop.execute_script("return document.documentElement.lang;") == lang
    fill_profile(desktop)
    on_step(desktop, "selfie")
    shown_panel(desktop)
    link = wait_for_link(desktop, server, verification)
    assert WORDS[lang]["no_camera"] in visible(desktop, "continuation").text
    check(desktop, "panel")

    # The phone's language follows its browser; `?lang=` before the fragment asks for one.
    handset = phone(browsers)
    assert open_link(handset, link["url"], verification, query=f"lang={lang}") == "match"
    assert handset.execute_script("return document.documentElement.lang;") == lang
    assert handset.find_element(By.ID, "match-title").text.strip() == WORDS[lang]["match_title"]
    buttons = match_options(handset)
    check(handset, "match")

    pick(buttons, number=link["number"])
    on_step(handset, "selfie")
    keep_session_secret(server, handset)
    wait_for_state(desktop, "elsewhere", timeout=FOLLOW_WITHIN + 5)
    heading = desktop.find_element(By.ID, "elsewhere-title")
    assert heading.text.strip() == WORDS[lang]["elsewhere_title"], heading.text
    check(desktop, "elsewhere")

    with capsys.disabled():
        print(f"\n  [axe, continue, {lang}] " + "; ".join(f"{screen}: {'none' if not lines else lines}"
                                                     for screen, lines in report.items()))
    found = [f"[{screen}] {line}" for screen, lines in report.items() for line in lines]
    assert not found, "accessibility violations:\n" + "\n".join(found)
