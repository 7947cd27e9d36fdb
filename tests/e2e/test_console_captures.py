"""The console's capture evidence and "Ask for a retake" (issue 39), end to end, in real browsers.

A verification is submitted through the journey API (as test_console.py's `Console.submitted`
does) with a failing selfie (`portrait-dark.jpg`: too dark, blurry), its retake (`portrait.jpg`,
a frontal portrait that passes with one face; docs/capture-checks.md) and a premises photo taken
with a location. Then, in headless Chromium:

1. the detail shows both selfies side by side, the dark one labelled "replaced by a retake",
   the reasons beside it in words, "passed" beside the retake, the face box drawn over the
   selfie exactly where the stored-pixel box lands in the displayed image, and the premises
   photo's location as text; axe-core finds nothing; phone-sized screenshots;
2. "Ask for a retake" through the decision panel (`decision-resubmit`, `resubmit-step`,
   `resubmit-reason`, a message, the SMS box): the API then says `resubmission_requested` with
   only the selfie pending, the event's actor is the operator, the SMS carries the journey link,
   and the detail shows the count, the reason and the steps to redo;
3. the same display in Hindi (reasons in Devanagari, the retake form's own errors), axe-clean,
   phone- and desktop-sized screenshots;
4. the display part in WebKitGTK (face box position, side by side, reasons).

Screenshots: `test-artifacts/console-captures-*.png`. Runs on `journey_hosted`, through an
account of its own (created with the CLI) with one reviewer set up through the console API.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import axe_violations, by_testid, summarize_violations
from conftest import REPO_ROOT
from test_console import (
    DEVANAGARI,
    Console,
    as_desktop,
    as_phone,
    assert_clean_console,
    detail_status,
    open_as,
    photo,
    shoot,
    shown,
    wait_images_loaded,
    wait_state,
    wait_until,
)
from test_journey_signin import _api, mint_handoff, outbox

# Not another module's number: the retake's SMS is looked for in the dev outbox.
MOBILE = "+919800066688"
WORKFLOW = "captures_kyc"
STEPS = [{"type": "profile"}, {"type": "selfie"},
         {"type": "premises_photos", "id": "shop", "min": 1, "max": 2, "location": "ask"}]
FIXTURES = REPO_ROOT / "Tests" / "HostedImagingTests" / "Fixtures"
LOCATION = {"latitude": "19.076012", "longitude": "72.8777", "accuracy_m": "35"}
IMAGES = 3  # the dark selfie, its retake, the premises photo
MESSAGE = "Please take the selfie again facing a window."


@pytest.fixture(scope="module")
def reviewing(journey_hosted) -> Console:
    """An account of its own with the capture workflow and one reviewer, set up."""
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary", pytrace=False)
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary,
                      env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "console-captures-e2e")
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    _api(server, "POST", "/v1/workflows", {"key": WORKFLOW, "name": "Capture checks", "steps": STEPS}, expected=(201,))
    console.set_up(console.new_operator("reviewer", "reviewer"))
    return console


def submitted_with_a_retake(console: Console) -> dict:
    """A submitted verification whose selfie was retaken once (the dark one superseded)."""
    verification = _api(console.server, "POST", "/v1/verifications",
                        {"user_id": f"captures-{uuid.uuid4().hex[:10]}", "workflow": WORKFLOW, "mobile": MOBILE},
                        expected=(201,))
    vid = verification["id"]
    secret = mint_handoff(console.server, verification)["url"].split("#handoff=", 1)[1]
    journey = requests.Session()
    journey.headers["Origin"] = console.base
    api = f"{console.base}/j/{vid}/api"

    def ok(response: requests.Response, status: int = 200) -> dict:
        assert response.status_code == status, (
            f"{response.request.method} {response.request.path_url}: {response.status_code} {response.text[:300]}")
        return response.json() if response.content else {}

    jpeg = {"Content-Type": "image/jpeg"}
    ok(journey.post(f"{api}/session", json={"handoff": secret}, timeout=10))
    console.keep_secret(journey.cookies.get("hosted_session"))
    ok(journey.post(f"{api}/steps/profile/profile", json={"full_name": "Kavya Iyer", "date_of_birth": "1991-02-14"}, timeout=10))
    dark = ok(journey.post(f"{api}/steps/selfie/images", data=(FIXTURES / "portrait-dark.jpg").read_bytes(),
                           headers=jpeg, timeout=30), 201)
    assert dark["quality"]["passed"] is False and "too_dark" in dark["quality"]["reasons"], dark["quality"]
    ok(journey.delete(f"{api}/steps/selfie/images/{dark['artifact_id']}", timeout=10), 204)
    retake = ok(journey.post(f"{api}/steps/selfie/images", data=(FIXTURES / "portrait.jpg").read_bytes(),
                             headers=jpeg, timeout=30), 201)
    assert retake["quality"]["passed"] is True and retake["quality"].get("face"), retake["quality"]
    ok(journey.post(f"{api}/steps/selfie/complete", timeout=10))
    shop = ok(journey.post(f"{api}/steps/shop/images", params=LOCATION, data=photo(1), headers=jpeg, timeout=30), 201)
    ok(journey.post(f"{api}/steps/shop/complete", timeout=10))
    assert ok(journey.post(f"{api}/submit", timeout=10))["status"] == "submitted"
    journey.close()
    return {"id": vid, "dark": dark["artifact_id"], "selfie": retake["artifact_id"], "face": retake["quality"]["face"],
            "shop": shop["artifact_id"]}


# --- what the page shows ----------------------------------------------------------------------------

def selfie_captures(driver) -> list[dict]:
    """The selfie step's photos as the page lays them out: each one's box, its image's box, its
    labels and reasons, and its face box."""
    return driver.execute_script(
        """
        const step = document.querySelector('[data-testid="detail-step"][data-step-id="selfie"]');
        const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, width: r.width, height: r.height}; };
        return [...step.querySelectorAll('[data-testid="capture"]')].map((item) => {
          const img = item.querySelector('[data-testid="artifact-image"]');
          const face = item.querySelector('[data-testid="face-box"]');
          const reasons = item.querySelector('[data-testid="capture-reasons"]');
          return {
            id: item.dataset.artifactId, superseded: item.dataset.superseded === 'true', box: box(item),
            image: box(img), natural: [img.naturalWidth, img.naturalHeight],
            face: face ? box(face) : null,
            label: (item.querySelector('[data-testid="capture-superseded"]') || {}).textContent || null,
            passed: reasons ? reasons.dataset.passed : null,
            reasons: reasons ? [...reasons.querySelectorAll('[data-reason]')].map((r) => r.dataset.reason) : [],
            text: item.innerText,
          };
        });
        """
    )


def expected_face(image: dict, stored: tuple[int, int], face: dict) -> dict:
    """Where the stored-pixel face box lands on screen in an <img> drawn with object-fit: contain."""
    scale = min(image["width"] / stored[0], image["height"] / stored[1])
    left = image["left"] + (image["width"] - stored[0] * scale) / 2
    top = image["top"] + (image["height"] - stored[1] * scale) / 2
    return {"left": left + face["x"] * scale, "top": top + face["y"] * scale,
            "width": face["width"] * scale, "height": face["height"] * scale}


def assert_display(driver, console: Console, v: dict) -> list[dict]:
    """The selfie and its superseded take side by side, the reasons beside each, the face box on
    the face, the premises photo's location."""
    wait_images_loaded(driver, IMAGES)
    captures = selfie_captures(driver)
    assert [c["id"] for c in captures] == [v["dark"], v["selfie"]], captures
    dark, retake = captures
    assert dark["superseded"] and dark["label"], f"the dark selfie is not labelled as replaced: {dark['text']!r}"
    assert not retake["superseded"] and retake["label"] is None, retake["text"]
    # Side by side: one row, the replaced one first.
    assert abs(dark["box"]["top"] - retake["box"]["top"]) < 2 and dark["box"]["left"] < retake["box"]["left"], captures
    assert dark["passed"] == "false" and {"too_dark", "blurry"} <= set(dark["reasons"]), dark
    assert retake["passed"] == "true" and not retake["reasons"], retake

    stored = next(c for c in console.verification(v["id"])["steps"][1]["captures"] if c["id"] == v["selfie"])
    size = (stored["width"], stored["height"])
    assert retake["face"], "no face box over the selfie"
    want = expected_face(retake["image"], size, v["face"])
    off = {key: round(retake["face"][key] - want[key], 1) for key in want}
    assert all(abs(delta) <= 1.5 for delta in off.values()), f"face box {retake['face']} is not at {want} ({off})"
    assert retake["face"]["width"] > 40, f"a face box too small to see: {retake['face']}"

    location = shown(driver, "capture-location")
    assert "19.076012" in location.text and "72.877700" in location.text, location.text
    return captures


def painted(driver) -> None:
    """Waits until every photo is decoded and two frames have been drawn (WebKitGTK paints a
    decoded image a moment after it reports it loaded), so a screenshot shows the photos."""
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const images = [...document.querySelectorAll('img.thumb-image')];
        Promise.all(images.map((image) => image.decode().catch(() => null)))
          .then(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));
        """
    )
    time.sleep(0.5)


def capture_shot(driver, name: str) -> None:
    painted(driver)
    shoot(driver, name)


def assert_axe_clean(driver, what: str) -> None:
    found = summarize_violations(axe_violations(driver))
    assert not found, f"accessibility violations on {what}:\n" + "\n".join(found)


def scroll_to_selfie(driver) -> None:
    driver.execute_script(
        "document.querySelector('[data-testid=\"detail-step\"][data-step-id=\"selfie\"]').scrollIntoView({block: 'start'});")


def scroll_to(driver, testid: str) -> None:
    driver.execute_script(f"document.querySelector('[data-testid=\"{testid}\"]').scrollIntoView({{block: 'center'}});")


def retake_event(console: Console, vid: str) -> dict | None:
    return next((e for e in console.events(vid) if e["type"] == "verification.resubmission_requested"), None)


# --- 1 and 2: Chromium, English: the evidence, then a retake ------------------------------------------

def test_evidence_and_a_retake_in_chromium(browsers, reviewing):
    console = reviewing
    op = console.ops["reviewer"]
    v = submitted_with_a_retake(console)
    driver = browsers()
    open_as(driver, console, op, f"/console/verifications/{v['id']}?lang=en")
    wait_state(driver, "detail")
    assert_display(driver, console, v)
    assert_axe_clean(driver, "the detail with captures (phone)")
    shoot(driver, "console-captures-en-phone-top")
    scroll_to_selfie(driver)
    capture_shot(driver, "console-captures-en-phone-selfie")
    scroll_to(driver, "capture-location")
    capture_shot(driver, "console-captures-en-phone-premises")

    # Ask for a retake of the selfie, with a message and the link by SMS.
    scroll_to(driver, "decision-resubmit")
    boxes = [box for box in driver.find_elements(*by_testid("resubmit-step"))]
    assert sorted(box.get_attribute("value") for box in boxes) == ["profile", "selfie", "shop"]
    next(box for box in boxes if box.get_attribute("value") == "selfie").click()
    Select(shown(driver, "resubmit-reason")).select_by_value("face_not_visible")
    shown(driver, "resubmit-message").send_keys(MESSAGE)
    shown(driver, "resubmit-notify").click()
    shoot(driver, "console-captures-en-phone-retake-form")
    before = len(outbox(console.server, MOBILE))
    shown(driver, "decision-resubmit").click()
    outcome = shown(driver, "decision-outcome")
    assert outcome.get_attribute("data-outcome") == "resubmission_requested", outcome.text
    assert detail_status(driver) == "resubmission_requested"

    after = console.verification(v["id"])
    assert after["status"] == "resubmission_requested" and after["resubmissions"] == 1, after
    assert {s["id"]: s["status"] for s in after["steps"]} == {"profile": "completed", "selfie": "pending", "shop": "completed"}
    event = retake_event(console, v["id"])
    assert event and event["actor"]["type"] == "operator" and event["actor"]["id"] == op.id, event
    assert event["data"]["steps"] == ["selfie"] and event["data"]["reason"] == "face_not_visible", event
    assert MESSAGE not in str(event)
    # notify: the journey link through the SMS queue (the dev outbox, once the queue has run).
    texts = wait_until(driver, lambda d: [m for m in outbox(console.server, MOBILE)[before:]
                                          if m.get("body", "").endswith(f"/j/{v['id']}")],
                       "the retake's SMS in the dev outbox", timeout=20)
    assert texts, "no SMS with the journey link"

    # The detail now: count, reason, steps to redo, no decision or second retake, every selfie kept.
    assert "1" in shown(driver, "detail-resubmissions").text
    assert shown(driver, "detail-resubmission-reason").text == "Face not visible"
    assert "Selfie" in shown(driver, "detail-reopened-steps").text
    assert not driver.find_elements(*by_testid("decision-resubmit")) and not driver.find_elements(*by_testid("decision-submit"))
    assert [c["superseded"] for c in selfie_captures(driver)] == [True, True]
    assert_axe_clean(driver, "the detail after a retake request")
    scroll_to(driver, "detail-resubmissions")
    shoot(driver, "console-captures-en-phone-after-retake-summary")
    scroll_to_selfie(driver)
    capture_shot(driver, "console-captures-en-phone-after-retake-selfie")
    scroll_to(driver, "decision-outcome")
    shoot(driver, "console-captures-en-phone-after-retake-panel")
    assert_clean_console(driver)

    # The queue lists it under its own status.
    driver.get(f"{console.base}/console?status=resubmission_requested&lang=en")
    wait_state(driver, "queue")
    row = wait_until(driver, lambda d: d.find_elements(
        By.CSS_SELECTOR, f'[data-testid="queue-row"][data-verification-id="{v["id"]}"]'), "the queue row")[0]
    assert "Retake requested" in row.text, row.text
    assert shown(driver, "queue-count").is_displayed()
    shoot(driver, "console-captures-en-phone-queue")


# --- 3: Hindi ------------------------------------------------------------------------------------------

def test_evidence_in_hindi(browsers, reviewing):
    console = reviewing
    v = submitted_with_a_retake(console)
    driver = browsers()
    open_as(driver, console, console.ops["reviewer"], f"/console/verifications/{v['id']}?lang=hi")
    wait_state(driver, "detail")
    assert driver.execute_script("return document.documentElement.lang;") == "hi"
    dark, retake = assert_display(driver, console, v)
    assert DEVANAGARI.search(dark["text"]) and "बहुत अँधेरी" in dark["text"], dark["text"]
    assert "नई फ़ोटो से बदली गई" in dark["label"], dark["label"]
    assert "जाँच में सही पाई गई" in retake["text"], retake["text"]
    assert_axe_clean(driver, "the detail in Hindi (phone)")
    shoot(driver, "console-captures-hi-phone-top")
    scroll_to_selfie(driver)
    capture_shot(driver, "console-captures-hi-phone-selfie")

    # The retake form's own checks, in Hindi: nothing chosen.
    scroll_to(driver, "decision-resubmit")
    shown(driver, "decision-resubmit").click()
    error = shown(driver, "resubmit-error")
    assert DEVANAGARI.search(error.text), error.text
    assert_axe_clean(driver, "the retake form with its errors in Hindi")
    shoot(driver, "console-captures-hi-phone-retake-errors")
    assert console.verification(v["id"])["status"] == "submitted"

    as_desktop(driver)
    time.sleep(0.3)
    assert_display(driver, console, v)  # the face box follows the larger image
    assert_axe_clean(driver, "the detail in Hindi (desktop)")
    driver.execute_script("window.scrollTo(0, 0);")
    shoot(driver, "console-captures-hi-desktop-top")
    scroll_to_selfie(driver)
    capture_shot(driver, "console-captures-hi-desktop-selfie")
    as_phone(driver)
    assert_clean_console(driver)


# --- 4: WebKitGTK, the display part ------------------------------------------------------------------

def test_evidence_in_webkit(webkit, reviewing):
    console = reviewing
    v = submitted_with_a_retake(console)
    open_as(webkit, console, console.ops["reviewer"], f"/console/verifications/{v['id']}?lang=en")
    wait_state(webkit, "detail")
    assert_display(webkit, console, v)
    assert_axe_clean(webkit, "the detail with captures in WebKitGTK")
    scroll_to_selfie(webkit)
    capture_shot(webkit, "console-captures-webkit-selfie")

