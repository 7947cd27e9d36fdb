"""Headless Chromium for the journey tests: Debian's `chromium` + `chromium-driver`, via selenium.

Selenium never downloads anything here: the driver is always `/usr/bin/chromedriver` (so
Selenium Manager is not consulted) and `SE_OFFLINE=true` is set in case anything would still
ask it. Every browser gets its own fresh `--user-data-dir` (cookies and site storage start
empty), a fake camera and microphone with auto-granted permission, and a phone-sized viewport
(390 x 844 CSS px, touch, mobile) so the pages are seen as the people who use them see them.

`scripts/test.sh` installs the Debian packages; `HOSTED_CHROMIUM` / `HOSTED_CHROMEDRIVER`
point at other binaries for local use.

WebKitGTK (`new_webkit_driver`): Debian's `webkit2gtk-driver` drives its MiniBrowser with mock
camera devices; it has no headless mode, so pytest runs under `xvfb-run -a`. Also here: axe-core
accessibility checks (`axe_violations`) and the Resource Timing of what a page loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
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


# The camera refused, as a person who taps "Block" refuses it: no auto-accepting fake UI, and
# every permission prompt answered "deny" (getUserMedia rejects with NotAllowedError).
CAMERA_DENIED_FLAGS = [flag for flag in FLAGS if flag != "--use-fake-ui-for-media-stream"] + [
    "--deny-permission-prompts",
]


def new_driver(profile_dir: Path, *, camera: str = "fake", video: Path | None = None) -> WebDriver:
    """A headless Chromium with a fresh profile in `profile_dir`, set up as a phone.

    `camera="fake"` (the default): a fake camera, permission granted; `camera="denied"`: the
    same fake camera, but the permission prompt is refused. `video`: a Y4M file the fake camera
    shows (looped) instead of its own test pattern.
    """
    require_browser()
    if camera not in ("fake", "denied"):
        raise ValueError(f"camera must be 'fake' or 'denied', not {camera!r}")
    profile_dir.mkdir(parents=True, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS if camera == "fake" else CAMERA_DENIED_FLAGS:
        options.add_argument(flag)
    if video is not None:
        options.add_argument(f"--use-file-for-fake-video-capture={video}")
    options.add_argument(f"--user-data-dir={profile_dir}")
    # Console messages (CSP violations, uncaught errors) for `console_problems`.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_output=str(profile_dir.parent / f"{profile_dir.name}.chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(DEFAULT_WAIT * 2)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        # Geolocation answers "position unavailable" unless a test sets a position: Chromium's own
        # provider would ask a Google server, and no test traffic leaves this machine.
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {})
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


# --- WebKitGTK (the engine of Safari / WKWebView, as close as Linux gets) --------------------

WEBKIT_DRIVER = os.environ.get("HOSTED_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("HOSTED_MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
# Mock camera devices; WebKit grants them to automation sessions without a prompt.
WEBKIT_ARGUMENTS = ["--automation", "--enable-mock-capture-devices=true", "--enable-media-stream=true"]


def require_webkit() -> None:
    """Fails (not skips) with a clear message when WebKitGTK or a display is missing."""
    missing = [path for path in (WEBKIT_DRIVER, MINIBROWSER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(
            f"WebKit tests need {', '.join(missing)}: `apt-get install webkit2gtk-driver xvfb xauth` "
            "(scripts/test.sh installs them)",
            pytrace=False,
        )
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        pytest.fail("WebKitGTK has no headless mode: run pytest under `xvfb-run -a`", pytrace=False)


def new_webkit_driver(log_dir: Path) -> WebDriver:
    """WebKitGTK's MiniBrowser through WebKitWebDriver (an ephemeral session: storage starts
    empty), with a mock camera, sized so that its web view is as tall as a phone's.

    MiniBrowser's toolbar keeps its window at least ~447 px wide, so the view is wider than the
    Chromium phone's 390 px; the height is corrected for the toolbar.
    """
    require_webkit()
    from selenium.webdriver.webkitgtk.options import Options as WebKitOptions
    from selenium.webdriver.webkitgtk.service import Service as WebKitService

    log_dir.mkdir(parents=True, exist_ok=True)
    options = WebKitOptions()
    options.binary_location = MINIBROWSER
    for argument in WEBKIT_ARGUMENTS:
        options.add_argument(argument)
    service = WebKitService(executable_path=WEBKIT_DRIVER, log_output=str(log_dir / "webkitwebdriver.log"))
    with warnings.catch_warnings():
        # selenium 4.51's own WebKitGTK driver still uses a deprecated RemoteConnection argument.
        warnings.filterwarnings("ignore", "setting remote_server_addr", DeprecationWarning)
        driver = webdriver.WebKitGTK(options=options, service=service)
    try:
        driver.set_page_load_timeout(DEFAULT_WAIT * 2)
        driver.set_window_size(PHONE["width"], PHONE["height"])
        toolbar = PHONE["height"] - driver.execute_script("return window.innerHeight;")
        if toolbar > 0:
            driver.set_window_size(PHONE["width"], PHONE["height"] + toolbar)
    except Exception:
        driver.quit()
        raise
    return driver


# --- accessibility (axe-core, shipped inside the axe-core-python package) ------------------

def axe_violations(driver: WebDriver) -> list[dict]:
    """axe-core's violations on the page as it is now (its default rules: WCAG 2.x A/AA and
    best practices).

    The engine is the `axe.min.js` that PyPI's `axe-core-python` ships (axe-core 4.4); its
    Python wrapper is not used, so the script is injected once per document (WebDriver's script
    evaluation is not subject to the page's CSP) and reused on later screens of the same page.
    (`axe-selenium-python` 2.1.6 ships axe-core 3.1.1 from 2018, which flags the valid
    `autocomplete="one-time-code"` as an error; its 3.x needs Python 3.12.)
    """
    if not driver.execute_script("return typeof window.axe === 'object';"):
        from axe_core_python.base import AXE_SCRIPT

        driver.execute_script(AXE_SCRIPT)
    results = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, { resultTypes: ['violations'] }).then(done, (error) => done({ error: String(error) }));"
    )
    if "error" in results:
        pytest.fail(f"axe-core failed: {results['error']}", pytrace=False)
    return results["violations"]


def summarize_violations(violations: list[dict]) -> list[str]:
    """One line per violation: impact, rule, how many nodes, and the first node's selector."""
    lines = []
    for violation in violations:
        nodes = violation.get("nodes", [])
        target = nodes[0]["target"] if nodes else []
        summary = nodes[0].get("failureSummary", "").replace("\n", " ") if nodes else ""
        lines.append(f"{violation.get('impact')}: {violation['id']} ({len(nodes)}x, e.g. {target}) "
                     f"{violation.get('help', '')}. {summary[:200]}")
    return lines


# --- page weight and timing ------------------------------------------------------------------

def loaded_resources(driver: WebDriver) -> list[dict]:
    """The document and every resource it loaded so far (Resource Timing), with their sizes."""
    return driver.execute_script(
        """
        const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
        return entries.map(e => ({ name: e.name, type: e.initiatorType, transferSize: e.transferSize,
                                   encodedBodySize: e.encodedBodySize, decodedBodySize: e.decodedBodySize }));
        """
    )
