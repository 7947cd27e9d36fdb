"""Journey analytics in the console (issue 43): `/console/analytics` after real journeys.

Three journeys are driven through the journey API with requests (a phone that goes to the end
with a retake, an Android WebView that stops after viewing the first step, one never opened)
and one in headless Chromium through the real journey page (it fills the profile and stops at
the selfie). Then the console's analytics page, in Chromium and WebKitGTK, draws charts whose
SVG bars carry the same counts as `GET /v1/analytics/funnel`, with the same numbers in a real
table; axe-core finds nothing, in English and Hindi; phone and desktop screenshots
(`test-artifacts/console-analytics-<lang>-<phone|desktop>.png`). Runs on `journey_hosted`
through an account of its own.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import axe_violations, summarize_violations
from test_console import (
    DEVANAGARI,
    Console,
    as_desktop,
    as_phone,
    assert_clean_console,
    open_as,
    photo,
    shoot,
    shown,
    sign_in,
    wait_state,
    wait_until,
)
from test_journey_signin import _api, mint_handoff

MOBILE = "+919800088811"
WORKFLOW = "analytics_kyc"
STEPS = [{"type": "profile", "id": "about"}, {"type": "selfie"}]
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Mobile Safari/537.36")
WEBVIEW_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Version/4.0 Chrome/131.0.0.0 Mobile Safari/537.36")


@pytest.fixture(scope="module")
def analytics(journey_hosted) -> Console:
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary", pytrace=False)
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "console-analytics-e2e")
    journey_hosted.secrets.append(created["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id="", binary=journey_hosted.binary, env=journey_hosted.cli_env)
    _api(server, "POST", "/v1/workflows", {"key": WORKFLOW, "name": "Analytics", "steps": STEPS}, expected=(201,))
    for label in ("reviewer", "webkit"):
        console.set_up(console.new_operator(label, "reviewer"))
    drive_journeys(console)
    return console


def create(console: Console) -> dict:
    return _api(console.server, "POST", "/v1/verifications",
                {"user_id": f"analytics-{uuid.uuid4().hex[:10]}", "workflow": WORKFLOW, "mobile": MOBILE}, expected=(201,))


def journey_session(console: Console, verification: dict, agent: str) -> tuple[requests.Session, str]:
    """Opens the journey page as `agent` and signs in with a handoff, as the page does."""
    session = requests.Session()
    session.headers.update({"Origin": console.base, "User-Agent": agent})
    assert session.get(f"{console.base}/j/{verification['id']}", timeout=10).status_code == 200
    secret = mint_handoff(console.server, verification)["url"].split("#handoff=", 1)[1]
    api = f"{console.base}/j/{verification['id']}/api"
    assert session.post(f"{api}/session", json={"handoff": secret}, timeout=10).status_code == 200
    console.keep_secret(session.cookies.get("hosted_session"))
    return session, api


def drive_journeys(console: Console) -> None:
    # 1. A phone browser, to the end, with one photo replaced after a failed check.
    phone, api = journey_session(console, create(console), PHONE_UA)
    assert phone.post(f"{api}/signals", json={"signal": "step_viewed", "step": "about"}, timeout=10).status_code == 202
    assert phone.post(f"{api}/steps/about/profile", json={"full_name": "Analytics Tester", "date_of_birth": "1990-02-03"},
                      timeout=10).status_code == 200
    assert phone.post(f"{api}/signals", json={"signal": "step_viewed", "step": "selfie"}, timeout=10).status_code == 202
    uploaded = phone.post(f"{api}/steps/selfie/images", data=photo(1), headers={"Content-Type": "image/jpeg"}, timeout=30)
    assert uploaded.status_code == 201, uploaded.text[:300]
    assert uploaded.json()["quality"]["passed"] is False  # a drawing has no face: a failed check
    assert phone.delete(f"{api}/steps/selfie/images/{uploaded.json()['artifact_id']}", timeout=10).status_code == 204
    assert phone.post(f"{api}/steps/selfie/images", data=photo(2), headers={"Content-Type": "image/jpeg"},
                      timeout=30).status_code == 201
    assert phone.post(f"{api}/steps/selfie/complete", json={}, timeout=10).status_code == 200
    assert phone.post(f"{api}/submit", timeout=10).status_code == 200
    # 2. An Android WebView that views the first step and stops.
    webview, api = journey_session(console, create(console), WEBVIEW_UA)
    assert webview.post(f"{api}/signals", json={"signal": "step_viewed", "step": "about"}, timeout=10).status_code == 202
    assert webview.post(f"{api}/signals", json={"signal": "camera_unavailable"}, timeout=10).status_code == 202
    # 3. Never opened.
    create(console)
    phone.close()
    webview.close()


def journey_in_the_browser(driver, console: Console) -> None:
    """4. The real journey page in Chromium: sign-in by handoff, the profile, then the selfie shown."""
    verification = create(console)
    url = mint_handoff(console.server, verification)["url"]
    driver.get(url)
    wait_state(driver, "step")
    shown(driver, "step-about")
    driver.find_element(By.NAME, "full_name").send_keys("Browser Tester")
    driver.find_element(By.NAME, "date_of_birth").send_keys("1991-04-05")
    date = driver.find_element(By.NAME, "date_of_birth")
    if date.get_attribute("value") != "1991-04-05":  # a date input takes the locale's order
        driver.execute_script("arguments[0].value = '1991-04-05';", date)
    shown(driver, "confirm").click()
    shown(driver, "step-selfie")


def funnel(console: Console) -> dict:
    return _api(console.server, "GET", f"/v1/analytics/funnel?workflow={WORKFLOW}")


def drawn(driver) -> dict:
    """What the page's SVG charts carry: the bars' counts per chart and row."""
    return driver.execute_script(
        """
        const read = (testid, key) => [...document.querySelectorAll(`[data-testid="${testid}"] g.bar-row`)].map((g) => ({
          key: g.getAttribute(key), bars: [...g.querySelectorAll('rect.bar')].map((r) => [r.getAttribute('data-series'),
                                                                                           Number(r.getAttribute('data-count'))])}));
        return {funnel: read('analytics-funnel', 'data-stage'), steps: read('analytics-steps', 'data-step'),
                retakes: [...document.querySelectorAll('[data-testid="analytics-retakes"] g.bar-row')].map((g) => ({
                  key: `${g.getAttribute('data-step')}/${g.getAttribute('data-reason')}`,
                  count: Number(g.querySelector('rect.bar').getAttribute('data-count'))})),
                devices: read('analytics-devices', 'data-class'),
                tables: [...document.querySelectorAll('#analytics table')].length,
                styled: document.querySelectorAll('#analytics [style]').length};
        """
    )


def assert_charts_match(driver, expected: dict) -> None:
    charts = drawn(driver)
    assert charts["funnel"] == [{"key": s["stage"], "bars": [["stage", s["count"]]]} for s in expected["stages"]], charts["funnel"]
    assert charts["steps"] == [{"key": s["step"], "bars": [["viewed", s["viewed"]], ["completed", s["completed"]]]}
                               for s in expected["steps"]], charts["steps"]
    assert charts["retakes"] == [{"key": f"{r['step']}/{r['reason']}", "count": r["count"]} for r in expected["retakes"]]
    assert charts["devices"] == [{"key": d["class"], "bars": [["opened", d["opened"]], ["submitted", d["submitted"]]]}
                                 for d in expected["devices"]], charts["devices"]
    assert charts["tables"] == 4 and charts["styled"] == 0, charts


def open_analytics(driver, console: Console, lang: str) -> None:
    open_as(driver, console, console.ops["reviewer"], f"/console/analytics?workflow={WORKFLOW}&lang={lang}")
    wait_state(driver, "analytics")
    shown(driver, "analytics-funnel")


def test_the_funnel_after_real_journeys(browsers, analytics, capsys):
    driver = browsers()
    journey_in_the_browser(driver, analytics)
    # The page's step_viewed is sent without waiting: give it a moment to arrive.
    expected = wait_until(driver, lambda _: (lambda f: f if {s["step"]: s["viewed"] for s in f["steps"]}.get("selfie") == 2 else False)(
        funnel(analytics)), "the browser's view of the selfie step counted")
    stages = {s["stage"]: s["count"] for s in expected["stages"]}
    assert stages == {"created": 4, "opened": 3, "signed_in": 3, "submitted": 1, "decided": 0}, expected
    assert [s["conversion"] for s in expected["stages"]] == [1, 0.75, 0.75, 0.25, 0]
    steps = {s["step"]: (s["viewed"], s["completed"]) for s in expected["steps"]}
    assert steps == {"about": (3, 2), "selfie": (2, 1)}, expected["steps"]
    assert expected["retakes"] and all(r["step"] == "selfie" and r["count"] == 1 for r in expected["retakes"]), expected
    devices = {d["class"]: (d["opened"], d["submitted"]) for d in expected["devices"]}
    assert devices["phone"] == (1, 1) and devices["android_webview"] == (1, 0), devices
    assert sum(d["opened"] for d in expected["devices"]) == 3

    open_analytics(driver, analytics, "en")
    assert_charts_match(driver, expected)
    # The header links to the page, as the current one.
    link = shown(driver, "nav-analytics")
    assert link.get_attribute("aria-current") == "page"
    # The table behind the funnel says the same in words.
    table = shown(driver, "analytics-funnel-table").text
    assert "Link opened" in table and "75%" in table, table
    # The filters: a range that holds nothing shows zeros; a bad one says so.
    shown(driver, "analytics-from").clear()
    driver.execute_script("arguments[0].value = '2020-01-01';", shown(driver, "analytics-from"))
    driver.execute_script("arguments[0].value = '2020-01-31';", shown(driver, "analytics-to"))
    shown(driver, "analytics-apply").click()
    wait_until(driver, lambda d: "from=2020-01-01" in d.current_url and drawn(d)["funnel"]
               and drawn(d)["funnel"][0]["bars"][0][1] == 0, "the empty range's funnel")
    driver.execute_script("arguments[0].value = '2020-02-01';", shown(driver, "analytics-from"))
    shown(driver, "analytics-apply").click()
    shown(driver, "analytics-error")
    assert_clean_console(driver)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_page_is_accessible_on_a_phone_and_a_desktop(browsers, analytics, lang, capsys):
    driver = browsers()
    as_phone(driver)
    open_analytics(driver, analytics, lang)
    expected = funnel(analytics)
    assert_charts_match(driver, expected)
    words = driver.find_element(By.TAG_NAME, "main").text
    if lang == "hi":
        assert DEVANAGARI.search(words), words[:200]
    report = {}
    shots = []
    for size in ("phone", "desktop"):
        if size == "desktop":
            as_desktop(driver)
        time.sleep(0.2)
        report[size] = summarize_violations(axe_violations(driver))
        shots.append(shoot(driver, f"console-analytics-{lang}-{size}").name)
        driver.execute_script("document.querySelector('[data-testid=\"analytics-retakes\"]').scrollIntoView({block: 'start'});")
        shots.append(shoot(driver, f"console-analytics-{lang}-{size}-retakes").name)
        driver.execute_script("scrollTo(0, 0);")
    with capsys.disabled():
        print(f"\n  [analytics axe, {lang}] {report}; screenshots: {', '.join(shots)}")
    found = [f"[{size}] {line}" for size, lines in report.items() for line in lines]
    assert not found, "accessibility violations:\n" + "\n".join(found)
    assert_clean_console(driver)


def test_webkit_draws_the_same_charts(webkit, analytics):
    sign_in(webkit, analytics, analytics.ops["webkit"])
    webkit.get(f"{analytics.base}/console/analytics?workflow={WORKFLOW}")
    wait_state(webkit, "analytics")
    shown(webkit, "analytics-funnel")
    assert_charts_match(webkit, funnel(analytics))
    shoot(webkit, "console-analytics-webkit")
