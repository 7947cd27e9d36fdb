"""The customer's brand on every screen of the journey (issue 44), in real browsers.

A separate account of its own (never the shared ones: their screenshots and texts must not
change) is branded through the real command line, `hosted accounts update --display-name
"Acme Bank" --accent-color "#ffff00" --support-url … --logo FILE`, against the live journey
server's database. Then, in Chromium (English and Hindi) and WebKitGTK (Hindi), a journey of that
account shows `brand-name` and `brand-logo` (alt = the display name, the image loaded) on every
screen: sign-in, code, each step, review, submitted and, after a reviewer's resubmission
request, the resubmission screen; the page title names the business; the yellow accent reaches
the page darkened to at least 4.5:1 against white and axe-core finds no colour-contrast
violation on any screen; and every SMS text (the codes, the resubmission notice) begins with
"Acme Bank: ". An unbranded journey of another account shows no brand and today's title.
Phone-sized screenshots: `test-artifacts/branding-*.png`.
"""

from __future__ import annotations

import dataclasses
import io
import re
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from PIL import Image, ImageDraw
from selenium.webdriver.common.by import By

from browser import axe_violations, describe, screenshot, summarize_violations, visible, wait_for_state
from conftest import REPO_ROOT, STEPS_WORKFLOW, _create_account
from test_journey_signin import _api, newest_code, outbox
from test_journey_steps import fill_profile, on_review, on_step, shown, take_photos, wait_until

DISPLAY_NAME = "Acme Bank"
ACCENT = "#ffff00"
SUPPORT_URL = "https://acme.example/help"
TITLES = {"en": "Acme Bank: verify your identity", "hi": "Acme Bank: अपनी पहचान सत्यापित करें"}
DEFAULT_TITLES = {"en": "Verify your identity", "hi": "अपनी पहचान सत्यापित करें"}
# Numbers of their own: codes are limited per number, server-wide.
MOBILES = {"chromium-en": "+919822200001", "chromium-hi": "+919822200002", "webkit-hi": "+919822200003"}


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2's relative luminance."""
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def logo_png(path: Path) -> Path:
    """A 600 x 200 wordmark with an EXIF-like text chunk the server must not keep."""
    image = Image.new("RGBA", (600, 200), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, 200, 200), radius=40, fill=(10, 88, 202, 255))
    draw.ellipse((50, 50, 150, 150), fill=(255, 255, 255, 255))
    draw.rectangle((230, 70, 590, 130), fill=(10, 88, 202, 255))
    from PIL import PngImagePlugin
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "SERIAL-LOGO-4471 GPS 12.97N")
    image.save(path, "PNG", pnginfo=info)
    return path


@pytest.fixture(scope="module")
def branded(journey_hosted, tmp_path_factory):
    """The journey server through a new account branded by `hosted accounts update`."""
    workdir = tmp_path_factory.mktemp("branded-account")
    created = _create_account(journey_hosted.binary, journey_hosted.cli_env, workdir)
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    logo = logo_png(workdir / "logo.png")
    result = subprocess.run(
        [str(journey_hosted.binary), "accounts", "update", "--account", created["account_id"],
         "--display-name", DISPLAY_NAME, "--accent-color", ACCENT, "--support-url", SUPPORT_URL, "--logo", str(logo)],
        env=journey_hosted.cli_env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"hosted accounts update exited {result.returncode}: {result.stderr}"
    printed = __import__("json").loads(result.stdout)
    assert printed["branding"]["display_name"] == DISPLAY_NAME
    assert printed["branding"]["accent_color"] == ACCENT
    response = requests.post(server.base_url + "/v1/workflows", json=STEPS_WORKFLOW, headers=server.auth_headers, timeout=10)
    assert response.status_code == 201, response.text[:300]
    return server


def test_the_command_line_refuses_bad_branding(journey_hosted, branded, tmp_path):
    binary, env = journey_hosted.binary, journey_hosted.cli_env

    def run(*arguments):
        return subprocess.run([str(binary), "accounts", "update", *arguments], env=env, cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=60)

    helped = subprocess.run([str(binary), "accounts", "--help"], env=env, cwd=REPO_ROOT, capture_output=True, text=True)
    assert helped.returncode == 0 and "accounts update --account ID" in helped.stdout
    assert run("--account", branded.account_id).returncode == 64  # nothing to change
    assert run("--display-name", "X").returncode == 64  # no account
    refused = run("--account", branded.account_id, "--accent-color", "yellow")
    assert refused.returncode == 65 and refused.stdout == "", (refused.returncode, refused.stdout)
    svg = tmp_path / "logo.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    refused = run("--account", branded.account_id, "--logo", str(svg))
    assert refused.returncode == 65 and "PNG or JPEG" in refused.stderr, (refused.returncode, refused.stderr)
    assert run("--account", branded.account_id, "--logo", "/nonexistent/logo.png").returncode == 66
    # Nothing changed.
    account = _api(branded, "GET", "/v1/account")
    assert account["branding"]["accent_color"] == ACCENT and account["branding"]["logo_url"]


def assert_branded(driver, lang: str, screen: str) -> None:
    """The brand's name and logo show, the title names the business."""
    name = visible(driver, "brand-name")
    assert name.text == DISPLAY_NAME, f"[{screen}] brand-name {name.text!r}"
    logo = visible(driver, "brand-logo")
    assert logo.get_attribute("alt") == DISPLAY_NAME
    wait_until(driver, lambda d: d.execute_script("const i = arguments[0]; return i.complete && i.naturalWidth > 0;", logo),
               f"[{screen}] the logo loaded")
    height = driver.execute_script("return arguments[0].getBoundingClientRect().height;", logo)
    assert 20 <= height <= 64, f"[{screen}] the logo is {height} px high"
    assert driver.title == TITLES[lang], f"[{screen}] title {driver.title!r}"
    assert driver.execute_script("return document.documentElement.lang;") == lang


def accent_of(driver, css: str) -> tuple[int, int, int]:
    value = driver.execute_script("return getComputedStyle(document.querySelector(arguments[0])).backgroundColor;", css)
    return tuple(int(part) for part in re.findall(r"\d+", value)[:3])


CASES = [("chromium", "en"), ("chromium", "hi"), ("webkit", "hi")]


@pytest.mark.parametrize(("engine_name", "lang"), CASES, ids=[f"{e}-{l}" for e, l in CASES])
def test_a_branded_journey_shows_the_brand_on_every_screen(engine_name, lang, branded, browsers, request, capsys):
    driver = request.getfixturevalue("webkit") if engine_name == "webkit" else browsers()
    mobile = MOBILES[f"{engine_name}-{lang}"]
    verification = _api(branded, "POST", "/v1/verifications",
                        {"user_id": f"brand-{uuid.uuid4().hex[:8]}", "workflow": "kyc", "mobile": mobile}, expected=(201,))
    shots: list[str] = []
    contrast_problems: list[str] = []
    serious: list[str] = []

    def on_screen(name: str) -> None:
        assert_branded(driver, lang, name)
        if engine_name == "chromium":
            violations = axe_violations(driver)
            lines = summarize_violations(violations)
            contrast_problems.extend(f"[{name}] {v['id']}" for v in violations if v["id"] == "color-contrast")
            serious.extend(f"[{name}] {line}" for line, v in zip(lines, violations) if v.get("impact") in ("serious", "critical"))
        time.sleep(0.15)
        shots.append(screenshot(driver, f"branding-{engine_name}-{lang}-{len(shots) + 1:02d}-{name}").name)

    driver.get(f"{verification['journey_url']}?lang={lang}")
    wait_for_state(driver, "signin")
    on_screen("signin")
    # The yellow reached the page darkened: its hue kept, 4.5:1 at least against the white text.
    button = accent_of(driver, '[data-testid="signin-send"]')
    assert button != (255, 255, 0) and button[0] == button[1] and button[2] == 0, f"the accent {button}"
    assert contrast(button, (255, 255, 255)) >= 4.5, f"the accent {button} contrasts {contrast(button, (255, 255, 255)):.2f}"
    help_link = visible(driver, "brand-help")
    assert help_link.get_attribute("href") == SUPPORT_URL
    assert help_link.text == ("Help" if lang == "en" else "सहायता")

    before = len(outbox(branded, mobile))
    visible(driver, "signin-mobile").send_keys(mobile)
    visible(driver, "signin-send").click()
    wait_for_state(driver, "otp")
    on_screen("otp")
    code = newest_code(branded, mobile, before)
    text = outbox(branded, mobile)[0]["body"]
    assert re.match(rf"^{DISPLAY_NAME}: \d{{6}} is your verification code", text), text
    visible(driver, "signin-code").send_keys(code)
    visible(driver, "signin-verify").click()

    on_step(driver, "profile")
    on_screen("profile")
    fill_profile(driver)
    on_step(driver, "selfie")
    take_photos(driver, "selfie", 1, lambda name: on_screen(name) if name == "selfie-camera" else None)
    take_photos(driver, "premises_photos", 2)
    on_review(driver, on_screen).click()
    wait_for_state(driver, "submitted")
    on_screen("submitted")

    # A reviewer asks for the selfie again: the notice names the business, and so does the screen.
    before = len(outbox(branded, mobile))
    _api(branded, "POST", f"/v1/verifications/{verification['id']}/resubmission",
         {"steps": ["selfie"], "reason": "face_not_visible", "message": "Please retake the selfie.", "notify": True})
    deadline = time.monotonic() + 10
    while len(outbox(branded, mobile)) == before:
        assert time.monotonic() < deadline, "no resubmission notice in the dev outbox"
        time.sleep(0.1)
    notice = outbox(branded, mobile)[0]["body"]
    assert notice.startswith(f"{DISPLAY_NAME}: ") and notice.endswith(f"/j/{verification['id']}"), notice
    driver.get(f"{verification['journey_url']}?lang={lang}")
    wait_for_state(driver, "resubmission")
    on_screen("resubmission")

    with capsys.disabled():
        print(f"\n  [{engine_name}, {lang}] accent {ACCENT} shown as rgb{button} "
              f"({contrast(button, (255, 255, 255)):.2f}:1); screenshots {shots}")
    assert not contrast_problems, "axe-core found contrast violations:\n" + "\n".join(contrast_problems)
    assert not serious, "serious or critical accessibility violations:\n" + "\n".join(serious)


def test_a_journey_without_branding_looks_as_before(browsers, journey_hosted, branded):
    """Another account's journey (the shared sign-in account, not changed here) shows no brand,
    today's title and today's accent; and never the branded account's name or logo."""
    driver = browsers()
    verification = _api(journey_hosted, "POST", "/v1/verifications",
                        {"user_id": f"plain-{uuid.uuid4().hex[:8]}", "workflow": "kyc", "mobile": "+919822200009"},
                        expected=(201,))
    brand = requests.get(f"{journey_hosted.base_url}/j/{verification['id']}/api/brand", timeout=10).json()
    assert brand["display_name"] is None and brand["logo_url"] is None
    driver.get(verification["journey_url"])
    wait_for_state(driver, "signin")
    assert driver.title == DEFAULT_TITLES["en"]
    assert not driver.find_element(By.CSS_SELECTOR, '[data-testid="brand-name"]').is_displayed()
    assert not driver.find_element(By.CSS_SELECTOR, '[data-testid="brand-logo"]').is_displayed()
    assert not driver.find_element(By.CSS_SELECTOR, '[data-testid="brand-help"]').is_displayed()
    assert DISPLAY_NAME not in driver.page_source
    assert accent_of(driver, '[data-testid="signin-send"]') == (0x0b, 0x57, 0xd0), describe(driver)


def test_the_logo_is_served_by_its_hash_with_a_long_cache_life(branded):
    account = _api(branded, "GET", "/v1/account")
    url = account["branding"]["logo_url"]
    assert urlsplit(url).netloc == urlsplit(branded.base_url).netloc, "the logo is not on the journey's origin"
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.headers["Content-Type"] == "image/png"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == (600, 200), image.size  # within 256 px high: kept
    assert b"SERIAL-LOGO" not in response.content and b"GPS" not in response.content
    assert not image.info.get("Comment")
    # Larger than 1 MB: 413 from the headers, before the body is read; nothing changes.
    too_big = requests.put(branded.base_url + "/v1/account/logo", data=b"\x89PNG" + bytes(1_000_000),
                           headers={**branded.auth_headers, "Content-Type": "image/png"}, timeout=10)
    assert too_big.status_code == 413, too_big.status_code
    assert _api(branded, "GET", "/v1/account")["branding"]["logo_url"] == url
    wrong = re.sub(r"logo-[0-9a-f]{16}", "logo-0123456789abcdef", url)
    assert requests.get(wrong, timeout=10).status_code == 404


def test_the_console_header_shows_the_operators_brand(browsers, journey_hosted, branded, capsys):
    """An operator of the branded account sees its name and logo in the console's header (and,
    signed in to another account, would see that account's: the brand is the session's)."""
    from test_console import Console, open_as, wait_state

    console = Console(server=branded, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    op = console.new_operator("brand-admin", "admin")
    console.set_up(op)
    driver = browsers()
    open_as(driver, console, op, "/console")
    wait_state(driver, "queue")
    name = visible(driver, "brand-name")
    assert name.text == DISPLAY_NAME
    logo = visible(driver, "brand-logo")
    assert logo.get_attribute("alt") == DISPLAY_NAME
    wait_until(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0;", logo),
               "the console's logo loaded")
    shot = screenshot(driver, "branding-console-queue")
    with capsys.disabled():
        print(f"\n  [console] screenshot {shot.name}")
