"""Test mode (issue 40) in a real browser.

1. A server started **without** `--dev` and without any SMS relay or DigiLocker client: a test
   verification's journey still works end to end — the sign-in code is `000000` (nothing is
   sent), the DigiLocker step goes through the built-in simulator (consent, PKCE code exchange,
   documents) — and submits; a live verification on the same server can do neither (no sender, no
   DigiLocker configured), which proves the test path is not the dev path. Chromium, en and hi,
   axe-clean, screenshots `test-artifacts/test-mode-journey-*.png`.
2. The console's "Test data" switch (`console-mode-test`) and banner (`console-test-banner`):
   live data by default, test data only after the switch, under the banner; en and hi, axe-clean,
   phone-sized screenshots `test-artifacts/test-mode-console-*.png`.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import axe_violations, summarize_violations, visible, wait_for_state
from conftest import (REPO_ROOT, SERVING_LINE, STARTUP_TIMEOUT, _binary, _create_account, _environment, _free_loopback_port,
                      _tail, stop_server)
from test_console import DEVANAGARI, Console, open_as, shoot, wait_state
from test_console import shown as shown_testid
from test_console import wait_until as console_wait_until
from test_journey_signin import enter_code, sign_in_with_mobile
from test_journey_steps import fill_profile, on_step, screens, shown, step_css, wait_until

MOBILE = "+919812312399"
WORKFLOW = {"key": "kyc", "name": "KYC with DigiLocker",
            "steps": [{"type": "digilocker", "documents": ["aadhaar"]}, {"type": "profile"}]}


@dataclasses.dataclass
class Plain:
    """A `hosted serve` without --dev: a live key, a test key and the account."""
    base_url: str
    live: dict
    test: dict
    account_id: str
    stderr_path: Path

    def api(self, key: dict, method: str, path: str, body: dict | None = None, expected=(200,)) -> dict:
        response = requests.request(method, self.base_url + path, json=body, headers=key, timeout=20)
        assert response.status_code in expected, f"{method} {path}: {response.status_code} {response.text[:300]}"
        return response.json() if response.content else {}


def _serve_without_dev(binary: Path, env: dict, workdir: Path):
    port = _free_loopback_port()
    public_url = f"http://127.0.0.1:{port}"
    stderr_path = workdir / "plain-serve.stderr.log"
    with open(stderr_path, "wb") as stderr, open(workdir / "plain-serve.stdout.log", "wb") as stdout:
        process = subprocess.Popen([str(binary), "serve", "--listen", f"127.0.0.1:{port}", "--public-url", public_url],
                                   env={**env, "HOSTED_PUBLIC_URL": public_url}, cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                                   stdout=stdout, stderr=stderr)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if SERVING_LINE.search(stderr_path.read_text(encoding="utf-8", errors="replace")):
            return process, public_url, stderr_path
        if process.poll() is not None:
            pytest.fail("hosted serve (no --dev) exited at start:\n" + _tail(stderr_path), pytrace=False)
        time.sleep(0.05)
    process.kill()
    pytest.fail("hosted serve (no --dev) did not start:\n" + _tail(stderr_path), pytrace=False)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    binary = _binary()
    workdir = tmp_path_factory.mktemp("test-mode-plain")
    env = _environment(workdir)
    process, public_url, stderr_path = _serve_without_dev(binary, env, workdir)
    env = {**env, "HOSTED_PUBLIC_URL": public_url}
    try:
        created = _create_account(binary, env, workdir)
        made = subprocess.run([str(binary), "keys", "create", "--account", created["account_id"], "--test"], env=env,
                              cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        key = json.loads(made.stdout)
        assert key["api_key"].startswith("sk_test_") and key["livemode"] is False
        server = Plain(base_url=public_url, live={"Authorization": f"Bearer {created['api_key']}"},
                       test={"Authorization": f"Bearer {key['api_key']}"}, account_id=created["account_id"],
                       stderr_path=stderr_path)
        server.api(server.live, "POST", "/v1/workflows", WORKFLOW, expected=(201,))
        yield server
        log = stderr_path.read_text(encoding="utf-8", errors="replace")
        assert created["api_key"] not in log and key["api_key"] not in log, "an API key reached the server log"
    finally:
        stop_server(process, stderr_path)


def _verification(server: Plain, key: dict) -> dict:
    return server.api(key, "POST", "/v1/verifications",
                      {"user_id": f"tm-{uuid.uuid4().hex[:10]}", "workflow": "kyc", "mobile": MOBILE}, expected=(201,))


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_test_journey_needs_no_sms_and_no_digilocker_contract(browsers, plain, lang):
    verification = _verification(plain, plain.test)
    assert verification["livemode"] is False
    driver = browsers()
    on_screen = screens(driver, f"test-mode-journey-{lang}", [])
    driver.get(verification["journey_url"] + ("?lang=hi" if lang == "hi" else ""))
    wait_for_state(driver, "signin")
    banner = visible(driver, "journey-test-banner")
    assert "000000" in banner.text and (DEVANAGARI.search(banner.text) if lang == "hi" else "Test mode" in banner.text)
    on_screen("signin")
    sign_in_with_mobile(driver, MOBILE)
    on_screen("code")
    enter_code(driver, "000000")
    on_step(driver, "digilocker")
    on_screen("digilocker")
    assert not axe_violations(driver), summarize_violations(axe_violations(driver))
    shown(driver, step_css("digilocker", "digilocker-start")).click()
    wait_for_state(driver, "consent")
    assert urlsplit(driver.current_url).path == "/sim/digilocker/authorize", driver.current_url
    on_screen("consent")
    visible(driver, "consent-allow").click()
    wait_until(driver, lambda d: urlsplit(d.current_url).path == f"/j/{verification['id']}", "back on the journey")
    fill_profile(driver, on_screen)
    shown(driver, '[data-testid="submit"]', "the submit button").click()
    wait_for_state(driver, "submitted")
    on_screen("submitted")
    if lang == "hi":
        assert DEVANAGARI.search(driver.find_element(By.TAG_NAME, "main").text)

    fetched = plain.api(plain.test, "GET", f"/v1/verifications/{verification['id']}")
    assert fetched["status"] == "submitted" and fetched["livemode"] is False
    assert all(step["status"] == "completed" for step in fetched["steps"])
    events = plain.api(plain.test, "GET", f"/v1/verifications/{verification['id']}/events")["data"]
    assert [e["data"].get("method") for e in events if e["type"] == "verification.signed_in"] == ["sms"]
    assert all(e["livemode"] is False for e in events)
    # The live key does not see it; the live list does not show it.
    assert requests.get(f"{plain.base_url}/v1/verifications/{verification['id']}", headers=plain.live, timeout=10).status_code == 404
    listed = plain.api(plain.live, "GET", "/v1/verifications?limit=100")["data"]
    assert verification["id"] not in [v["id"] for v in listed]


def test_a_live_journey_on_the_same_server_has_neither(plain):
    verification = _verification(plain, plain.live)
    session = requests.Session()
    session.headers["Origin"] = plain.base_url
    assert "livemode" not in requests.get(f"{plain.base_url}/j/{verification['id']}/api/brand", timeout=10).json()
    asked = session.post(f"{plain.base_url}/j/{verification['id']}/api/otp", json={"mobile": MOBILE}, timeout=10)
    assert asked.status_code == 503 and asked.json()["code"] == "sms_unavailable", asked.text[:300]
    # The simulator grants nothing to a round trip it did not start for a test verification.
    refused = requests.get(f"{plain.base_url}/sim/digilocker/authorize", timeout=10, params={
        "response_type": "code", "client_id": "hosted-dev", "state": "a-state-nobody-issued",
        "redirect_uri": f"{plain.base_url}/journey/digilocker/callback",
        "code_challenge_method": "S256", "code_challenge": "A" * 43})
    assert refused.status_code == 400 and "only test verifications" in refused.text


@pytest.fixture(scope="module")
def switching(journey_hosted) -> tuple[Console, dict, dict]:
    """An account of its own on the dev server with a reviewer, and one submitted verification per mode."""
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "test-mode-e2e")
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    live = {"Authorization": f"Bearer {created['api_key']}"}
    made = requests.post(f"{console.base}/v1/api_keys", json={"mode": "test"}, headers=live, timeout=10)
    assert made.status_code == 201, made.text[:300]
    test = {"Authorization": f"Bearer {made.json()['secret']}"}
    journey_hosted.secrets.append(made.json()["secret"])
    assert requests.post(f"{console.base}/v1/workflows", headers=live, timeout=10,
                         json={"key": "tm", "name": "TM", "steps": [{"type": "profile"}]}).status_code == 201
    made_ids = {}
    for name, key in (("live", live), ("test", test)):
        response = requests.post(f"{console.base}/v1/verifications", headers=key, timeout=10,
                                 json={"user_id": f"tm-{name}-{uuid.uuid4().hex[:8]}", "workflow": "tm", "mobile": MOBILE})
        assert response.status_code == 201, response.text[:300]
        made_ids[name] = response.json()["id"]
    console.set_up(console.new_operator("reviewer", "reviewer"))
    return console, made_ids, {"live": live, "test": test}


def _queue_ids(driver) -> set[str]:
    return {row.get_attribute("data-verification-id") for row in driver.find_elements(By.CSS_SELECTOR, '[data-testid="queue-row"]')}


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_console_shows_test_data_only_behind_its_switch(browser, switching, lang):
    console, ids, _ = switching
    reviewer = console.ops["reviewer"]
    open_as(browser, console, reviewer, f"/console?status=all&lang={lang}")
    wait_state(browser, "queue")
    console_wait_until(browser, lambda d: ids["live"] in _queue_ids(d), "the live verification in the queue")
    assert ids["test"] not in _queue_ids(browser)
    switch = shown_testid(browser, "console-mode-test")
    assert switch.get_attribute("aria-checked") == "false" and switch.get_attribute("role") == "switch"
    assert not browser.find_elements(By.CSS_SELECTOR, '[data-testid="console-test-banner"]')
    shoot(browser, f"test-mode-console-{lang}-live")

    switch.click()
    banner = shown_testid(browser, "console-test-banner")
    console_wait_until(browser, lambda d: ids["test"] in _queue_ids(d), "the test verification in the queue")
    assert ids["live"] not in _queue_ids(browser)
    assert shown_testid(browser, "console-mode-test").get_attribute("aria-checked") == "true"
    assert len(banner.text) > 20 and (DEVANAGARI.search(banner.text) if lang == "hi" else "test" in banner.text.lower())
    shoot(browser, f"test-mode-console-{lang}-test-queue")
    violations = axe_violations(browser)
    assert not violations, "\n".join(summarize_violations(violations))

    # The detail of a test verification, under the banner; a live id is not found in test mode.
    open_as(browser, console, reviewer, f"/console/verifications/{ids['test']}?lang={lang}")
    wait_state(browser, "detail")
    shown_testid(browser, "console-test-banner")
    shoot(browser, f"test-mode-console-{lang}-test-detail")
    violations = axe_violations(browser)
    assert not violations, "\n".join(summarize_violations(violations))

    # Back to live: the banner goes, live data comes back.
    open_as(browser, console, reviewer, f"/console?status=all&lang={lang}")
    wait_state(browser, "queue")
    shown_testid(browser, "console-mode-test").click()
    console_wait_until(browser, lambda d: ids["live"] in _queue_ids(d), "the live verification again")
    assert not browser.find_elements(By.CSS_SELECTOR, '[data-testid="console-test-banner"]')
