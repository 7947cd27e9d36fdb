"""Photos that check themselves, and a retake instead of a rejection (issue 39), in real browsers.

The server checks every photo at upload; the page turns each reason into an instruction in the
user's language (`quality-message` with `data-reason`), offers a retake, and keeps the
workflow's mode: `guide` lets the user use a failing photo, `require` only from the third upload
of the step (nobody is locked out). Before capture the page watches the live frame's brightness
(`live-guidance`). A premises step with `"location": "ask"` sends the browser's location with
each photo. A reviewer's request to redo a step opens the journey on the `resubmission` screen.

Cameras: Chromium's default fake camera and WebKitGTK's mock camera show test patterns with no
face (`no_face`); Chromium with `--use-file-for-fake-video-capture` shows a Y4M made here from the
public-domain portrait of Tests/HostedImagingTests/Fixtures (one face: passes), or the same
portrait darkened (`too_dark` before capture). Every new screen is checked with axe-core and
saved as a phone-sized screenshot in English and Hindi (`test-artifacts/capture-*.png`).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from PIL import Image, ImageEnhance
from selenium.webdriver.common.by import By

from browser import axe_violations, screenshot, summarize_violations, wait_for_state
from test_journey_signin import _api, mint_handoff
from test_journey_steps import (
    MOBILE,
    assert_clean_console,
    confirm_photos,
    count,
    fetch,
    gone,
    on_review,
    on_step,
    shown,
    step_css,
    take_photos,
    wait_until,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
PORTRAIT = REPO_ROOT / "Tests/HostedImagingTests/Fixtures/portrait.jpg"

WORKFLOWS = {
    # The default mode (`guide`), and premises photos that ask for the location.
    "photos_guide": [{"type": "selfie"}, {"type": "premises_photos", "min": 1, "max": 2, "location": "ask"}],
    # A passing selfie is required, but from the third upload a failing one may be kept.
    "photos_require": [{"type": "selfie", "quality": "require"}],
}

HINDI_NO_FACE = "चेहरा नहीं दिखा"  # strings.quality.reasons.no_face (i18n/hi.js)
# Mumbai, as the browser's Geolocation API would report it.
LOCATION = {"latitude": 19.076012, "longitude": 72.877655, "accuracy": 25}


@pytest.fixture(scope="module")
def photos_hosted(steps_hosted, return_page):
    """The steps account with this file's workflows (registered once)."""
    for key, steps in WORKFLOWS.items():
        _api(steps_hosted, "POST", "/v1/workflows", {"key": key, "name": key, "steps": steps}, expected=(200, 201))
    return steps_hosted


def new_verification(server, request, workflow: str, return_url: str | None = None) -> dict:
    name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
    body = {"user_id": f"e2e-{name}-{uuid.uuid4().hex[:8]}", "workflow": workflow, "mobile": MOBILE}
    if return_url:
        body["return_url"] = return_url
    return _api(server, "POST", "/v1/verifications", body, expected=(201,))


def open_journey(driver, server, verification: dict, lang: str | None = None, state: str = "step") -> None:
    url = mint_handoff(server, verification)["url"]
    if lang:
        url = url.replace("#handoff=", f"?lang={lang}#handoff=", 1)
    driver.get(url)
    wait_for_state(driver, state)


def captures(server, verification_id: str, step_id: str) -> list[dict]:
    step = next(step for step in fetch(server, verification_id)["steps"] if step["id"] == step_id)
    return step["captures"]


def reasons_shown(driver, step_id: str) -> list[str]:
    return [element.get_attribute("data-reason")
            for element in driver.find_elements(By.CSS_SELECTOR, step_css(step_id, "quality-message"))
            if element.is_displayed()]


def assert_accessible(driver, what: str) -> None:
    violations = axe_violations(driver)
    assert not violations, f"axe-core on {what}:\n" + "\n".join(summarize_violations(violations))


def take_one(driver, step_id: str, taken: int = 1) -> None:
    shown(driver, step_css(step_id, "capture"), f"the {step_id} camera").click()
    wait_until(driver, lambda d: count(d, step_css(step_id, "retake")) == taken, f"photo {taken} of {step_id} shown")


def retake(driver, step_id: str) -> None:
    shown(driver, step_css(step_id, "retake")).click()
    wait_until(driver, lambda d: count(d, step_css(step_id, "retake")) == 0, f"the {step_id} photo taken back")


def judged(driver, step_id: str) -> None:
    """Confirms, and waits until the page shows the checks' verdict (the step stays)."""
    shown(driver, step_css(step_id, "confirm")).click()
    wait_until(driver, lambda d: reasons_shown(d, step_id), f"the {step_id} photo's reasons shown")


def y4m(path: Path, image: Image.Image, frames: int = 4) -> Path:
    """A Y4M video (4:2:0) of `image` on a phone-shaped frame, for Chromium's fake camera."""
    width, height = 480, 640
    frame = Image.new("RGB", (width, height), (118, 118, 118))
    picture = image.convert("RGB").resize((width, width))
    frame.paste(picture, (0, (height - width) // 2))
    y, cb, cr = frame.convert("YCbCr").split()
    half = (width // 2, height // 2)
    planes = y.tobytes() + cb.resize(half, Image.BILINEAR).tobytes() + cr.resize(half, Image.BILINEAR).tobytes()
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n" + planes)
    return path


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("videos")
    with Image.open(PORTRAIT) as portrait:
        return {
            "portrait": y4m(folder / "portrait.y4m", portrait),
            "dark": y4m(folder / "dark.y4m", ImageEnhance.Brightness(portrait).enhance(0.15)),
        }


@pytest.fixture(params=["chromium", "webkit"])
def engine(request, browsers):
    if request.param == "webkit":
        return "webkit", request.getfixturevalue("webkit")
    return "chromium", browsers()


# --- guide: the default fake camera has no face ---------------------------------------------

def test_no_face_is_explained_and_guide_keeps_the_photo(engine, photos_hosted, request):
    name, driver = engine
    verification = new_verification(photos_hosted, request, "photos_guide")
    open_journey(driver, photos_hosted, verification)
    on_step(driver, "selfie")
    take_one(driver, "selfie")
    judged(driver, "selfie")
    assert "no_face" in reasons_shown(driver, "selfie")
    message = driver.find_element(By.CSS_SELECTOR, step_css("selfie", "quality-message") + '[data-reason="no_face"]')
    assert "face" in message.text.lower(), message.text
    button = shown(driver, step_css("selfie", "confirm"))
    assert button.get_attribute("data-keep-anyway") == "true" and "anyway" in button.text.lower(), button.text
    assert shown(driver, '[data-testid="quality-summary"]').text
    screenshot(driver, f"capture-{name}-en-01-no-face")
    if name == "chromium":
        assert_accessible(driver, "the selfie's verdict")
    # Kept anyway: the step is done, the photo flagged for the reviewer.
    button.click()
    gone(driver, "selfie")
    kept = captures(photos_hosted, verification["id"], "selfie")
    assert len(kept) == 1 and kept[0]["quality"]["passed"] is False, kept
    assert "no_face" in kept[0]["quality"]["reasons"] and kept[0]["quality"]["accepted_by_user"] is True, kept
    if name == "chromium":
        assert_clean_console(driver)


def test_no_face_in_hindi(browser, photos_hosted, request):
    verification = new_verification(photos_hosted, request, "photos_guide")
    open_journey(browser, photos_hosted, verification, lang="hi")
    on_step(browser, "selfie")
    take_one(browser, "selfie")
    judged(browser, "selfie")
    message = browser.find_element(By.CSS_SELECTOR, step_css("selfie", "quality-message") + '[data-reason="no_face"]')
    assert HINDI_NO_FACE in message.text, message.text
    assert browser.execute_script("return document.documentElement.lang") == "hi"
    screenshot(browser, "capture-chromium-hi-01-no-face")
    assert_accessible(browser, "the selfie's verdict in Hindi")


# --- a real face passes at once ---------------------------------------------------------------

def test_a_portrait_on_the_camera_passes(browsers, photos_hosted, videos, request):
    driver = browsers(video=videos["portrait"])
    verification = new_verification(photos_hosted, request, "photos_require")
    open_journey(driver, photos_hosted, verification)
    on_step(driver, "selfie")
    take_one(driver, "selfie")
    screenshot(driver, "capture-chromium-en-02-portrait")
    shown(driver, step_css("selfie", "confirm")).click()
    wait_for_state(driver, "step")
    on_review(driver)  # no stop: the only step passed its checks, even in `require`
    [capture] = captures(photos_hosted, verification["id"], "selfie")
    assert capture["quality"]["passed"] is True, capture
    assert capture["quality"]["scores"]["faces"] == 1 and capture["quality"]["face"]["width"] > 0, capture
    assert capture["quality"]["accepted_by_user"] is False, capture
    assert_clean_console(driver)


# --- require: retake until the third upload, then the way out --------------------------------

def test_require_offers_the_way_out_from_the_third_attempt(browser, photos_hosted, request):
    verification = new_verification(photos_hosted, request, "photos_require")
    open_journey(browser, photos_hosted, verification)
    on_step(browser, "selfie")
    for attempt in (1, 2):
        take_one(browser, "selfie")
        judged(browser, "selfie")
        # No way on yet: only a retake.
        assert count(browser, step_css("selfie", "confirm")) == 0, f"attempt {attempt}: confirm offered in require mode"
        assert shown(browser, '[data-testid="quality-summary"]').text
        if attempt == 1:
            screenshot(browser, "capture-chromium-en-03-require-retake")
            assert_accessible(browser, "require's retake")
        retake(browser, "selfie")
    take_one(browser, "selfie")
    judged(browser, "selfie")
    button = shown(browser, step_css("selfie", "confirm"), "the way out on the third attempt")
    assert button.get_attribute("data-keep-anyway") == "true"
    screenshot(browser, "capture-chromium-en-04-require-third")
    button.click()
    on_review(browser)
    kept = captures(photos_hosted, verification["id"], "selfie")
    assert [c["superseded"] for c in kept] == [True, True, False], kept
    assert kept[-1]["quality"]["attempt"] == 3 and kept[-1]["quality"]["accepted_by_user"] is True, kept
    assert_clean_console(browser)


# --- live guidance and location ------------------------------------------------------------

def test_a_dark_camera_says_move_to_a_brighter_place(browsers, photos_hosted, videos, request):
    driver = browsers(video=videos["dark"])
    verification = new_verification(photos_hosted, request, "photos_guide")
    open_journey(driver, photos_hosted, verification)
    on_step(driver, "selfie")
    guidance = shown(driver, step_css("selfie", "live-guidance"), "the live guidance")
    assert guidance.get_attribute("data-reason") == "too_dark" and guidance.text, guidance.text
    screenshot(driver, "capture-chromium-en-05-live-dark")
    assert_accessible(driver, "the live guidance")
    # The server agrees once the photo is taken.
    take_one(driver, "selfie")
    judged(driver, "selfie")
    assert "too_dark" in reasons_shown(driver, "selfie")


def test_premises_photos_carry_the_browsers_location(browser, photos_hosted, request):
    origin = photos_hosted.base_url
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]})
    browser.execute_cdp_cmd("Emulation.setGeolocationOverride", LOCATION)
    verification = new_verification(photos_hosted, request, "photos_guide")
    open_journey(browser, photos_hosted, verification)
    take_photos(browser, "selfie", 1)
    on_step(browser, "premises_photos")
    take_one(browser, "premises_photos")
    shown(browser, step_css("premises_photos", "location-added"), "the location noted on the photo")
    screenshot(browser, "capture-chromium-en-06-location")
    confirm_photos(browser, "premises_photos")
    [capture] = captures(photos_hosted, verification["id"], "premises_photos")
    where = capture["location"]
    assert (where["latitude"], where["longitude"], where["accuracy_m"]) == (19.076012, 72.877655, 25), capture


# --- a reviewer asks for the selfie again ------------------------------------------------------

def test_resubmission_screen_end_to_end(engine, photos_hosted, return_page, request):
    name, driver = engine
    verification = new_verification(photos_hosted, request, "photos_guide", return_url=return_page.url)
    open_journey(driver, photos_hosted, verification)
    take_photos(driver, "selfie", 1)
    take_photos(driver, "premises_photos", 1)
    on_review(driver).click()
    wait_until(driver, lambda d: d.current_url.startswith(return_page.url.split("?")[0]), "the return URL")

    message = "Please take the selfie again, facing a window."
    sent = _api(photos_hosted, "POST", f"/v1/verifications/{verification['id']}/resubmission",
                {"steps": ["selfie"], "reason": "face_not_visible", "message": message})
    assert sent["status"] == "resubmission_requested"

    for lang in ("hi", "en"):
        open_journey(driver, photos_hosted, verification, lang=lang, state="resubmission")
        reason = shown(driver, '[data-testid="resubmission-reason"]')
        assert reason.get_attribute("data-reason") == "face_not_visible" and reason.text
        assert shown(driver, '[data-testid="resubmission-message"]').text == message
        items = driver.find_elements(By.CSS_SELECTOR, "#resubmission li")
        assert len(items) == 1, [item.text for item in items]
        screenshot(driver, f"capture-{name}-{lang}-07-resubmission")
        if name == "chromium":
            assert_accessible(driver, f"the resubmission screen ({lang})")

    shown(driver, '[data-testid="resubmission-start"]').click()
    on_step(driver, "selfie")
    assert shown(driver, "#step-progress").text == "Step 1 of 1"
    assert not driver.find_elements(By.CSS_SELECTOR, step_css("premises_photos"))
    take_photos(driver, "selfie", 1)
    submit = on_review(driver)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#review .summary li")) == 1
    submit.click()
    wait_until(driver, lambda d: d.current_url.startswith(return_page.url.split("?")[0]), "the return URL again")

    after = fetch(photos_hosted, verification["id"])
    assert after["status"] == "submitted" and after["resubmissions"] == 1, after
    selfie = next(step for step in after["steps"] if step["id"] == "selfie")
    assert [c["superseded"] for c in selfie["captures"]] == [True, False], selfie
    premises = next(step for step in after["steps"] if step["id"] == "premises_photos")
    assert [c["superseded"] for c in premises["captures"]] == [False], premises
    if name == "chromium":
        assert_clean_console(driver)
