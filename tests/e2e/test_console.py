"""The operator console (`/console`) end to end, in real browsers.

Drives the console through its stable test hooks (`<body data-state>`, `data-testid`; DESIGN.md,
"Operator console", and the console contract) in headless Chromium and, for sign-in, queue and
detail, in WebKitGTK (under `xvfb-run -a`):

1. a new operator's setup link (fragment stripped, TOTP secret as text and as a QR code that
   decodes to the enrolment's `otpauth://` URI), sign-in with email + password + TOTP, the
   queue, a verification's detail (images really load, the full-size one too; profile fields;
   timeline), approval, and the customer API agreeing (status, `verification.approved` by the
   operator);
2. a rejection with a reason code and an internal note (the note stays inside the console);
3. four eyes: a workflow with `approvals_required: 2` needs two different operators;
4. a disabled operator is thrown out of a signed-in browser;
5. another account's verification and artifact URLs are refused (404, never the data);
6. 5 failed sign-ins lock the operator: the right password is refused too, with the same words;
7. sign-in, queue and detail in WebKitGTK;
8. axe-core finds no violations on the sign-in, setup, queue, detail and operators screens, in
   English and Hindi, phone-sized and desktop-sized; screenshots
   `test-artifacts/console-<screen>-<lang>-<phone|desktop>.png`;
9. an admin disables another operator from the operators screen;
10. an account with more than 10,000 verifications in one status: the tab shows "10000+", the
    others their exact counts (English and Hindi, axe-core clean; `console-queue-capped-<lang>-phone.png`).

Verifications are submitted quickly through the journey API with a handoff (no browser). All run
on `journey_hosted` (its public URL is the address it listens on, as the console's same-origin
checks need), through a console account of their own created with the CLI, so the queue holds
only this module's verifications. Operators are created with `hosted operators create` against
the server's database (`journey_hosted.cli_env`) and, except the one test 1 sets up in the
browser, set up through the console API once per module.

TOTP codes: a code is accepted once per 30 s step per operator, and never the step used at setup.
`Operator.last_step` remembers the last step used and `Console.code()` waits for the next step
boundary only when it must. Sign-in sessions are reused across tests (the `hosted_console` cookie
put into a fresh browser), so each operator signs in once and the module waits about one step.
Every secret handled here (setup tokens, passwords, TOTP seeds, session cookies) is added to
`journey_hosted.secrets`, which the fixture checks against the server log at teardown.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import pyotp
import pytest
import requests
from PIL import Image, ImageDraw
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from browser import (
    DEFAULT_WAIT,
    PHONE,
    axe_violations,
    body_state,
    by_testid,
    console_problems,
    screenshot,
    summarize_violations,
)
from conftest import REPO_ROOT
from test_journey_signin import _api, mint_handoff

# No SMS is ever sent here (every journey sign-in is a handoff); not another module's number.
MOBILE = "+919800066677"
FULL_NAME = "Meera Krishnan"
DATE_OF_BIRTH = "1988-11-23"
COOKIE = "hosted_console"
DESKTOP = (1280, 800)
DEVANAGARI = re.compile(r"[\u0900-\u097F]")

KYC = "console_kyc"
FOUR_EYES = "console_four_eyes"
STEPS = [{"type": "profile"}, {"type": "selfie"}, {"type": "premises_photos", "min": 1, "max": 3}]
PREMISES_PHOTOS = 2
IMAGES = 1 + PREMISES_PHOTOS  # selfie + premises photos: the detail's artifact images


# --- operators, TOTP, the CLI -------------------------------------------------------------------

def normalized_secret(text: str) -> str:
    """A base32 seed as shown (maybe grouped with spaces, maybe lower case) → as pyotp takes it."""
    return re.sub(r"[\s=-]", "", text).upper()


@dataclass
class Operator:
    label: str
    id: str
    email: str
    role: str
    account_id: str
    setup_url: str = field(repr=False)
    password: str = field(default="", repr=False)
    secret: str = field(default="", repr=False)
    # The last TOTP step a code of this operator was used for (setup or sign-in): -1 = none.
    last_step: int = -1
    cookie: str | None = field(default=None, repr=False)

    @property
    def token(self) -> str:
        return self.setup_url.split("#token=", 1)[1]


@dataclass
class Console:
    server: object  # journey_hosted seen through the console account (base_url, api_key, …)
    foreign_account_id: str
    binary: Path = field(repr=False)
    env: dict = field(repr=False)
    ops: dict[str, Operator] = field(default_factory=dict)
    _shared: dict | None = None

    @property
    def base(self) -> str:
        return self.server.base_url

    @property
    def origin(self) -> dict[str, str]:
        return {"Origin": self.base}

    def keep_secret(self, value: str | None) -> None:
        if value:
            self.server.secrets.append(value)

    # The command line, against the server's own database and configuration.
    def cli(self, *arguments: str) -> dict:
        result = subprocess.run([str(self.binary), *arguments], env=self.env, cwd=REPO_ROOT,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"`hosted {' '.join(arguments[:2])}` exited {result.returncode}: {result.stderr[-800:]}"
        try:
            return json.loads(result.stdout)
        except ValueError:
            pytest.fail(f"`hosted {' '.join(arguments[:2])}` printed no JSON: {result.stdout[:300]!r}", pytrace=False)

    def new_operator(self, label: str, role: str, account_id: str | None = None) -> Operator:
        account_id = account_id or self.server.account_id
        email = f"{label}-{uuid.uuid4().hex[:8]}@console-e2e.example.com"
        created = self.cli("operators", "create", "--account", account_id, "--email", email, "--role", role)
        assert created["operator_id"].startswith("op_"), created
        prefix = f"{self.base}/console/setup#token="
        assert created["setup_url"].startswith(prefix), (
            f"the setup URL is not {prefix}…: {created['setup_url'].split('#')[0]}")
        op = Operator(label=label, id=created["operator_id"], email=email, role=role, account_id=account_id,
                      setup_url=created["setup_url"], password=f"Tamarind-Lantern-{uuid.uuid4().hex[:10]}")
        self.keep_secret(op.token)
        self.keep_secret(op.password)
        self.ops[label] = op
        return op

    def code(self, op: Operator) -> str:
        """A TOTP code of a step this operator has not used yet (waits for the next step boundary
        only when the current one is used); the step counts as used from here on."""
        while True:
            now = time.time()
            step = int(now // 30)
            if step > op.last_step:
                op.last_step = step
                return pyotp.TOTP(op.secret).at(step * 30)
            time.sleep(30 - now % 30 + 0.5)

    def current_code(self, op: Operator) -> str:
        """The current code without marking its step used (for attempts meant to fail)."""
        return pyotp.TOTP(op.secret).now()

    def set_up(self, op: Operator) -> None:
        """Completes the setup through the console API, as the setup page does."""
        enrolment = self.enrolment(op)
        op.secret = normalized_secret(enrolment["secret"])
        self.keep_secret(op.secret)
        response = requests.post(f"{self.base}/console/api/setup/complete", headers=self.origin, timeout=30,
                                 json={"token": op.token, "password": op.password, "code": self.code(op)})
        assert response.status_code == 200, f"setup/complete for {op.label}: {response.status_code} {response.text[:300]}"
        assert response.json() == {"status": "ready", "email": op.email}, response.text[:300]

    def enrolment(self, op: Operator) -> dict:
        """`POST /console/api/setup` for the operator's link (it does not use the link up)."""
        response = requests.post(f"{self.base}/console/api/setup", json={"token": op.token}, headers=self.origin, timeout=10)
        assert response.status_code == 200, f"POST /console/api/setup for {op.label}: {response.status_code} {response.text[:300]}"
        return response.json()

    def cookie(self, op: Operator) -> str:
        """A console session of the operator (signed in once through the API, then reused)."""
        if op.cookie is None:
            response = requests.post(f"{self.base}/console/api/session", headers=self.origin, timeout=30,
                                     json={"email": op.email, "password": op.password, "code": self.code(op)})
            assert response.status_code == 200, f"signing {op.label} in: {response.status_code} {response.text[:300]}"
            assert response.json()["operator"]["id"] == op.id, response.text[:300]
            op.cookie = response.cookies.get(COOKIE)
            assert op.cookie, f"no {COOKIE} cookie in {response.headers.get('Set-Cookie')}"
            self.keep_secret(op.cookie)
        return op.cookie

    def api_as(self, op: Operator) -> requests.Session:
        """requests with the operator's console session and the console's Origin."""
        session = requests.Session()
        session.headers.update({"Origin": self.base, "Cookie": f"{COOKIE}={self.cookie(op)}"})
        return session

    # The customer API.
    def verification(self, vid: str) -> dict:
        return _api(self.server, "GET", f"/v1/verifications/{vid}")

    def events(self, vid: str) -> list[dict]:
        """Every event of the verification, oldest first (all pages)."""
        events: list[dict] = []
        while True:
            after = f"&starting_after={events[-1]['id']}" if events else ""
            page = _api(self.server, "GET", f"/v1/verifications/{vid}/events?limit=100{after}")
            assert page["object"] == "list", page
            events.extend(page["data"])
            if not page["has_more"]:
                break
        assert [event["sequence"] for event in events] == list(range(1, len(events) + 1)), "event sequence has gaps"
        return events

    def submitted(self, workflow: str = KYC, label: str = "v", user_id: str | None = None) -> dict:
        """A verification of `workflow` whose journey was completed and submitted through the
        journey API: profile, one selfie, PREMISES_PHOTOS premises photos."""
        user_id = user_id or f"console-{label}-{uuid.uuid4().hex[:10]}"
        body = {"user_id": user_id, "workflow": workflow, "mobile": MOBILE}
        verification = _api(self.server, "POST", "/v1/verifications", body, expected=(201,))
        vid = verification["id"]
        secret = mint_handoff(self.server, verification)["url"].split("#handoff=", 1)[1]
        journey = requests.Session()
        journey.headers["Origin"] = self.base
        api = f"{self.base}/j/{vid}/api"

        def ok(response: requests.Response, status: int = 200) -> dict:
            assert response.status_code == status, (
                f"{response.request.method} {response.request.path_url}: {response.status_code} {response.text[:300]}")
            return response.json()

        ok(journey.post(f"{api}/session", json={"handoff": secret}, timeout=10))
        self.keep_secret(journey.cookies.get("hosted_session"))
        ok(journey.post(f"{api}/steps/profile/profile", json={"full_name": FULL_NAME, "date_of_birth": DATE_OF_BIRTH},
                        timeout=10))
        jpeg = {"Content-Type": "image/jpeg"}
        ok(journey.post(f"{api}/steps/selfie/images", data=photo(0), headers=jpeg, timeout=30), 201)
        ok(journey.post(f"{api}/steps/selfie/complete", timeout=10))
        for number in range(1, PREMISES_PHOTOS + 1):
            ok(journey.post(f"{api}/steps/premises_photos/images", data=photo(number), headers=jpeg, timeout=30), 201)
        ok(journey.post(f"{api}/steps/premises_photos/complete", timeout=10))
        assert ok(journey.post(f"{api}/submit", timeout=10))["status"] == "submitted"
        journey.close()
        return {**verification, "user_id": body["user_id"]}

    def shared(self) -> dict:
        """One submitted verification for the tests that only look (made once)."""
        if self._shared is None:
            self._shared = self.submitted(label="shared")
        return self._shared


def photo(number: int) -> bytes:
    """A 640x480 JPEG that is not blank: a gradient, a few shapes and a number, different each time."""
    image = Image.linear_gradient("L").resize((640, 480)).convert("RGB")
    draw = ImageDraw.Draw(image)
    hue = [(200, 60, 40), (40, 140, 200), (60, 170, 80), (220, 180, 30)][number % 4]
    draw.rectangle((40, 40, 260, 220), fill=hue, outline=(255, 255, 255), width=6)
    draw.ellipse((330, 120, 590, 400), fill=(255 - hue[0], 255 - hue[1], 255 - hue[2]))
    draw.polygon([(80, 440), (220, 260), (300, 440)], fill=(30, 30, 30))
    draw.text((470, 40), f"#{number}", fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()


@pytest.fixture(scope="module")
def console(journey_hosted) -> Console:
    """A console account (with its workflows), a second account, and their operators, all set up
    (but the `viewer`, whose setup screen the accessibility test looks at)."""
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary", pytrace=False)
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary,
                      env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "console-e2e")
    foreign = partial.cli("accounts", "create", "--name", "console-e2e-foreign")
    for account in (created, foreign):
        assert account["account_id"].startswith("acct_") and account["api_key"].startswith("sk_"), "accounts create"
        journey_hosted.secrets.append(account["api_key"])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id=foreign["account_id"], binary=journey_hosted.binary,
                      env=journey_hosted.cli_env)
    for body in ({"key": KYC, "name": "Console KYC", "steps": STEPS},
                 {"key": FOUR_EYES, "name": "Console four eyes", "steps": STEPS, "review": {"approvals_required": 2}}):
        workflow = _api(server, "POST", "/v1/workflows", body, expected=(201,))
        if "review" in body:
            assert workflow.get("review", {}).get("approvals_required") == 2, f"the four-eyes workflow: {workflow}"
    console.new_operator("admin", "admin")
    for label in ("second", "kicked", "locked", "webkit", "target"):
        console.new_operator(label, "reviewer")
    console.new_operator("foreign", "reviewer", account_id=console.foreign_account_id)
    for op in list(console.ops.values()):
        console.set_up(op)
    console.new_operator("viewer", "reviewer")  # left invited: its setup screen is looked at
    return console


# --- page helpers ------------------------------------------------------------------------------

def page_info(driver) -> str:
    """What the console shows, for failure messages (setup tokens redacted)."""
    try:
        info = driver.execute_script(
            """
            const text = (id) => {
              const e = document.querySelector(`[data-testid="${id}"]`);
              return e && !e.hidden && e.textContent.trim() ? e.textContent.trim().slice(0, 200) : null;
            };
            return {url: location.href.replace(/#token=.*/, '#token=[redacted]'),
                    state: document.body ? document.body.dataset.state : null,
                    console_error: text('console-error'), setup_error: text('setup-error'),
                    page_error: text('page-error'), decision_error: text('decision-error')};
            """
        )
    except WebDriverException as error:
        return f"(page not readable: {error.msg})"
    return json.dumps(info, ensure_ascii=False)


def wait_until(driver, condition, what: str, timeout: float = DEFAULT_WAIT):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(condition)
    except TimeoutException:
        pytest.fail(f"{what} not within {timeout:.0f} s; page: {page_info(driver)}", pytrace=False)


def wait_state(driver, state: str, timeout: float = DEFAULT_WAIT) -> None:
    wait_until(driver, lambda d: body_state(d) == state, f"body[data-state={state}]", timeout)


def settled_state(driver) -> str:
    wait_until(driver, lambda d: body_state(d) not in (None, "loading"), "the page leaving loading")
    return body_state(driver)


def shown(driver, testid: str, within=None):
    """The displayed element with this data-testid (inside `within` if given)."""
    def ready(d):
        for element in (within or d).find_elements(*by_testid(testid)):
            if element.is_displayed():
                return element
        return False

    return wait_until(driver, ready, f"[data-testid={testid}] displayed")


def displayed(driver, testid: str) -> list:
    return [e for e in driver.find_elements(*by_testid(testid)) if e.is_displayed()]


def open_as(driver, console: Console, op: Operator, path: str) -> None:
    """Opens `path` in `driver` signed in as `op`: its console session cookie is put into the
    browser (HttpOnly, SameSite=Strict, Path=/console, as the server sets it)."""
    driver.get(console.base + "/console/api/me")  # any page of the origin under /console
    driver.add_cookie({"name": COOKIE, "value": console.cookie(op), "path": "/console", "httpOnly": True,
                       "sameSite": "Strict"})
    driver.get(console.base + path)


def sign_in(driver, console: Console, op: Operator, query: str = "") -> None:
    """Signs in through the sign-in screen at /console; ends on the queue."""
    driver.get(f"{console.base}/console{query}")
    wait_state(driver, "signin")
    code = console.code(op)  # may wait for the next step; typed at once after
    shown(driver, "console-email").send_keys(op.email)
    shown(driver, "console-password").send_keys(op.password)
    shown(driver, "console-totp").send_keys(code)
    shown(driver, "console-signin").click()
    wait_state(driver, "queue")


def browser_fetch(driver, path: str) -> dict:
    """GET `path` with the page's own fetch (its cookies, its origin)."""
    return driver.execute_async_script(
        """
        const [path, done] = [arguments[0], arguments[arguments.length - 1]];
        fetch(path, {credentials: 'same-origin', cache: 'no-store'})
          .then(async (r) => done({status: r.status, type: r.headers.get('content-type'),
                                   body: (await r.text()).slice(0, 100000)}),
                (e) => done({status: 0, error: String(e)}));
        """,
        path,
    )


def images_state(driver, testid: str = "artifact-image") -> list[dict]:
    return driver.execute_script(
        """
        return [...document.querySelectorAll(`[data-testid="${arguments[0]}"]`)].map((i) => {
          const img = i.tagName === 'IMG' ? i : i.querySelector('img');
          return img ? {complete: img.complete, width: img.naturalWidth, src: img.getAttribute('src') || ''}
                     : {complete: true, width: 0, src: '(no img)'};
        });
        """,
        testid,
    )


def wait_images_loaded(driver, count: int) -> list[dict]:
    """Waits until `count` artifact images are there and every one decoded (naturalWidth > 0)."""
    def loaded(d):
        images = images_state(d)
        broken = [image for image in images if image["complete"] and image["width"] == 0]
        if broken:
            pytest.fail(f"artifact images that failed to load: {broken}", pytrace=False)
        return images if len(images) >= count and all(image["width"] > 0 for image in images) else False

    return wait_until(driver, loaded, f"{count} artifact images loaded", timeout=DEFAULT_WAIT * 2)


def open_detail_from_queue(driver, vid: str) -> None:
    """On the queue: opens the row of `vid` (its link, or the row itself)."""
    css = f'[data-testid="queue-row"][data-verification-id="{vid}"]'
    row = wait_until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css), f"the queue row of {vid}")[0]
    links = row.find_elements(By.CSS_SELECTOR, "a[href]")
    (links[0] if links else row).click()
    wait_state(driver, "detail")
    assert urlsplit(driver.current_url).path == f"/console/verifications/{vid}", driver.current_url


def decide(driver, choice: str, reason: str | None = None, note: str | None = None) -> str:
    """Chooses approve/reject (and a reason, a note), submits; returns the outcome shown."""
    shown(driver, f"decision-{choice}").click()
    if reason is not None:
        Select(shown(driver, "decision-reason")).select_by_value(reason)
    if note is not None:
        shown(driver, "decision-note").send_keys(note)
    shown(driver, "decision-submit").click()
    outcome = shown(driver, "decision-outcome")
    return outcome.get_attribute("data-outcome")


def scroll_to_images(driver) -> None:
    driver.execute_script(
        "document.querySelector('[data-testid=\"artifact-image\"]').scrollIntoView({block: 'start'});")


def detail_status(driver) -> str:
    return shown(driver, "detail-status").get_attribute("data-status")


def assert_clean_console(driver) -> None:
    problems = console_problems(driver)
    assert not problems, "the console logged errors:\n" + "\n".join(problems)


def actor(event: dict) -> dict:
    return {"type": event["actor"]["type"], "id": event["actor"].get("id")}


def shoot(driver, name: str) -> Path:
    time.sleep(0.2)  # let the screen finish painting (fonts, images)
    return screenshot(driver, name)


# --- 1. setup, sign-in, queue, detail, approve -------------------------------------------------

def test_setup_signin_queue_detail_and_approve(browsers, console, capsys):
    verification = console.submitted(label="approve")
    vid = verification["id"]
    op = console.new_operator("first", "reviewer")
    enrolment = console.enrolment(op)  # what the page is shown (the same seed on every call)
    driver = browsers()

    # The setup page takes the token out of the address bar before anything else.
    driver.get(op.setup_url)
    wait_state(driver, "setup")
    assert "#token" not in driver.current_url and op.token not in driver.current_url, "the setup token stayed in the URL"
    assert driver.execute_script("return location.hash;") == ""
    shown_secret = normalized_secret(shown(driver, "setup-totp-secret").text)
    assert shown_secret == normalized_secret(enrolment["secret"]), "the page shows another secret than the server's"
    op.secret = shown_secret
    console.keep_secret(op.secret)
    uri = urlsplit(enrolment["otpauth_uri"])
    query = parse_qs(uri.query)
    assert (uri.scheme, uri.netloc) == ("otpauth", "totp"), enrolment["otpauth_uri"].split("?")[0]
    assert normalized_secret(query["secret"][0]) == shown_secret
    assert query.get("issuer") == ["Hosted"] and op.email in unquote(uri.path), "the otpauth URI's issuer and label"
    assert query.get("digits", ["6"]) == ["6"] and query.get("period", ["30"]) == ["30"]

    qr = shown(driver, "setup-qr")
    wait_until(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", qr),
               "the QR code image loaded")
    if shutil.which("zbarimg") is None:
        with capsys.disabled():
            print("\n  [console] zbarimg not installed (Debian zbar-tools): the QR code was not decoded")
    else:
        with Image.open(io.BytesIO(qr.screenshot_as_png)) as shot:
            shot = shot.convert("RGB")
            padded = Image.new("RGB", (shot.width * 2 + 80, shot.height * 2 + 80), "white")
            padded.paste(shot.resize((shot.width * 2, shot.height * 2), Image.NEAREST), (40, 40))
        with tempfile.NamedTemporaryFile(suffix=".png") as file:
            padded.save(file.name)
            decoded = subprocess.run(["zbarimg", "--quiet", "--raw", file.name], capture_output=True, text=True, timeout=30)
        assert decoded.returncode == 0, f"zbarimg found no QR code in the setup-qr image: {decoded.stderr[:300]}"
        assert decoded.stdout.strip() == enrolment["otpauth_uri"], "the QR code is not the enrolment's otpauth URI"
    shoot(driver, "console-flow-01-setup")

    shown(driver, "setup-password").send_keys(op.password)
    for confirm in displayed(driver, "setup-password-confirm"):
        confirm.send_keys(op.password)
    shown(driver, "setup-totp-code").send_keys(console.code(op))
    shown(driver, "setup-submit").click()
    wait_state(driver, "setup-done")
    done = shown(driver, "setup-done")
    shoot(driver, "console-flow-02-setup-done")
    # The link works once.
    again = requests.post(f"{console.base}/console/api/setup", json={"token": op.token}, headers=console.origin, timeout=10)
    assert again.status_code == 404 and again.json().get("code") == "setup_link_invalid", again.text[:300]

    # Sign in from the done screen's link (the code of the next step: the setup's is spent).
    done.find_element(By.CSS_SELECTOR, "a[href]").click()
    wait_state(driver, "signin")
    assert urlsplit(driver.current_url).path == "/console", driver.current_url
    code = console.code(op)
    shown(driver, "console-email").send_keys(op.email)
    shown(driver, "console-password").send_keys(op.password)
    shown(driver, "console-totp").send_keys(code)
    shown(driver, "console-signin").click()
    wait_state(driver, "queue")
    cookies = [c for c in driver.get_cookies() if c["name"] == COOKIE]
    assert len(cookies) == 1, f"console cookies: {[c['name'] for c in driver.get_cookies()]}"
    console.keep_secret(cookies[0]["value"])
    assert cookies[0]["httpOnly"] is True and cookies[0]["path"] == "/console" and cookies[0].get("sameSite") == "Strict", (
        {k: v for k, v in cookies[0].items() if k != "value"})
    assert not displayed(driver, "nav-operators"), "a reviewer is offered the operators page"
    shown(driver, "signout")
    rows = wait_until(driver, lambda d: d.find_elements(*by_testid("queue-row")), "a queue row")
    assert vid in [row.get_attribute("data-verification-id") for row in rows]
    shoot(driver, "console-flow-03-queue")

    # The detail: images (display copies) really load, and the full-size one opens.
    open_detail_from_queue(driver, vid)
    assert detail_status(driver) == "submitted"
    images = wait_images_loaded(driver, IMAGES)
    assert len(images) == IMAGES, f"{len(images)} artifact images, expected {IMAGES}: {images}"
    assert all("size=display" in image["src"] for image in images), [image["src"] for image in images]
    shoot(driver, "console-flow-04-detail")
    scroll_to_images(driver)
    shoot(driver, "console-flow-04b-detail-images")
    driver.find_elements(*by_testid("artifact-image"))[1].click()
    full = shown(driver, "artifact-full")
    big = full if full.tag_name.lower() == "img" else full.find_element(By.TAG_NAME, "img")
    wait_until(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", big),
               "the full-size image loaded")
    assert "size=full" in big.get_attribute("src"), big.get_attribute("src")
    shoot(driver, "console-flow-05-full-image")
    closers = displayed(driver, "artifact-full-close")
    if closers:
        closers[0].click()
    else:
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(driver, lambda d: not displayed(d, "artifact-full"), "the full-size image closed")

    profile = " | ".join(element.text for element in displayed(driver, "profile-field"))
    assert FULL_NAME in profile, f"profile fields: {profile!r}"
    assert "1988" in profile and "23" in profile, f"the date of birth is not among the profile fields: {profile!r}"
    assert verification["user_id"] in driver.find_element(By.TAG_NAME, "body").text
    types = [event.get_attribute("data-type") for event in driver.find_elements(*by_testid("timeline-event"))]
    assert "verification.submitted" in types and "verification.created" in types, f"timeline: {types}"

    # Approve.
    assert decide(driver, "approve") == "approved"
    wait_until(driver, lambda d: detail_status(d) == "approved", "the detail showing approved")
    shoot(driver, "console-flow-06-approved")
    assert_clean_console(driver)

    decided = console.verification(vid)
    assert decided["status"] == "approved", decided["status"]
    events = console.events(vid)
    approved = [event for event in events if event["type"] == "verification.approved"]
    assert len(approved) == 1, [event["type"] for event in events]
    assert actor(approved[0]) == {"type": "operator", "id": op.id}, approved[0]["actor"]
    viewed = [event for event in events if event["type"] == "verification.review_note"
              and event["data"].get("kind") == "viewed"]
    assert viewed and all(actor(event) == {"type": "operator", "id": op.id} for event in viewed), viewed


# --- 2. reject with a reason and an internal note ----------------------------------------------

def test_reject_with_reason_and_internal_note(browsers, console):
    vid = console.submitted(label="reject")["id"]
    admin = console.ops["admin"]
    note = f"Selfie does not match the premises owner photo {uuid.uuid4().hex[:8]}"
    driver = browsers()
    open_as(driver, console, admin, f"/console/verifications/{vid}")
    wait_state(driver, "detail")
    wait_images_loaded(driver, IMAGES)
    reasons = [option.get_attribute("value") for option in Select(shown(driver, "decision-reason")).options]
    assert {"document_unclear", "face_mismatch", "premises_mismatch", "suspected_fraud", "other"} <= set(reasons), reasons

    assert decide(driver, "reject", reason="face_mismatch", note=note) == "rejected"
    wait_until(driver, lambda d: detail_status(d) == "rejected", "the detail showing rejected")
    wait_until(driver, lambda d: any(note in e.text for e in displayed(d, "note-body")), "the note in the detail")
    shoot(driver, "console-flow-07-rejected")
    driver.refresh()  # kept, not only shown
    wait_state(driver, "detail")
    wait_until(driver, lambda d: any(note in e.text for e in displayed(d, "note-body")), "the note after a reload")
    assert not displayed(driver, "decision-submit"), "a decided verification still offers a decision"
    assert_clean_console(driver)

    decided = console.verification(vid)
    assert (decided["status"], decided["decision_reason"]) == ("rejected", "face_mismatch"), decided
    events = console.events(vid)
    rejected = [event for event in events if event["type"] == "verification.rejected"]
    assert len(rejected) == 1 and rejected[0]["data"].get("reason") == "face_mismatch", rejected
    assert actor(rejected[0]) == {"type": "operator", "id": admin.id}, rejected[0]["actor"]
    assert any(event["type"] == "verification.review_note" and event["data"].get("kind") == "note" for event in events), (
        [(event["type"], event["data"]) for event in events])
    for what, text in (("events", json.dumps(events, ensure_ascii=False)),
                       ("verification", json.dumps(decided, ensure_ascii=False))):
        assert note not in text and note[-8:] not in text, f"the internal note is in the customer API's {what}"


def test_bidi_controls_in_a_user_id_are_isolated_and_shown(browsers, console):
    """Issue 37: a user id with U+202E (and other bidi or invisible characters) reordered the
    queue's text. The console shows it in a <bdi>, each such character written out."""
    tag = uuid.uuid4().hex[:8]
    user_id = f"bidi-{tag}-\u202egpj.exe\u2066x\u200b"
    shown_as = f"bidi-{tag}-<U+202E>gpj.exe<U+2066>x<U+200B>"
    vid = console.submitted(label="bidi", user_id=user_id)["id"]
    driver = browsers()
    open_as(driver, console, console.ops["admin"], "/console?" + urlencode({"user_id": user_id}))
    wait_state(driver, "queue")
    css = f'[data-testid="queue-row"][data-verification-id="{vid}"]'
    row = wait_until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css), f"the queue row of {vid}")[0]

    def isolated_and_visible(element, what: str) -> None:
        bdis = element.find_elements(By.TAG_NAME, "bdi")
        texts = [driver.execute_script("return arguments[0].textContent", bdi) for bdi in bdis]
        assert shown_as in texts, f"{what}: no <bdi> holding {shown_as!r}: {texts!r}"
        rendered = driver.execute_script("return arguments[0].textContent", element)
        for hidden in ("\u202e", "\u2066", "\u200b"):
            assert hidden not in rendered, f"{what}: U+{ord(hidden):04X} reached the page: {rendered!r}"

    isolated_and_visible(row, "the queue row")
    shoot(driver, "console-bidi-queue")
    open_detail_from_queue(driver, vid)
    isolated_and_visible(shown(driver, "detail-user-id"), "the detail's user id")
    isolated_and_visible(driver.find_element(By.ID, "detail-title"), "the detail's title")
    shoot(driver, "console-bidi-detail")
    assert_clean_console(driver)


# --- 3. four eyes ---------------------------------------------------------------------------------

def test_four_eyes_needs_two_operators(browsers, console):
    vid = console.submitted(FOUR_EYES, label="four-eyes")["id"]
    first, second = console.ops["admin"], console.ops["second"]
    a, b = browsers(), browsers()

    open_as(a, console, first, f"/console/verifications/{vid}")
    wait_state(a, "detail")
    assert decide(a, "approve") == "approval_recorded"
    assert detail_status(a) == "submitted"
    shoot(a, "console-flow-08-first-approval")
    assert console.verification(vid)["status"] == "submitted"

    # The same operator cannot approve again: no decision offered, or refused if tried.
    a.refresh()
    wait_state(a, "detail")
    if displayed(a, "decision-approve"):
        shown(a, "decision-approve").click()
        shown(a, "decision-submit").click()
        shown(a, "decision-error")
    again = console.api_as(first).post(f"{console.base}/console/api/verifications/{vid}/decision",
                                       json={"decision": "approved"}, timeout=10)
    assert again.status_code == 409 and again.json().get("code") == "approval_already_recorded", again.text[:300]
    assert console.verification(vid)["status"] == "submitted"

    open_as(b, console, second, f"/console/verifications/{vid}")
    wait_state(b, "detail")
    assert decide(b, "approve") == "approved"
    wait_until(b, lambda d: detail_status(d) == "approved", "the detail showing approved")
    shoot(b, "console-flow-09-second-approval")
    assert_clean_console(a)
    assert_clean_console(b)

    assert console.verification(vid)["status"] == "approved"
    events = console.events(vid)
    approvals = [event for event in events if event["type"] == "verification.review_note"
                 and event["data"].get("kind") == "approval"]
    assert len(approvals) == 1 and actor(approvals[0]) == {"type": "operator", "id": first.id}, approvals
    approved = [event for event in events if event["type"] == "verification.approved"]
    assert len(approved) == 1 and actor(approved[0]) == {"type": "operator", "id": second.id}, approved
    assert approvals[0]["sequence"] < approved[0]["sequence"]


# --- 4. a disabled operator is thrown out ----------------------------------------------------------

def test_disabled_operator_is_signed_out(browsers, console):
    op = console.ops["kicked"]
    vid = console.shared()["id"]
    driver = browsers()
    sign_in(driver, console, op)
    assert browser_fetch(driver, "/console/api/me")["status"] == 200

    disabled = console.cli("operators", "disable", op.id)
    assert disabled.get("status") == "disabled", disabled
    driver.refresh()
    wait_state(driver, "signin")
    me = browser_fetch(driver, "/console/api/me")
    assert me["status"] == 401 and json.loads(me["body"]).get("code") == "console_signin_required", me
    driver.get(f"{console.base}/console/verifications/{vid}")
    wait_state(driver, "signin")
    assert console.shared()["user_id"] not in driver.page_source
    shoot(driver, "console-flow-10-disabled-signed-out")
    assert_clean_console(driver)


# --- 5. another account's verification --------------------------------------------------------------

def test_foreign_account_urls_are_refused(browsers, console):
    verification = console.shared()
    vid = verification["id"]
    selfie = next(step for step in console.verification(vid)["steps"] if step["id"] == "selfie")["artifacts"][0]
    artifact = f"/console/api/verifications/{vid}/artifacts/{selfie}"
    # The account's own operator gets the image, as an image only.
    own = console.api_as(console.ops["admin"]).get(console.base + artifact + "?size=display", timeout=10)
    assert own.status_code == 200 and own.headers["Content-Type"] == "image/jpeg", own.status_code
    assert own.content[:3] == b"\xff\xd8\xff"
    assert own.headers.get("Content-Security-Policy") == "sandbox"
    assert own.headers.get("X-Content-Type-Options") == "nosniff"
    assert "no-store" in own.headers.get("Cache-Control", "")

    driver = browsers()
    open_as(driver, console, console.ops["foreign"], "/console")
    wait_state(driver, "queue")
    assert vid not in driver.page_source
    shown(driver, "queue-empty")
    driver.get(f"{console.base}/console/verifications/{vid}")
    state = settled_state(driver)
    assert state == "error", f"another account's verification shows state {state}: {page_info(driver)}"
    time.sleep(0.5)  # nothing else arrives later
    source = driver.page_source
    assert verification["user_id"] not in source and FULL_NAME not in source, "another account's data is on the page"
    assert not driver.find_elements(*by_testid("artifact-image"))
    shoot(driver, "console-flow-11-foreign-not-found")
    for path in (artifact + "?size=display", artifact + "?size=full", f"/console/api/verifications/{vid}"):
        answer = browser_fetch(driver, path)
        assert answer["status"] == 404, f"GET {path} as another account's operator: {answer}"
        assert json.loads(answer["body"]).get("code") == "not_found", answer
        assert verification["user_id"] not in answer["body"]
    queue = json.loads(browser_fetch(driver, "/console/api/queue?status=all")["body"])
    assert vid not in [row["id"] for row in queue["data"]], "another account's verification is in the queue"
    assert_clean_console(driver)


# --- 6. lockout --------------------------------------------------------------------------------------

def test_lockout_after_five_failures_through_the_page(browsers, console):
    op = console.ops["locked"]
    driver = browsers()
    driver.get(f"{console.base}/console")
    wait_state(driver, "signin")

    def attempt(email: str, password: str, code: str) -> str:
        before = driver.execute_script(
            "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/console/api/session')).length;")
        for testid, value in (("console-email", email), ("console-password", password), ("console-totp", code)):
            element = shown(driver, testid)
            element.clear()
            element.send_keys(value)
        shown(driver, "console-signin").click()
        wait_until(driver, lambda d: d.execute_script(
            "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/console/api/session')).length;")
            > before, "the sign-in request answered")
        error = shown(driver, "console-error")
        wait_until(driver, lambda d: error.text.strip(), "the sign-in error's words")
        assert body_state(driver) == "signin", page_info(driver)
        assert error.get_attribute("role") == "alert" or driver.execute_script(
            "return !!arguments[0].closest('[role=alert]');", error)
        return error.text.strip()

    unknown = attempt(f"nobody-{uuid.uuid4().hex[:6]}@console-e2e.example.com", "Not-a-real-password-1", "123456")
    wrong = [attempt(op.email, f"Wrong-password-{n}-{uuid.uuid4().hex[:4]}", console.current_code(op)) for n in range(5)]
    right = attempt(op.email, op.password, console.code(op))
    shoot(driver, "console-flow-12-locked")
    assert set(wrong) == {unknown} and right == unknown, f"unknown: {unknown!r}; wrong: {wrong}; right: {right!r}"
    assert not [c for c in driver.get_cookies() if c["name"] == COOKIE], "a locked operator got a session cookie"

    # The API answers a locked operator's right password exactly like an unknown email.
    answers = [requests.post(f"{console.base}/console/api/session", headers=console.origin, timeout=30, json=body)
               for body in ({"email": op.email, "password": op.password, "code": console.current_code(op)},
                            {"email": f"nobody-{uuid.uuid4().hex[:6]}@console-e2e.example.com",
                             "password": op.password, "code": "000000"})]
    assert [a.status_code for a in answers] == [401, 401], [a.text[:200] for a in answers]
    problem = lambda answer: {key: answer.json().get(key) for key in ("type", "title", "status", "detail", "code", "errors")}  # noqa: E731
    assert problem(answers[0]) == problem(answers[1]), [a.json() for a in answers]
    assert answers[0].json().get("code") == "console_signin_failed"
    trail = console.api_as(console.ops["admin"]).get(f"{console.base}/console/api/operators", timeout=10).json()["events"]
    failures = [event for event in trail if event["type"] == "operator.sign_in_failed" and event["operator_id"] == op.id]
    assert len(failures) >= 5, f"{len(failures)} operator.sign_in_failed events for the locked operator"
    assert not any(event["type"] == "operator.signed_in" and event["operator_id"] == op.id for event in trail)
    assert_clean_console(driver)


# --- 7. WebKitGTK ------------------------------------------------------------------------------------

def test_webkit_signin_queue_and_detail(webkit, console):
    vid = console.shared()["id"]
    sign_in(webkit, console, console.ops["webkit"])
    shoot(webkit, "console-webkit-queue")
    open_detail_from_queue(webkit, vid)
    images = wait_images_loaded(webkit, IMAGES)
    assert len(images) == IMAGES, images
    profile = " | ".join(element.text for element in displayed(webkit, "profile-field"))
    assert FULL_NAME in profile, profile
    shoot(webkit, "console-webkit-detail")
    scroll_to_images(webkit)
    shoot(webkit, "console-webkit-detail-images")


# --- 8. accessibility and screenshots -----------------------------------------------------------

def as_desktop(driver) -> None:
    """A 1280 x 800 viewport (the window grown by whatever the headless window keeps for itself)."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.set_window_size(*DESKTOP)
    width, height = driver.execute_script("return [innerWidth, innerHeight];")
    if (width, height) != DESKTOP:
        driver.set_window_size(DESKTOP[0] * 2 - width, DESKTOP[1] * 2 - height)


def as_phone(driver) -> None:
    driver.set_window_size(PHONE["width"], PHONE["height"])
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_every_screen_is_accessible(browsers, console, lang, capsys):
    """axe-core: no violations at all on each screen, phone-sized and desktop-sized."""
    admin = console.ops["admin"]
    vid = console.shared()["id"]
    driver = browsers()
    report: dict[str, list[str]] = {}
    shots: list[str] = []

    def check(screen: str) -> None:
        assert driver.execute_script("return document.documentElement.lang;") == lang, f"{screen}: <html lang>"
        words = driver.find_element(By.TAG_NAME, "main").text
        if lang == "hi":
            assert DEVANAGARI.search(words), f"{screen} in Hindi shows no Devanagari: {words[:200]!r}"
        for size in ("phone", "desktop"):
            if size == "desktop":
                as_desktop(driver)
            time.sleep(0.2)
            violations = axe_violations(driver)
            report[f"{screen}-{size}"] = summarize_violations(violations)
            shots.append(shoot(driver, f"console-{screen}-{lang}-{size}").name)
        as_phone(driver)

    driver.get(f"{console.base}/console?lang={lang}")
    wait_state(driver, "signin")
    check("signin")

    viewer = console.ops["viewer"]
    driver.get(viewer.setup_url.replace("#token=", f"?lang={lang}#token=", 1))
    wait_state(driver, "setup")
    qr = shown(driver, "setup-qr")
    wait_until(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", qr),
               "the QR code image loaded")
    check("setup")

    open_as(driver, console, admin, f"/console?lang={lang}")
    wait_state(driver, "queue")
    wait_until(driver, lambda d: d.find_elements(*by_testid("queue-row")), "a queue row")
    check("queue")

    driver.get(f"{console.base}/console/verifications/{vid}?lang={lang}")
    wait_state(driver, "detail")
    wait_images_loaded(driver, IMAGES)
    check("detail")

    driver.get(f"{console.base}/console/operators?lang={lang}")
    wait_state(driver, "operators")
    wait_until(driver, lambda d: d.find_elements(*by_testid("operator-row")), "an operator row")
    check("operators")
    assert_clean_console(driver)

    with capsys.disabled():
        print(f"\n  [console axe, {lang}] " + "; ".join(
            f"{name}: {'none' if not lines else ' / '.join(lines)}" for name, lines in report.items()))
        print(f"  screenshots: {', '.join(shots)}")
    found = [f"[{name}] {line}" for name, lines in report.items() for line in lines]
    assert not found, "accessibility violations:\n" + "\n".join(found)


# --- 9. an admin disables an operator --------------------------------------------------------------

def test_admin_disables_an_operator(browsers, console):
    admin, target, reviewer = console.ops["admin"], console.ops["target"], console.ops["second"]
    target_session = console.api_as(target)  # signed in before being disabled
    assert target_session.get(f"{console.base}/console/api/me", timeout=10).status_code == 200
    refused = console.api_as(reviewer).get(f"{console.base}/console/api/operators", timeout=10)
    assert refused.status_code == 403 and refused.json().get("code") == "operator_role_required", refused.text[:300]

    driver = browsers()
    open_as(driver, console, admin, "/console")
    wait_state(driver, "queue")
    shown(driver, "nav-operators").click()
    wait_state(driver, "operators")
    rows = wait_until(driver, lambda d: d.find_elements(*by_testid("operator-row")), "the operator rows")
    ids = {row.get_attribute("data-operator-id") for row in rows}
    account = {op.id for op in console.ops.values() if op.account_id == console.server.account_id}
    assert account <= ids, f"operators missing from the list: {account - ids}"
    assert console.ops["foreign"].id not in ids, "another account's operator is listed"

    css = f'[data-testid="operator-row"][data-operator-id="{target.id}"]'
    row = driver.find_element(By.CSS_SELECTOR, css)
    assert row.get_attribute("data-status") == "active"
    shown(driver, "operator-disable", within=row).click()
    alert = WebDriverWait(driver, DEFAULT_WAIT).until(EC.alert_is_present())
    assert target.email in alert.text, alert.text
    alert.accept()
    wait_until(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).get_attribute("data-status") == "disabled",
               "the operator's row showing disabled")
    shoot(driver, "console-flow-13-operator-disabled")
    assert_clean_console(driver)

    listed = console.api_as(admin).get(f"{console.base}/console/api/operators", timeout=10).json()
    assert next(op for op in listed["data"] if op["id"] == target.id)["status"] == "disabled"
    assert any(event["type"] == "operator.disabled" and event["operator_id"] == target.id
               and event["actor_id"] == admin.id for event in listed["events"]), listed["events"][-5:]
    me = target_session.get(f"{console.base}/console/api/me", timeout=10)
    assert me.status_code == 401 and me.json().get("code") == "console_signin_required", me.text[:300]


# --- 10. a status past the counts' cap -------------------------------------------------------------

# QueueCounts.cap: the queue counts each status up to this + 1 and answers it as `counts_limit`.
QUEUE_COUNT_CAP = 10_000


def test_a_count_past_the_cap_shows_as_the_cap_plus(browsers, console, capsys):
    """An account with more than 10,000 verifications in one status: the queue API counts that
    status to 10,001 and says its limit, and the tab shows "10000+" in English and Hindi while
    the other tabs keep their exact counts (docs/console.md, the queue)."""
    created = console.cli("accounts", "create", "--name", "console-e2e-many")
    console.keep_secret(created["api_key"])
    server = dataclasses.replace(console.server, api_key=created["api_key"], account_id=created["account_id"])
    _api(server, "POST", "/v1/workflows", {"key": "many", "name": "Many", "steps": [{"type": "profile"}]},
         expected=(201,))
    total, canceled = QUEUE_COUNT_CAP + 4, 3
    headers = server.auth_headers

    def create(numbers: range) -> list[str]:
        with requests.Session() as session:
            ids = []
            for number in numbers:
                response = session.post(f"{console.base}/v1/verifications", headers=headers, timeout=30,
                                        json={"user_id": f"many-{number}", "workflow": "many", "mobile": MOBILE})
                assert response.status_code == 201, f"create {number}: {response.status_code} {response.text[:300]}"
                ids.append(response.json()["id"])
            return ids

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = [vid for part in pool.map(create, [range(start, total, 8) for start in range(8)]) for vid in part]
    assert len(set(ids)) == total
    for vid in ids[:canceled]:
        assert _api(server, "POST", f"/v1/verifications/{vid}/cancel", {})["status"] == "canceled"

    op = console.new_operator("many", "reviewer", account_id=created["account_id"])
    console.set_up(op)
    answer = console.api_as(op).get(f"{console.base}/console/api/queue?status=created&limit=1", timeout=30)
    assert answer.status_code == 200, answer.text[:300]
    body = answer.json()
    assert body["counts_limit"] == QUEUE_COUNT_CAP, body
    assert body["counts"]["created"] == QUEUE_COUNT_CAP + 1, f"the capped count: {body['counts']}"
    assert body["counts"]["canceled"] == canceled and body["counts"]["submitted"] == 0, body["counts"]

    driver = browsers()
    shots = []
    for lang in ("en", "hi"):
        open_as(driver, console, op, f"/console?status=created&lang={lang}")
        wait_state(driver, "queue")
        wait_until(driver, lambda d: d.find_elements(*by_testid("queue-row")), "a queue row")
        shown_counts = {element.get_attribute("data-status"): element.text.strip()
                        for element in driver.find_elements(*by_testid("queue-count"))}
        assert shown_counts["created"] == f"{QUEUE_COUNT_CAP}+", f"[{lang}] the tabs show {shown_counts}"
        assert shown_counts["canceled"] == str(canceled) and shown_counts["submitted"] == "0", (
            f"[{lang}] the tabs show {shown_counts}")
        violations = summarize_violations(axe_violations(driver))
        assert not violations, f"[{lang}] accessibility violations:\n" + "\n".join(violations)
        shots.append(shoot(driver, f"console-queue-capped-{lang}-phone").name)
    assert_clean_console(driver)
    with capsys.disabled():
        print(f"\n  screenshots: {', '.join(shots)}")
