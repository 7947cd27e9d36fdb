"""Headless Chromium for the journey tests: Debian's `chromium` + `chromium-driver`, via selenium.

Selenium never downloads anything here: the driver is always `/usr/bin/chromedriver` (so
Selenium Manager is not consulted) and `SE_OFFLINE=true` is set in case anything would still
ask it. Every browser gets its own fresh `--user-data-dir` (cookies and site storage start
empty), a fake camera and microphone with auto-granted permission, and a phone-sized viewport
(390 x 844 CSS px, touch, mobile) so the pages are seen as the people who use them see them.

`scripts/test.sh` installs the Debian packages; `HOSTED_CHROMIUM` / `HOSTED_CHROMEDRIVER`
point at other binaries for local use.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

# Before selenium is imported anywhere: never let Selenium Manager go online.
os.environ["SE_OFFLINE"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts"

CHROMIUM = os.environ.get("HOSTED_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HOSTED_CHROMEDRIVER", "/usr/bin/chromedriver")

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}

FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    # Quiet, deterministic, offline: no first-run UI, no background network of its own.
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=Translate,OptimizationHints,MediaRouter",
    f"--window-size={PHONE['width']},{PHONE['height']}",
]

# Explicit waits: generous enough for a loaded 2-core CI machine, short enough to fail fast.
DEFAULT_WAIT = 15.0


def require_browser() -> None:
    """Fails (not skips) with a clear message when the Debian packages are missing."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    if missing:
        pytest.fail(
            f"browser tests need {', '.join(missing)}: `apt-get install chromium chromium-driver` "
            "(scripts/test.sh installs them)",
            pytrace=False,
        )


def new_driver(profile_dir: Path) -> WebDriver:
    """A headless Chromium with a fresh profile in `profile_dir`, set up as a phone."""
    require_browser()
    profile_dir.mkdir(parents=True, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    # Console messages (CSP violations, uncaught errors) for `console_problems`.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_output=str(profile_dir.parent / f"{profile_dir.name}.chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(DEFAULT_WAIT * 2)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    except Exception:
        driver.quit()
        raise
    return driver


def body_state(driver: WebDriver) -> str | None:
    return driver.execute_script("return document.body ? document.body.dataset.state || null : null;")


def describe(driver: WebDriver) -> str:
    """What the page shows, for failure messages."""
    try:
        info = driver.execute_script(
            """
            const error = document.querySelector('[data-testid=signin-error]');
            return {
              url: location.href.replace(/#handoff=.*/, '#handoff=[redacted]'),
              state: document.body ? document.body.dataset.state : null,
              error: error && !error.hidden ? error.textContent : null,
            };
            """
        )
    except WebDriverException as error:
        return f"(page not readable: {error.msg})"
    return json.dumps(info)


def wait_for_state(driver: WebDriver, state: str, timeout: float = DEFAULT_WAIT) -> None:
    """Waits until `<body data-state>` is `state`."""
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            lambda d: body_state(d) == state
        )
    except TimeoutException:
        pytest.fail(
            f"body[data-state={state}] not reached within {timeout:.0f} s; page: {describe(driver)}",
            pytrace=False,
        )


def wait_for_settled_state(driver: WebDriver, timeout: float = DEFAULT_WAIT) -> str:
    """Waits until the page has left `loading` and returns the state it settled in."""
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            lambda d: body_state(d) not in (None, "loading")
        )
    except TimeoutException:
        pytest.fail(f"the page stayed loading for {timeout:.0f} s; page: {describe(driver)}", pytrace=False)
    return body_state(driver)


def by_testid(testid: str) -> tuple[str, str]:
    return (By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def visible(driver: WebDriver, testid: str, timeout: float = DEFAULT_WAIT):
    """The element with this `data-testid`, once it is displayed."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            EC.visibility_of_element_located(by_testid(testid))
        )
    except TimeoutException:
        pytest.fail(
            f"[data-testid={testid}] not visible within {timeout:.0f} s; page: {describe(driver)}",
            pytrace=False,
        )


def screenshot(driver: WebDriver, name: str) -> Path:
    """Saves the viewport as `test-artifacts/NAME.png` (gitignored) and returns the path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if not driver.save_screenshot(str(path)):
        pytest.fail(f"could not save a screenshot to {path}", pytrace=False)
    return path


def console_problems(driver: WebDriver) -> list[str]:
    """Console messages that point at a broken page: CSP violations and uncaught errors.

    The journey's own expected failures (401 from `/api/state` when signed out, 401 from a
    wrong code) show up as "Failed to load resource" and are not problems.
    """
    problems = []
    for entry in driver.get_log("browser"):
        message = entry.get("message", "")
        if "Content Security Policy" in message or "Uncaught" in message:
            problems.append(message)
        elif entry.get("level") == "SEVERE" and "Failed to load resource" not in message:
            problems.append(message)
    return problems


def session_cookies(driver: WebDriver) -> list[dict]:
    """The journey session cookies the browser sends to the current URL (HttpOnly ones too:
    WebDriver reads the cookie jar, not `document.cookie`)."""
    return [cookie for cookie in driver.get_cookies() if cookie.get("name") == "hosted_session"]
