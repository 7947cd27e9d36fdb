"""End-to-end fixtures: one live `hosted serve --dev` per test session, on SQLite.

The server binary is `.build/debug/hosted` (relative to the repository root) unless
`HOSTED_BIN` names another one. It listens on a free loopback port, which is read from the
`serving on http://127.0.0.1:PORT` line it prints on stderr. The fixture then creates an
account with `hosted accounts create`, registers the return URL and the `kyc_basic` workflow
the contract's examples use, and at the end stops the server with SIGTERM and checks that it
exited 0 and never logged the API key.

The browser tests of the journey use a second server (`journey_hosted`) on a fixed free port
whose `--public-url` is that same `http://127.0.0.1:PORT`: the journey's POSTs must carry an
`Origin` equal to the public URL's origin, so the browser has to load the pages from exactly
there. `browsers` / `browser` give each test headless Chromium instances with fresh profiles
(see browser.py).

The step tests use `steps_hosted`: the same journey server through a second account whose `kyc`
workflow has profile, selfie and premises photos, with a loopback return page (`return_page`)
registered as its return URL; `webkit` gives them a WebKitGTK MiniBrowser (under `xvfb-run -a`).

Local-only knob: `HOSTED_E2E_SCHEMA_PATH=public/openapi.yaml` loads the contract from a file
instead of `GET /v1/openapi.yaml` (for trying the harness before the server serves it).
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parents[2]

DEFAULT_BIN = ".build/debug/hosted"
STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 20.0
SERVING_LINE = re.compile(r"serving on http://127\.0\.0\.1:(\d+)")

# Hypothesis keeps a small cache (`.hypothesis/`) in the working directory; keep it out of the
# repository checkout.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", str(Path(tempfile.gettempdir()) / "hosted-e2e-hypothesis")
)

RETURN_URL = "https://app.example.com/kyc/done"
WORKFLOW = {
    "key": "kyc_basic",
    "name": "Basic KYC",
    "steps": [
        {"type": "profile"},
        {"type": "selfie"},
        {"type": "premises_photos", "min": 2, "max": 4},
    ],
}


@dataclass(frozen=True)
class HostedServer:
    base_url: str
    # Kept out of repr: pytest prints fixture values in failure reports.
    api_key: str = field(repr=False)
    account_id: str = ""
    stderr_path: Path = field(default=Path(), repr=False)
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    def log_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def _binary() -> Path:
    configured = os.environ.get("HOSTED_BIN", DEFAULT_BIN)
    path = Path(configured)
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"hosted binary not found or not executable at {path}; run `swift build` first "
            "(or point HOSTED_BIN at a built binary)",
            pytrace=False,
        )
    return path


def _environment(workdir: Path) -> dict[str, str]:
    # Start from the caller's environment but drop every other HOSTED_* setting (e.g. a
    # PostgreSQL URL meant for the Swift tests), so the server sees exactly this configuration.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOSTED_")}
    env["HOSTED_DATABASE_URL"] = f"sqlite:{workdir / 'hosted.sqlite'}"
    env["HOSTED_PUBLIC_URL"] = "http://127.0.0.1:8080"
    # Webhook host names resolve only from this (empty) file, never DNS: a fuzzed endpoint URL
    # can name any host, and no lookup may leave the machine.
    hosts = workdir / "webhook-hosts"
    hosts.write_text("")
    env["HOSTED_WEBHOOK_HOSTS_FILE"] = str(hosts)
    return env


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "(no output)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


def _wait_for_port(process: subprocess.Popen, stderr_path: Path) -> int:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        match = SERVING_LINE.search(stderr_path.read_text(encoding="utf-8", errors="replace"))
        if match:
            return int(match.group(1))
        if process.poll() is not None:
            pytest.fail(
                f"hosted serve exited with {process.returncode} before serving; stderr:\n"
                + _tail(stderr_path),
                pytrace=False,
            )
        time.sleep(0.05)
    process.kill()
    process.wait()
    pytest.fail(
        f"hosted serve printed no 'serving on http://127.0.0.1:PORT' line within "
        f"{STARTUP_TIMEOUT:.0f} s; stderr:\n" + _tail(stderr_path),
        pytrace=False,
    )


def _create_account(binary: Path, env: dict[str, str], workdir: Path) -> dict[str, str]:
    result = subprocess.run(
        [str(binary), "accounts", "create", "--name", "e2e"],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        pytest.fail(
            f"`hosted accounts create` exited {result.returncode}; stderr:\n{result.stderr}",
            pytrace=False,
        )
    try:
        created = json.loads(result.stdout)
        assert created["account_id"].startswith("acct_")
        assert created["api_key"].startswith("sk_")
    except (ValueError, KeyError, AssertionError):
        pytest.fail(
            "`hosted accounts create` printed no {account_id, api_key} JSON: "
            + repr(re.sub(r"sk_[A-Za-z0-9_-]+", "sk_[redacted]", result.stdout)),
            pytrace=False,
        )
    return created


def _seed(base_url: str, api_key: str) -> None:
    """Registers what the contract's examples refer to, so the examples phase reaches 2xx."""
    headers = {"Authorization": f"Bearer {api_key}"}
    calls = [
        ("/v1/return_urls", {"url": RETURN_URL}, (200, 201)),
        ("/v1/workflows", WORKFLOW, (201,)),
    ]
    for path, body, expected in calls:
        response = requests.post(base_url + path, json=body, headers=headers, timeout=10)
        if response.status_code not in expected:
            pytest.fail(
                f"seeding POST {path} answered {response.status_code}, expected {expected}: "
                f"{response.text[:500]}",
                pytrace=False,
            )


@pytest.fixture(scope="session")
def hosted(tmp_path_factory: pytest.TempPathFactory):
    """A running `hosted serve --dev` with one account, its return URL and workflow."""
    binary = _binary()
    workdir = tmp_path_factory.mktemp("hosted")
    env = _environment(workdir)
    # The server and the CLI run from the repository root, where they find `migrations/` and
    # `public/` (the served OpenAPI document among them); all state goes to `workdir`.
    stderr_path = workdir / "serve.stderr.log"
    stdout_path = workdir / "serve.stdout.log"
    with open(stderr_path, "wb") as stderr, open(stdout_path, "wb") as stdout:
        process = subprocess.Popen(
            [str(binary), "serve", "--dev", "--listen", "127.0.0.1:0"],
            env=env,
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
    server = None
    try:
        port = _wait_for_port(process, stderr_path)
        base_url = f"http://127.0.0.1:{port}"
        created = _create_account(binary, env, workdir)
        _seed(base_url, created["api_key"])
        server = HostedServer(
            base_url=base_url,
            api_key=created["api_key"],
            account_id=created["account_id"],
            stderr_path=stderr_path,
            process=process,
        )
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                pytest.fail(
                    f"hosted serve did not exit within {STOP_TIMEOUT:.0f} s of SIGTERM; stderr:\n"
                    + _tail(stderr_path),
                    pytrace=False,
                )
    # Only reached on a normal teardown: the server started and the session used it.
    assert process.returncode == 0, (
        f"hosted serve exited {process.returncode} after SIGTERM; stderr:\n" + _tail(stderr_path)
    )
    if server is not None:
        # Checked again after exit, when every buffered log line has been written.
        assert server.api_key not in server.log_text(), "the server log contains the API key"


@pytest.fixture(scope="session")
def api_schema(hosted: HostedServer):
    """The contract as the server publishes it, set up to call that server with the key."""
    import schemathesis

    config = schemathesis.Config.from_dict(
        {
            "base-url": hosted.base_url,
            "headers": hosted.auth_headers,
            "request-timeout": 40,
            # Keep runs reproducible and write no state into the working tree.
            "cache": {"enabled": False},
            "generation": {"max-examples": 30, "database": "none"},
            # Random workflow keys and URLs almost never exist, so most generated creates would
            # stop at "unknown workflow" / "return URL not registered". Steer part of them to
            # the seeded ones so the create path itself gets fuzzed too.
            "dictionaries": {
                "workflow_keys": {"values": [WORKFLOW["key"]]},
                "return_urls": {"values": [RETURN_URL]},
            },
            "parameters": {
                "body.workflow": {"dictionary": "workflow_keys", "probability": 0.7},
                "body.return_url": {"dictionary": "return_urls", "probability": 0.5},
            },
        }
    )
    local = os.environ.get("HOSTED_E2E_SCHEMA_PATH")
    if local:
        path = Path(local)
        return schemathesis.openapi.from_path(path if path.is_absolute() else REPO_ROOT / path, config=config)
    url = f"{hosted.base_url}/v1/openapi.yaml"
    try:
        return schemathesis.openapi.from_url(url, config=config)
    except schemathesis.errors.LoaderError as error:
        problem = str(error)
    pytest.fail(f"could not load the contract from GET {url}: {problem}", pytrace=False)


# --- the journey in a real browser ---------------------------------------------------------

JOURNEY_WORKFLOW = {
    "key": "kyc",
    "name": "KYC",
    "steps": [{"type": "profile"}, {"type": "selfie"}],
}


@dataclass(frozen=True)
class JourneyServer:
    """A `hosted serve --dev` whose public URL is the address it listens on."""

    base_url: str
    api_key: str = field(repr=False)
    account_id: str = ""
    stderr_path: Path = field(default=Path(), repr=False)
    # Handoff secrets and session tokens the tests handled: none may ever reach the log.
    secrets: list[str] = field(default_factory=list, repr=False)
    # How to run the CLI against this server's database (for fixtures that add accounts).
    binary: Path | None = field(default=None, repr=False)
    cli_env: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    def log_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def start_on_a_free_port(binary: Path, env: dict[str, str], workdir: Path):
    """`hosted serve` on a fixed free port whose public URL is that same address (three tries,
    since another process may take the port between choosing and binding it)."""
    stderr_path = workdir / "journey-serve-0.stderr.log"
    for attempt in range(3):
        process, public_url, stderr_path = _start_on_fixed_port(binary, env, workdir, attempt)
        if process is not None:
            return process, public_url, stderr_path
    pytest.fail("hosted serve could not bind a free port in 3 attempts; stderr:\n" + _tail(stderr_path), pytrace=False)


def stop_server(process: subprocess.Popen, stderr_path: Path) -> None:
    """SIGTERM, then a bounded wait; a server that does not stop in time is killed and fails the test."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail(f"hosted serve did not exit within {STOP_TIMEOUT:.0f} s of SIGTERM; stderr:\n"
                    + _tail(stderr_path), pytrace=False)


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_on_fixed_port(binary: Path, env: dict[str, str], workdir: Path, attempt: int):
    """Starts `serve --dev` on a free port chosen here; None if that port was taken meanwhile."""
    port = _free_loopback_port()
    public_url = f"http://127.0.0.1:{port}"
    stderr_path = workdir / f"journey-serve-{attempt}.stderr.log"
    with open(stderr_path, "wb") as stderr, open(workdir / f"journey-serve-{attempt}.stdout.log", "wb") as stdout:
        process = subprocess.Popen(
            [str(binary), "serve", "--dev", "--listen", f"127.0.0.1:{port}", "--public-url", public_url],
            env={**env, "HOSTED_PUBLIC_URL": public_url},
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        match = SERVING_LINE.search(stderr_path.read_text(encoding="utf-8", errors="replace"))
        if match:
            assert int(match.group(1)) == port, f"asked for port {port}, serving on {match.group(1)}"
            return process, public_url, stderr_path
        if process.poll() is not None:
            return None, public_url, stderr_path
        time.sleep(0.05)
    process.kill()
    process.wait()
    pytest.fail(
        f"hosted serve printed no serving line within {STARTUP_TIMEOUT:.0f} s; stderr:\n" + _tail(stderr_path),
        pytrace=False,
    )


@pytest.fixture(scope="session")
def journey_hosted(tmp_path_factory: pytest.TempPathFactory):
    """A running `hosted serve --dev --public-url http://127.0.0.1:PORT` on that PORT, with one
    account and the `kyc` workflow (profile, selfie)."""
    binary = _binary()
    workdir = tmp_path_factory.mktemp("journey-hosted")
    env = _environment(workdir)
    process, public_url, stderr_path = start_on_a_free_port(binary, env, workdir)
    env = {**env, "HOSTED_PUBLIC_URL": public_url}
    server = None
    try:
        created = _create_account(binary, env, workdir)
        response = requests.post(public_url + "/v1/workflows", json=JOURNEY_WORKFLOW,
                                 headers={"Authorization": f"Bearer {created['api_key']}"}, timeout=10)
        if response.status_code != 201:
            pytest.fail(f"creating the kyc workflow answered {response.status_code}: {response.text[:500]}",
                        pytrace=False)
        server = JourneyServer(base_url=public_url, api_key=created["api_key"],
                               account_id=created["account_id"], stderr_path=stderr_path,
                               binary=binary, cli_env=env)
        yield server
    finally:
        stop_server(process, stderr_path)
    assert process.returncode == 0, (
        f"hosted serve exited {process.returncode} after SIGTERM; stderr:\n" + _tail(stderr_path)
    )
    if server is not None:
        log = server.log_text()
        assert server.api_key not in log, "the server log contains the API key"
        leaked = [secret[:6] + "…" for secret in server.secrets if secret in log]
        assert not leaked, f"the server log contains handoff secrets or session tokens: {leaked}"


@pytest.fixture
def browsers(tmp_path: Path):
    """Opens headless Chromium instances, each with a fresh profile; quits them after the test.

    Call it for each browser the test needs (`first = browsers()`); `browsers.quit(driver)`
    closes one early, so at most one or two run at a time on a 2-core machine.
    """
    from browser import new_driver

    opened = []
    count = 0

    def open_browser(**options):
        """`options` go to browser.new_driver (e.g. `camera="denied"`)."""
        nonlocal count
        count += 1  # never reused, even after an early quit: every profile starts empty
        driver = new_driver(tmp_path / f"profile-{count}", **options)
        opened.append(driver)
        return driver

    def quit_browser(driver) -> None:
        if driver in opened:
            opened.remove(driver)
            driver.quit()

    open_browser.quit = quit_browser
    try:
        yield open_browser
    finally:
        for driver in opened:
            try:
                driver.quit()
            except Exception:  # a crashed browser must not hide the test's own failure
                pass


@pytest.fixture
def browser(browsers):
    """One headless Chromium with a fresh profile."""
    return browsers()


# --- the journey's steps: a second account, its return page, WebKit -------------------------

STEPS_WORKFLOW = {
    "key": "kyc",
    "name": "KYC",
    "steps": [
        {"type": "profile"},
        {"type": "selfie"},
        {"type": "premises_photos", "min": 2, "max": 4},
    ],
}


class _ReturnPageHandler(http.server.BaseHTTPRequestHandler):
    """The customer's landing page: 200 with a tiny HTML page for any GET, each path recorded."""

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.server.paths.append(self.path)
        body = b"<!doctype html><html lang=en><title>Back in the app</title><h1>Back in the app</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


@dataclass(frozen=True)
class ReturnPage:
    """Where the journey sends the browser after submit: `url` is the registered return URL."""

    url: str
    paths: list[str]


@pytest.fixture(scope="session")
def return_page():
    """A loopback HTTP server playing the customer's return page (`/kyc/done?src=app`)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ReturnPageHandler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, name="return-page", daemon=True)
    thread.start()
    try:
        yield ReturnPage(url=f"http://127.0.0.1:{server.server_port}/kyc/done?src=app", paths=server.paths)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def steps_hosted(journey_hosted: JourneyServer, return_page: ReturnPage, tmp_path_factory: pytest.TempPathFactory):
    """The journey server seen through a second account of its own, whose `kyc` workflow is
    profile, selfie, premises_photos (2..4) and whose registered return URL is `return_page`'s
    (loopback `http`, allowed in dev mode). A separate account, so the sign-in tests' `kyc`
    workflow (profile, selfie) stays as it is."""
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary to create a second account with", pytrace=False)
    created = _create_account(journey_hosted.binary, journey_hosted.cli_env, tmp_path_factory.mktemp("steps-account"))
    journey_hosted.secrets.append(created["api_key"])  # checked against the server log at teardown
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    for path, body in (("/v1/return_urls", {"url": return_page.url}), ("/v1/workflows", STEPS_WORKFLOW)):
        response = requests.post(server.base_url + path, json=body, headers=server.auth_headers, timeout=10)
        if response.status_code not in (200, 201):
            pytest.fail(f"seeding POST {path} answered {response.status_code}: {response.text[:500]}", pytrace=False)
    return server


@pytest.fixture
def webkit(tmp_path: Path):
    """One WebKitGTK MiniBrowser (needs a display: run pytest under `xvfb-run -a`)."""
    from browser import new_webkit_driver

    driver = new_webkit_driver(tmp_path / "webkit")
    try:
        yield driver
    finally:
        try:
            driver.quit()
        except Exception:
            pass
