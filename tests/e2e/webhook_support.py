"""Helpers for test_webhooks.py: `hosted serve --dev` processes configured for webhooks, a
hosts file the server resolves names from, an API client, and a programmable receiver.

A `Deployment` is one database (SQLite by default, or a PostgreSQL URL) with its settings
(`HOSTED_WEBHOOK_RETRY_SCHEDULE`, `HOSTED_WEBHOOK_TIMEOUT`, `HOSTED_WEBHOOK_HOSTS_FILE`,
`HOSTED_SWEEP_INTERVAL`); `start()` runs one more `serve` process on it (a second one on the
same database, or a restart after `kill9()`), each on its own free loopback port.

The `Receiver` is a ThreadingHTTPServer on 127.0.0.1:0 playing the customer's endpoint: each
path answers from its programmed list, one entry per request, then a fixed answer
(`program(path, [500, 500, 200])`, `[410]`, `[(429, {"Retry-After": "2"}), 200]`,
`[(301, {"Location": url})]`, `["sleep 5"]`, `[{"status": 200, "sleep": 1.0}]`). Every request
to any path (programmed or not) is recorded with its headers, raw body and receipt time.

Everything stays on loopback: the servers listen on 127.0.0.1, the receiver too, the HTTP
client ignores proxy settings, and the servers get no proxy variables either (libcurl would
otherwise honour `http_proxy`). Every wait has a deadline. Secrets (API keys, webhook signing
secrets) are kept out of reprs and failure messages, and checked against the server logs at
the end.
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BIN = ".build/debug/hosted"
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0
SERVING_LINE = re.compile(r"serving on http://127\.0\.0\.1:(\d+)")
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")

WORKFLOW = {"key": "kyc", "name": "KYC", "steps": [{"type": "selfie"}]}


class SetupError(RuntimeError):
    """The harness could not get a server or an account up (not a webhook failure)."""


def hosted_binary() -> Path:
    configured = os.environ.get("HOSTED_BIN", DEFAULT_BIN)
    path = Path(configured)
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise SetupError(f"hosted binary not found or not executable at {path} (set HOSTED_BIN)")
    return path


SECRET_PATTERNS = [
    re.compile(r"sk_[A-Za-z0-9_\-]+"),
    re.compile(r"whsec_[A-Za-z0-9+/=]+"),
]


class Secret(str):
    """A str whose repr hides it: pytest prints function arguments and compared values in its
    failure reports, and a secret must never reach them. str(), f-strings and JSON give the value."""

    def __repr__(self) -> str:
        return f"<secret {str.__str__(self)[:6]}…>"


def hide_secrets(value: Any) -> Any:
    """`value` (parsed JSON) with every whsec_ string a `Secret`."""
    if isinstance(value, dict):
        return {name: hide_secrets(item) for name, item in value.items()}
    if isinstance(value, list):
        return [hide_secrets(item) for item in value]
    if isinstance(value, str) and value.startswith("whsec_"):
        return Secret(value)
    return value


def redact(text: str) -> str:
    """`text` without API keys or webhook secrets (for failure messages)."""
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(0)[:6] + "[redacted]", text)
    return text


def tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "(no output)"
    return redact("\n".join(text.splitlines()[-lines:]) or "(empty)")


# --- the hosts file ------------------------------------------------------------------------

class HostsFile:
    """A hosts(5) file the server resolves every name from (`HOSTED_WEBHOOK_HOSTS_FILE`).
    Rewritten atomically (write + rename) on every change: the server re-reads it at every
    resolution and must never see half a file."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, str] = {}
        self._write()

    def set(self, name: str, address: str) -> None:
        self.entries[name] = address
        self._write()

    def _write(self) -> None:
        lines = ["# written by tests/e2e/webhook_support.py"]
        lines += [f"{address} {name}" for name, address in self.entries.items()]
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)


# --- serve processes ----------------------------------------------------------------------

class ServeProcess:
    """One `hosted serve --dev --listen 127.0.0.1:0`; `port` is read from its serving line."""

    def __init__(self, binary: Path, env: dict[str, str], workdir: Path, name: str):
        self.name = name
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.stdout_path = workdir / f"{name}.stdout.log"
        self.killed = False
        with open(self.stderr_path, "wb") as stderr, open(self.stdout_path, "wb") as stdout:
            self.process = subprocess.Popen(
                [str(binary), "serve", "--dev", "--listen", "127.0.0.1:0"],
                env=env, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            )
        self.port = self._wait_for_port()
        self.base_url = f"http://127.0.0.1:{self.port}"

    def _wait_for_port(self) -> int:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            match = SERVING_LINE.search(self.stderr_path.read_text(encoding="utf-8", errors="replace"))
            if match:
                return int(match.group(1))
            if self.process.poll() is not None:
                raise SetupError(f"{self.name}: hosted serve exited with {self.process.returncode} before "
                                 f"serving; stderr:\n{tail(self.stderr_path)}")
            time.sleep(0.05)
        self.process.kill()
        self.process.wait(timeout=10)
        raise SetupError(f"{self.name}: no serving line within {STARTUP_TIMEOUT:.0f} s; stderr:\n"
                         + tail(self.stderr_path))

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill9(self) -> None:
        """SIGKILL, at once: no shutdown code runs (a crash)."""
        assert self.alive(), f"{self.name} had already exited ({self.process.returncode}) before kill -9"
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.killed = True

    def stop(self) -> str | None:
        """SIGTERM and a bounded wait; returns a problem, or None when it exited 0 in time."""
        if self.killed:
            return None
        if self.process.poll() is not None:
            return f"{self.name} exited on its own with {self.process.returncode}; stderr:\n{tail(self.stderr_path)}"
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            return f"{self.name} did not exit within {STOP_TIMEOUT:.0f} s of SIGTERM; stderr:\n{tail(self.stderr_path)}"
        if self.process.returncode != 0:
            return f"{self.name} exited {self.process.returncode} after SIGTERM; stderr:\n{tail(self.stderr_path)}"
        return None

    def log_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace") + \
            self.stdout_path.read_text(encoding="utf-8", errors="replace")


class Deployment:
    """One database and the `serve` processes running on it, all with the same settings."""

    def __init__(self, workdir: Path, *, schedule: str, timeout: int, database_url: str | None = None,
                 secret_key: str | None = None, sweep_interval: int = 1, extra_env: dict[str, str] | None = None):
        self.binary = hosted_binary()
        self.workdir = workdir
        self.hosts = HostsFile(workdir / "hosts")
        self.schedule = [float(step) for step in schedule.split(",")]
        self.timeout = timeout
        # Drop the caller's HOSTED_* settings (e.g. a PostgreSQL URL meant for other tests) and
        # every proxy variable: the servers' outbound requests must go straight to loopback.
        env = {name: value for name, value in os.environ.items()
               if not name.startswith("HOSTED_") and name.lower() not in PROXY_VARIABLES}
        env["NO_PROXY"] = env["no_proxy"] = "*"
        env["HOSTED_DATABASE_URL"] = database_url or f"sqlite:{workdir / 'hosted.sqlite'}"
        env["HOSTED_PUBLIC_URL"] = "http://127.0.0.1:8080"
        env["HOSTED_DEV_MODE"] = "on"  # the CLI too (serve also gets --dev)
        env["HOSTED_WEBHOOK_RETRY_SCHEDULE"] = schedule
        env["HOSTED_WEBHOOK_TIMEOUT"] = str(timeout)
        env["HOSTED_WEBHOOK_HOSTS_FILE"] = str(self.hosts.path)
        env["HOSTED_SWEEP_INTERVAL"] = str(sweep_interval)
        if secret_key is not None:
            env["HOSTED_SECRET_KEY"] = secret_key
        env.update(extra_env or {})
        self.env = env
        self.processes: list[ServeProcess] = []
        # Every secret the tests handled: none may ever appear in a server log.
        self.secrets: list[str] = []
        if secret_key is not None:
            self.secrets.append(secret_key)

    def start(self) -> ServeProcess:
        """One more `serve` process on this deployment's database."""
        process = ServeProcess(self.binary, self.env, self.workdir, f"serve-{len(self.processes) + 1}")
        self.processes.append(process)
        return process

    def create_account(self) -> tuple[str, str]:
        """`hosted accounts create`: (account_id, api_key)."""
        result = subprocess.run([str(self.binary), "accounts", "create", "--name", "webhooks-e2e"],
                                env=self.env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise SetupError(f"`hosted accounts create` exited {result.returncode}: {redact(result.stderr)[-2000:]}")
        try:
            created = json.loads(result.stdout)
            account_id, api_key = created["account_id"], created["api_key"]
        except (ValueError, KeyError, TypeError):
            raise SetupError("`hosted accounts create` printed no {account_id, api_key}: "
                             + repr(redact(result.stdout)[:300])) from None
        self.secrets.append(api_key)
        return account_id, Secret(api_key)

    def client(self, process: ServeProcess | None = None) -> Client:
        """A client of a fresh account (with the `kyc` workflow) on `process` (default: the first
        living one)."""
        process = process or next(p for p in self.processes if p.alive())
        account_id, api_key = self.create_account()
        client = Client(process.base_url, api_key, self.secrets, account_id=account_id)
        client.call("POST", "/v1/workflows", WORKFLOW, expected=(201,))
        return client

    def close(self) -> list[str]:
        """Stops every process; returns what went wrong (exit codes, secrets in logs)."""
        problems = [problem for process in self.processes if (problem := process.stop())]
        for process in self.processes:
            log = process.log_text()
            for secret in self.secrets:
                bare = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
                if secret in log or (len(bare) >= 16 and bare in log):
                    problems.append(f"{process.name}'s log contains a secret ({secret[:6]}…)")
        return problems


# --- the API client -----------------------------------------------------------------------

class Client:
    """The customer API of one account on one server (Bearer key, JSON, no proxies)."""

    def __init__(self, base_url: str, api_key: str, secrets: list[str], account_id: str = ""):
        self.base_url = base_url
        self._api_key = Secret(api_key)
        self.account_id = account_id
        self.secrets = secrets  # shared with the deployment: secrets seen in answers go there
        self.session = requests.Session()
        self.session.trust_env = False  # never a proxy: loopback only

    def __repr__(self) -> str:
        return f"Client({self.base_url}, account={self.account_id or '?'})"

    def moved_to(self, process: ServeProcess) -> Client:
        """The same account through another server process."""
        return Client(process.base_url, self._api_key, self.secrets, account_id=self.account_id)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"}

    def request(self, method: str, path: str, body: Any = None, *, params: dict | None = None,
                auth: bool = True, raw_body: bytes | None = None) -> requests.Response:
        headers = dict(self.headers) if auth else {}
        kwargs: dict[str, Any] = {"params": params, "headers": headers, "timeout": 15}
        if raw_body is not None:
            headers["Content-Type"] = "application/json"
            kwargs["data"] = raw_body
        elif body is not None:
            kwargs["json"] = body
        response = self.session.request(method, self.base_url + path, **kwargs)
        self._remember_secrets(response)
        return response

    def call(self, method: str, path: str, body: Any = None, *, expected: tuple[int, ...] = (200,),
             params: dict | None = None) -> Any:
        response = self.request(method, path, body, params=params)
        assert response.status_code in expected, (
            f"{method} {path} {redact(json.dumps(body)) if body is not None else ''} answered "
            f"{response.status_code}, expected {expected}: {redact(response.text[:600])}"
        )
        return hide_secrets(response.json())

    def _remember_secrets(self, response: requests.Response) -> None:
        for match in re.finditer(r"whsec_[A-Za-z0-9+/=]+", response.text):
            if match.group(0) not in self.secrets:
                self.secrets.append(match.group(0))


# --- the receiver -------------------------------------------------------------------------

@dataclass
class Received:
    method: str
    target: str  # path and query as sent
    path: str  # without the query
    headers: dict[str, str] = field(repr=False)  # lower-cased names
    body: bytes = field(repr=False)
    at: float = 0.0  # time.time() when the request's body had been read
    answer: str = ""  # what the receiver answered (or tried to)

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Answer:
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    sleep: float = 0.0

    def describe(self) -> str:
        return (f"sleep {self.sleep:g} then " if self.sleep else "") + str(self.status)


def as_answer(spec: Any) -> Answer:
    """200 | (429, {"Retry-After": "2"}) | "sleep 5" (then 200) | {"status", "headers", "sleep"}."""
    if isinstance(spec, Answer):
        return spec
    if isinstance(spec, int):
        return Answer(spec)
    if isinstance(spec, tuple):
        status, headers = spec
        return Answer(status, tuple(headers.items()))
    if isinstance(spec, str):
        match = re.fullmatch(r"sleep ([\d.]+)", spec)
        if not match:
            raise ValueError(f"unknown answer {spec!r}")
        return Answer(200, (), float(match.group(1)))
    if isinstance(spec, dict):
        return Answer(spec.get("status", 200), tuple(spec.get("headers", {}).items()), spec.get("sleep", 0.0))
    raise ValueError(f"unknown answer {spec!r}")


class _ReceiverHandler(http.server.BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so every attempt is a connection of its own.
    protocol_version = "HTTP/1.0"

    def _handle(self) -> None:
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = Received(self.command, self.path, path, headers, body, time.time())
        answer = receiver._arrived(request)
        try:
            if answer.sleep:
                receiver._stopping.wait(answer.sleep)
            payload = b"ok\n"
            self.send_response(answer.status)
            for name, value in answer.headers:
                self.send_header(name, value)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (timeout, or a killed server): nothing to answer
        finally:
            receiver._finished(path)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle  # noqa: N815

    def log_message(self, *args) -> None:  # quiet
        pass


class _ReceiverServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # quiet: aborted connections are expected
        pass


class Receiver:
    """The customer's webhook endpoint on 127.0.0.1, answering per path as programmed."""

    def __init__(self):
        self._condition = threading.Condition()
        self._programs: dict[str, list[Answer]] = {}
        self._then: dict[str, Answer] = {}
        self._inflight: dict[str, int] = {}
        self._max_inflight: dict[str, int] = {}
        self.requests: list[Received] = []
        self._stopping = threading.Event()
        self._server = _ReceiverServer(("127.0.0.1", 0), _ReceiverHandler)
        self._server.receiver = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def program(self, path: str, answers: list[Any], then: Any = 200) -> None:
        """`path` answers `answers` in order, one per request, then `then` for every later one."""
        with self._condition:
            self._programs[path] = [as_answer(answer) for answer in answers]
            self._then[path] = as_answer(then)

    def _arrived(self, request: Received) -> Answer:
        with self._condition:
            program = self._programs.get(request.path)
            answer = program.pop(0) if program else self._then.get(request.path, Answer(200))
            request.answer = answer.describe()
            self.requests.append(request)
            self._inflight[request.path] = self._inflight.get(request.path, 0) + 1
            self._max_inflight[request.path] = max(self._max_inflight.get(request.path, 0),
                                                   self._inflight[request.path])
            self._condition.notify_all()
            return answer

    def _finished(self, path: str) -> None:
        with self._condition:
            self._inflight[path] -= 1

    def requests_to(self, path: str) -> list[Received]:
        with self._condition:
            return [request for request in self.requests if request.path == path]

    def max_inflight(self, path: str) -> int:
        with self._condition:
            return self._max_inflight.get(path, 0)

    def wait_for(self, path: str, count: int, timeout: float, what: str = "") -> list[Received]:
        """The first `count` requests to `path`, waiting at most `timeout` seconds for them."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                arrived = [request for request in self.requests if request.path == path]
                if len(arrived) >= count:
                    return arrived[:count]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._condition.wait(remaining)
        raise AssertionError(
            f"{what or path}: {len(arrived)} of {count} expected request(s) arrived within {timeout:.1f} s "
            f"(answers given: {[request.answer for request in arrived]})"
        )

    def wait_distinct(self, path: str, header: str, count: int, timeout: float) -> set[str]:
        """Waits until `count` distinct values of `header` arrived at `path`; returns them."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                values = {request.headers.get(header) for request in self.requests if request.path == path}
                values.discard(None)
                if len(values) >= count:
                    return values  # type: ignore[return-value]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"{path}: {len(values)} of {count} distinct {header} values arrived "
                                         f"within {timeout:.0f} s")
                self._condition.wait(remaining)

    def close(self) -> None:
        self._stopping.set()  # wakes every sleeping answer
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


# --- small things -----------------------------------------------------------------------

def wait_until(predicate, timeout: float, what: str, interval: float = 0.2):
    """Polls `predicate` until it returns something truthy (returned); fails after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = predicate()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not reached within {timeout:.1f} s")
        time.sleep(interval)


def secret_key_bytes(secret: str) -> bytes:
    assert secret.startswith("whsec_"), "a webhook secret starts with whsec_"
    return base64.b64decode(secret[len("whsec_"):], validate=True)
