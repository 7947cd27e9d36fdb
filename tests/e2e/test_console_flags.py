"""The console shows a "this wasn't me" report (issue 42) before anything else.

A verification's continuation link is opened through the journey API as a stranger's phone
would, and reported ("This wasn't me"). In headless Chromium the queue row carries the flag's
badge (`queue-flag`) and the detail a banner (`detail-flag`) above the summary, with the report
in the timeline; in English and Hindi, axe-clean, phone-sized screenshots
(`test-artifacts/console-flags-*.png`). Runs on `journey_hosted` through an account of its own.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import axe_violations, summarize_violations
from test_console import DEVANAGARI, Console, assert_clean_console, open_as, shoot, shown, wait_state, wait_until
from test_journey_signin import _api, mint_handoff

MOBILE = "+919800077711"
WORKFLOW = "flags_kyc"


@pytest.fixture(scope="module")
def reviewing(journey_hosted) -> Console:
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary", pytrace=False)
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "console-flags-e2e")
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    _api(server, "POST", "/v1/workflows", {"key": WORKFLOW, "name": "Flags", "steps": [{"type": "profile"}]}, expected=(201,))
    console.set_up(console.new_operator("reviewer", "reviewer"))
    return console


def reported(console: Console) -> str:
    """A verification whose continuation link a stranger's phone opened and reported."""
    verification = _api(console.server, "POST", "/v1/verifications",
                        {"user_id": f"flags-{uuid.uuid4().hex[:10]}", "workflow": WORKFLOW, "mobile": MOBILE}, expected=(201,))
    vid = verification["id"]
    api = f"{console.base}/j/{vid}/api"
    computer = requests.Session()
    computer.headers["Origin"] = console.base
    secret = mint_handoff(console.server, verification)["url"].split("#handoff=", 1)[1]
    assert computer.post(f"{api}/session", json={"handoff": secret}, timeout=10).status_code == 200
    console.keep_secret(computer.cookies.get("hosted_session"))
    created = computer.post(f"{api}/continuations", timeout=10)
    assert created.status_code == 201, created.text[:300]
    link = created.json()["url"].split("#continue=", 1)[1]
    console.keep_secret(link)
    phone = requests.Session()
    phone.headers["Origin"] = console.base
    opened = phone.post(f"{api}/continuations/open", json={"secret": link}, timeout=10)
    assert opened.status_code == 200, opened.text[:300]
    answer = phone.post(f"{api}/continuations/report", json={}, timeout=10)
    assert answer.status_code == 200 and answer.json() == {"status": "reported"}, answer.text[:300]
    assert _api(console.server, "GET", f"/v1/verifications/{vid}")["flags"] == ["continuation_reported"]
    computer.close()
    phone.close()
    return vid


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_report_is_flagged_in_the_queue_and_the_detail(browser, reviewing, lang):
    vid = reported(reviewing)
    reviewer = reviewing.ops["reviewer"]
    open_as(browser, reviewing, reviewer, f"/console?status=in_progress&lang={lang}")
    wait_state(browser, "queue")
    row = f'[data-testid="queue-row"][data-verification-id="{vid}"]'
    badge = wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'{row} [data-testid="queue-flag"]'), "the queue's flag")[0]
    assert badge.get_attribute("data-flag") == "continuation_reported" and badge.text
    if lang == "hi":
        assert DEVANAGARI.search(badge.text), badge.text
    shoot(browser, f"console-flags-{lang}-queue")
    violations = axe_violations(browser)
    assert not violations, "\n".join(summarize_violations(violations))

    open_as(browser, reviewing, reviewer, f"/console/verifications/{vid}?lang={lang}")
    wait_state(browser, "detail")
    banner = shown(browser, "detail-flag")
    assert banner.get_attribute("data-flag") == "continuation_reported" and len(banner.text) > 20
    timeline = browser.find_element(By.CSS_SELECTOR, "#timeline-title").find_element(By.XPATH, "..").text
    assert ("wasn't me" in timeline) if lang == "en" else DEVANAGARI.search(timeline), timeline
    shoot(browser, f"console-flags-{lang}-detail")
    violations = axe_violations(browser)
    assert not violations, "\n".join(summarize_violations(violations))
    assert_clean_console(browser)
