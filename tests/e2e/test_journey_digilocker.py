"""The DigiLocker step end to end, against the dev-mode simulator, in Chromium and WebKitGTK.

The journey's `digilocker-start` asks the server for the consent URL and leaves for it; the
simulator's consent page (`/sim/digilocker/authorize`, a separate page that is not the journey)
answers Allow (`consent-allow`) or Deny (`consent-deny`) and redirects to
`/journey/digilocker/callback`, which exchanges the code (PKCE) with the simulator's token
endpoint over real HTTP, fetches the documents, stores them masked and lands back on `/j/{id}`.

Every page here comes from one origin (the dev server's public URL), as in a default dev set-up;
the real DigiLocker is another site, which the `SameSite=Lax` cookies are chosen for (see
docs/digilocker.md).
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import axe_violations, describe, summarize_violations, wait_for_state
from conftest import _create_account
from test_journey_signin import _api
# `engine` is a fixture (Chromium, then WebKit), used here by name.
from test_journey_steps import engine, gone, on_step, open_signed_in, screens, shown, step_css, wait_until  # noqa: F401

MOBILE = "+919822233344"
DIGILOCKER_WORKFLOW = {
    "key": "kyc",
    "name": "KYC with DigiLocker",
    "steps": [{"type": "digilocker", "documents": ["aadhaar", "pan"]}, {"type": "profile"}],
}


@pytest.fixture(scope="module")
def digilocker_hosted(journey_hosted, tmp_path_factory):
    """The journey server through a third account whose `kyc` workflow starts with DigiLocker."""
    created = _create_account(journey_hosted.binary, journey_hosted.cli_env, tmp_path_factory.mktemp("digilocker-account"))
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    response = requests.post(server.base_url + "/v1/workflows", json=DIGILOCKER_WORKFLOW, headers=server.auth_headers, timeout=10)
    assert response.status_code == 201, response.text[:500]
    return server


def new_verification(server, request) -> dict:
    name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
    body = {"user_id": f"e2e-{name}-{uuid.uuid4().hex[:8]}", "workflow": "kyc", "mobile": MOBILE}
    return _api(server, "POST", "/v1/verifications", body, expected=(201,))


def digilocker_step(server, verification: dict) -> dict:
    fetched = _api(server, "GET", f"/v1/verifications/{verification['id']}")
    return next(step for step in fetched["steps"] if step["id"] == "digilocker")


def documents(server, verification: dict) -> dict[str, dict]:
    found = {}
    for artifact in digilocker_step(server, verification)["artifacts"]:
        response = requests.get(f"{server.base_url}/v1/verifications/{verification['id']}/artifacts/{artifact}",
                                headers=server.auth_headers, timeout=10)
        assert response.status_code == 200, response.text[:300]
        found[response.json()["document"]] = response.json()
    return found


def leave_for_consent(driver, on_screen=None) -> None:
    """On the DigiLocker step: the start button, then the simulator's consent page."""
    on_step(driver, "digilocker")
    if on_screen:
        on_screen("digilocker-step")
    shown(driver, step_css("digilocker", "digilocker-start")).click()
    wait_for_state(driver, "consent")
    assert urlsplit(driver.current_url).path == "/sim/digilocker/authorize", driver.current_url
    if on_screen:
        on_screen("consent")


def assert_back_on_journey(driver, verification: dict, query: str = "") -> None:
    """On /j/{id}, with the setback taken off the address (`query` is what stays) and no fragment."""
    wait_until(driver, lambda d: urlsplit(d.current_url).path == f"/j/{verification['id']}", "back on the journey")
    wait_until(driver, lambda d: urlsplit(d.current_url).query == query and not urlsplit(d.current_url).fragment,
               f"the address with query {query!r} (no ?digilocker=) and without a fragment")


def test_allow_completes_the_step(engine, digilocker_hosted, request):
    name, driver = engine
    verification = new_verification(digilocker_hosted, request)
    on_screen = screens(driver, f"digilocker-{name}", [])
    open_signed_in(driver, digilocker_hosted, verification)
    leave_for_consent(driver, on_screen)
    shown(driver, '[data-testid="consent-allow"]').click()

    assert_back_on_journey(driver, verification)
    on_step(driver, "profile")  # DigiLocker done, the next step is shown
    on_screen("back-completed")
    step = digilocker_step(digilocker_hosted, verification)
    assert step["status"] == "completed" and len(step["artifacts"]) == 2, step
    found = documents(digilocker_hosted, verification)
    assert found["aadhaar"]["number_masked"] == "XXXX XXXX 7058"
    assert found["aadhaar"]["name"] == "Asha Verma" and found["aadhaar"]["date_of_birth"] == "1990-08-15"
    assert found["pan"]["number_masked"] == "XXXXXX234K"
    assert "999941057058" not in str(found), "the full Aadhaar number came back from the API"


def test_deny_returns_to_the_step_with_a_retry(engine, digilocker_hosted, request):
    name, driver = engine
    verification = new_verification(digilocker_hosted, request)
    on_screen = screens(driver, f"digilocker-deny-{name}", [])
    open_signed_in(driver, digilocker_hosted, verification)
    leave_for_consent(driver)
    if name == "chromium":
        # Back from the consent page (the phone's back button): the step again, ready to start.
        # (Not in WebKit: WebKitWebDriver never finishes a Back, nor a scripted history.back(),
        # onto a page sent with Cross-Origin-Opener-Policy from a page without it — the driver
        # limit noted in test_journey_steps.py.)
        driver.back()
        on_step(driver, "digilocker")
        leave_for_consent(driver)
    shown(driver, '[data-testid="consent-deny"]').click()

    assert_back_on_journey(driver, verification)
    error = shown(driver, step_css("digilocker", "digilocker-error"), "the DigiLocker step's message after Deny")
    assert "did not allow" in error.text, error.text
    retry = shown(driver, step_css("digilocker", "digilocker-start"), "the retry button")
    assert "again" in retry.text.lower(), retry.text
    on_screen("denied")
    if name == "chromium":
        assert not axe_violations(driver), summarize_violations(axe_violations(driver))
    step = digilocker_step(digilocker_hosted, verification)
    assert step["status"] == "pending" and step["artifacts"] == [], step

    # The retry goes out again and, allowed this time, completes the step.
    leave_for_consent(driver)
    shown(driver, '[data-testid="consent-allow"]').click()
    assert_back_on_journey(driver, verification)
    gone(driver, "digilocker")
    on_step(driver, "profile")
    assert digilocker_step(digilocker_hosted, verification)["status"] == "completed"


def test_a_journey_in_hindi_comes_back_in_hindi(browser, digilocker_hosted, request):
    verification = new_verification(digilocker_hosted, request)
    on_screen = screens(browser, "digilocker-hi-chromium", [])
    open_signed_in(browser, digilocker_hosted, verification, lang="hi")
    leave_for_consent(browser)
    shown(browser, '[data-testid="consent-deny"]').click()
    assert_back_on_journey(browser, verification, query="lang=hi")
    error = shown(browser, step_css("digilocker", "digilocker-error"), "the DigiLocker step's message after Deny")
    assert browser.execute_script("return document.documentElement.lang") == "hi"
    assert "अनुमति नहीं दी" in error.text, error.text
    on_screen("denied")
    assert not axe_violations(browser), summarize_violations(axe_violations(browser))


def test_tampered_and_replayed_state_are_rejected(engine, digilocker_hosted, request):
    name, driver = engine
    verification = new_verification(digilocker_hosted, request)
    on_screen = screens(driver, f"digilocker-state-{name}", [])
    open_signed_in(driver, digilocker_hosted, verification)
    leave_for_consent(driver)
    # Answer the consent form outside the browser, to hold the callback URL the provider sends.
    fields = {element.get_attribute("name"): element.get_attribute("value")
              for element in driver.find_elements(By.CSS_SELECTOR, 'form input[type="hidden"]')}
    consented = requests.post(f"{digilocker_hosted.base_url}/sim/digilocker/authorize", data={**fields, "decision": "allow"},
                              allow_redirects=False, timeout=10)
    assert consented.status_code == 303, consented.text[:300]
    callback = consented.headers["Location"]
    query = dict(parse_qsl(urlsplit(callback).query))
    assert set(query) == {"code", "state"}
    digilocker_hosted.secrets.extend([query["code"], query["state"]])  # never in the server log

    # A state that was changed on the way: refused, nothing stored.
    state = query["state"]
    tampered = {**query, "state": state[:-1] + ("A" if state[-1] != "A" else "B")}
    driver.get(callback.split("?")[0] + "?" + urlencode(tampered))
    wait_for_state(driver, "digilocker-rejected")
    on_screen("tampered")
    assert digilocker_step(digilocker_hosted, verification)["status"] == "pending"

    # The genuine callback in the browser that started it completes the step ...
    driver.get(callback)
    assert_back_on_journey(driver, verification)
    on_step(driver, "profile")
    artifacts = digilocker_step(digilocker_hosted, verification)["artifacts"]
    assert len(artifacts) == 2

    # ... once: replayed, it lands on the journey as it stands and stores nothing more.
    driver.get(callback)
    assert_back_on_journey(driver, verification)
    on_step(driver, "profile")
    assert not driver.find_elements(By.CSS_SELECTOR, '[data-testid="digilocker-error"]:not([hidden])'), describe(driver)
    assert digilocker_step(digilocker_hosted, verification)["artifacts"] == artifacts
