"""Operations end to end: several `hosted serve` processes on one PostgreSQL behind Debian's nginx,
a rolling restart behind it, PostgreSQL restarted under load, and SIGTERM under load.

1. Three nodes behind nginx (`balanced`): started at the same moment on a fresh database (the
   migrations take a lock), an account made with the CLI, then through nginx: 30 parallel
   identical creates give one 201 and 29 200 with one id; a handoff minted on one node and
   exchanged 20 times in parallel through nginx is won exactly once; a long-poll on one node is
   woken within 2 s by a cancel on another (straight to the nodes, then through nginx); and the
   whole browser journey (handoff URL, profile, selfie and premises photos with Chromium's fake
   camera, submit, the return page) runs through nginx while nginx spreads its requests over the
   nodes. nginx's access log (`$upstream_addr`) shows which node answered what.
2. Rolling restart: two nodes behind nginx on ports chosen in advance, a client loop of GETs
   through nginx (about 200 a second); each node in turn gets SIGTERM (HOSTED_SHUTDOWN_DELAY=2),
   exits 0 and is started again *on the same port* (so nginx's upstream block never changes and
   nginx is never reloaded, as a systemd unit restarted in place would be); the next node is
   rolled only once nginx sends traffic to the new one again. Not one GET may fail.
3. PostgreSQL stopped and started again (the throwaway server of scripts/with-postgres.sh, through
   its `HOSTED_TEST_PG_CTL`) under a loop of creates: meanwhile only 201 or 503
   `database_unavailable`; `/readyz` and the creates answer again within 5 s of the database,
   without restarting the node; every create that got 201 is there afterwards; a cross-node
   long-poll wake-up works again (LISTEN re-established).
4. SIGTERM under load on one node: readiness 503 during the delay while everything else is
   served, long-polls answered (not cut) when the delay ends, an upload whose body is still
   arriving after the listening socket closed finishes with 201, exit 0.

Everything listens on 127.0.0.1; every wait has a deadline; request counts and rates are bounded.
Skipped (with the reason) without HOSTED_TEST_POSTGRES_URL (run under scripts/with-postgres.sh;
a failure instead when HOSTED_REQUIRE_POSTGRES=1, as in scripts/test.sh) and, for 1 and 2,
without nginx (`apt-get install nginx-light`; scripts/test.sh installs it).

Restarting PostgreSQL cuts every connection to that server, so test 3 runs only when that is safe:
with HOSTED_TEST_PG_RESTART_ALLOWED=1, or when the server is the throwaway one (HOSTED_TEST_PG_CTL
is set) and, just before the restart, no client other than this test's own nodes is connected to
it (pytest runs one test at a time; the other e2e fixtures use SQLite).

The nginx configuration here is the site of docs/deployment.md without TLS; keep them in step.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from conftest import REPO_ROOT, STEPS_WORKFLOW, _binary, _create_account, _free_loopback_port
from hostile_support import RawConnection, create_database, drop_database, request_bytes
from test_journey_steps import (
    check_submitted,
    fill_profile,
    new_verification,
    on_review,
    open_signed_in,
    picture,
    take_photos,
)
from test_journey_steps import wait_until as wait_in_browser
from webhook_support import Secret, redact

MOBILE = "+919811122244"
SELFIE_WORKFLOW = {"key": "selfie", "name": "Selfie", "steps": [{"type": "selfie"}]}
STARTUP_TIMEOUT = 30.0
STOP_GRACE = 10.0  # HTTPServer.shutdown's grace period for requests in flight
SERVING_LINE = re.compile(r"serving on http://127\.0\.0\.1:(\d+)")
METRICS_LINE = re.compile(r"metrics on http://127\.0\.0\.1:(\d+)/metrics")
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


# --- preconditions -------------------------------------------------------------------------

def require_postgres() -> str:
    url = os.environ.get("HOSTED_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("HOSTED_REQUIRE_POSTGRES") == "1":
            pytest.fail("HOSTED_REQUIRE_POSTGRES=1 but HOSTED_TEST_POSTGRES_URL is not set "
                        "(run under scripts/with-postgres.sh)", pytrace=False)
        pytest.skip("HOSTED_TEST_POSTGRES_URL is not set: run under scripts/with-postgres.sh to test several "
                    "serve processes on one PostgreSQL")
    return url


def require_nginx() -> str:
    if not NGINX:
        pytest.skip("nginx is not installed (`apt-get install nginx-light`; scripts/test.sh installs it)")
    return NGINX


def psql(url: str, sql: str) -> str:
    directory = os.environ.get("HOSTED_TEST_PG_BIN")
    binary = str(Path(directory) / "psql") if directory else "psql"
    result = subprocess.run([binary, url, "-X", "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError(f"psql {sql!r} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout.strip()


def restart_unsafe_reason(admin_url: str, own_database: str) -> str | None:
    """Why PostgreSQL must not be restarted now (None: it may)."""
    if not os.environ.get("HOSTED_TEST_PG_CTL"):
        return "HOSTED_TEST_PG_CTL is not set: only the throwaway server of scripts/with-postgres.sh is restarted"
    if os.environ.get("HOSTED_TEST_PG_RESTART_ALLOWED") == "1":
        return None
    assert re.fullmatch(r"[a-z0-9_]+", own_database)
    others = psql(admin_url, "SELECT coalesce(string_agg(DISTINCT coalesce(datname, '-'), ', '), '') "
                             "FROM pg_stat_activity WHERE backend_type = 'client backend' "
                             f"AND pid <> pg_backend_pid() AND datname IS DISTINCT FROM '{own_database}'")
    if others:
        return (f"other clients are connected to the PostgreSQL server (databases: {others}); a restart would cut "
                "them (set HOSTED_TEST_PG_RESTART_ALLOWED=1 to restart anyway)")
    return None


def pg_ctl(*arguments: str) -> None:
    result = subprocess.run([os.environ["HOSTED_TEST_PG_CTL"], *arguments], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"pg_ctl {' '.join(arguments)} exited {result.returncode}: {result.stderr[-1000:]}"


def distinct_free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = _free_loopback_port()
        if port not in ports:
            ports.append(port)
    return ports


def session() -> requests.Session:
    """A client of its own (own connections), never through a proxy: loopback only."""
    s = requests.Session()
    s.trust_env = False
    return s


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout:.1f} s")
        time.sleep(interval)


def stop_load_and_deployment(stopping: threading.Event, threads, deployment, admin_url: str, name: str,
                             join_timeout: float) -> list[str]:
    """Stops a test's load threads, then its nodes (and nginx), and drops its database; returns
    what the deployment found wrong in its logs."""
    stopping.set()
    for thread in threads:
        thread.join(timeout=join_timeout)
    problems = deployment.close()
    drop_database(admin_url, name)
    return problems


def tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "(no output)"
    return redact("\n".join(text.splitlines()[-lines:]) or "(empty)")


# --- serve processes ------------------------------------------------------------------------

class Node:
    """One `hosted serve --dev` on 127.0.0.1:`port` (0: any free port). `start` returns at once;
    `wait_serving` reads the serving line (its port, and the metrics port)."""

    def __init__(self, name: str, env: dict[str, str], workdir: Path, port: int = 0):
        self.name = name
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.asked_port = port
        self.sigterm_at: float | None = None
        with open(self.stderr_path, "wb") as stderr, open(workdir / f"{name}.stdout.log", "wb") as stdout:
            self.process = subprocess.Popen(
                [str(_binary()), "serve", "--dev", "--listen", f"127.0.0.1:{port}"],
                env=env, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            )
        self.port = 0
        self.metrics_port: int | None = None

    def wait_serving(self) -> Node:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            text = self.log_text()
            match = SERVING_LINE.search(text)
            if match:
                self.port = int(match.group(1))
                if self.asked_port:
                    assert self.port == self.asked_port, f"{self.name}: asked for {self.asked_port}, serving on {self.port}"
                metrics = METRICS_LINE.search(text)
                self.metrics_port = int(metrics.group(1)) if metrics else None
                return self
            if self.process.poll() is not None:
                pytest.fail(f"{self.name}: hosted serve exited {self.process.returncode} before serving (port "
                            f"{self.asked_port or 'any'}); stderr:\n{tail(self.stderr_path)}", pytrace=False)
            time.sleep(0.05)
        self.process.kill()
        self.process.wait(timeout=10)
        pytest.fail(f"{self.name}: no serving line within {STARTUP_TIMEOUT:.0f} s; stderr:\n{tail(self.stderr_path)}",
                    pytrace=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def sigterm(self) -> float:
        assert self.alive(), f"{self.name} exited ({self.process.returncode}) before SIGTERM:\n{tail(self.stderr_path)}"
        self.sigterm_at = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        return self.sigterm_at

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> str | None:
        """SIGTERM (unless already sent) and a bounded wait; a problem, or None for exit 0."""
        if self.alive() and self.sigterm_at is None:
            self.sigterm()
        code = self.wait_exit(timeout=120 + STOP_GRACE + 10)
        if code is None:
            self.process.kill()
            self.process.wait(timeout=10)
            return f"{self.name} did not exit after SIGTERM; stderr:\n{tail(self.stderr_path)}"
        if code != 0:
            return f"{self.name} exited {code}; stderr:\n{tail(self.stderr_path)}"
        return None

    def metric(self, name: str) -> float:
        """The sum of every sample of `name` on this node's GET /metrics."""
        assert self.metrics_port, f"{self.name} serves no metrics (HOSTED_METRICS_LISTEN)"
        text = session().get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5).text
        pattern = re.compile(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? ([0-9.eE+-]+)$", re.MULTILINE)
        return sum(float(value) for value in pattern.findall(text))


class Deployment:
    """One PostgreSQL database, a shared secret key, and the `serve` processes on them."""

    def __init__(self, workdir: Path, database_url: str, public_url: str, **extra_env: str):
        self.workdir = workdir
        self.secret_key = Secret(secrets.token_hex(32))
        env = {name: value for name, value in os.environ.items()
               if not name.startswith("HOSTED_") and name.lower() not in PROXY_VARIABLES}
        env["NO_PROXY"] = env["no_proxy"] = "*"
        hosts = workdir / "webhook-hosts"
        hosts.write_text("")
        env.update({
            "HOSTED_DATABASE_URL": database_url,
            "HOSTED_PUBLIC_URL": public_url,
            "HOSTED_DEV_MODE": "on",
            "HOSTED_SECRET_KEY": self.secret_key,
            # Behind nginx on loopback: its X-Forwarded-For is believed, and every connection
            # comes from one address, so the per-address connection limit is off.
            "HOSTED_TRUSTED_PROXIES": "127.0.0.1",
            "HOSTED_MAX_CONNECTIONS_PER_ADDRESS": "0",
            # The tests poll one verification far faster than a customer may: never a 429.
            "HOSTED_POLL_RATE": "1000",
            "HOSTED_POLL_BURST": "100000",
            "HOSTED_METRICS_LISTEN": "127.0.0.1:0",
            "HOSTED_WEBHOOK_HOSTS_FILE": str(hosts),
        })
        env.update(extra_env)
        self.env = env
        self.nodes: list[Node] = []
        self.secrets: list[str] = [self.secret_key]

    def start(self, *names: str, port: int = 0) -> list[Node]:
        """Starts the named nodes at the same moment, then waits until each serves."""
        started = [Node(name, self.env, self.workdir, port) for name in names]
        self.nodes.extend(started)
        return [node.wait_serving() for node in started]

    def create_account(self) -> tuple[str, Secret]:
        created = _create_account(_binary(), self.env, self.workdir)
        self.secrets.append(created["api_key"])
        return created["account_id"], Secret(created["api_key"])

    def close(self, extra_logs: list[Path] = ()) -> list[str]:
        problems = [problem for node in self.nodes if (problem := node.stop())]
        logs = [node.stderr_path for node in self.nodes] + list(extra_logs)
        for path in logs:
            text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
            for secret in self.secrets:
                if secret and secret in text:
                    problems.append(f"{path.name} contains a secret ({secret[:6]}…)")
        return problems


@dataclass(frozen=True)
class Api:
    """The customer API of one account at `base_url`; also what test_journey_steps' helpers take
    as their `server` (base_url, auth_headers, secrets)."""

    base_url: str
    api_key: Secret = field(repr=False)
    account_id: str = ""
    secrets: list[str] = field(default_factory=list, repr=False)

    @property
    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    def at(self, base_url: str) -> Api:
        return Api(base_url, self.api_key, self.account_id, self.secrets)

    def call(self, method: str, path: str, body=None, expected=(200,), client: requests.Session | None = None,
             timeout: float = 15, headers: dict[str, str] | None = None) -> requests.Response:
        response = (client or session()).request(method, self.base_url + path, json=body, timeout=timeout,
                                                 headers={**self.auth_headers, **(headers or {})})
        assert response.status_code in expected, (
            f"{method} {self.base_url}{path} answered {response.status_code}, expected {expected}: "
            f"{redact(response.text[:500])}")
        return response

    def create(self, user_id: str | None = None, workflow: str = "kyc") -> requests.Response:
        body = {"user_id": user_id or f"ops-{uuid.uuid4().hex[:12]}", "workflow": workflow, "mobile": MOBILE}
        return self.call("POST", "/v1/verifications", body, expected=(201,))


def problem_code(response) -> str | None:
    try:
        return response.json().get("code")
    except ValueError:
        return None


# --- nginx ------------------------------------------------------------------------------------

LOG_FORMAT = "$msec\\t$request_method\\t$uri\\t$status\\t$upstream_addr\\t$upstream_status\\t$request_time"


def nginx_site(directory: Path, listen_port: int, upstream_ports: list[int]) -> str:
    """docs/deployment.md's site without TLS, with private paths (pid, logs, temp files) so it
    runs as any user; `fail_timeout` is short so a test need not wait long for a node to count
    as alive again."""
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=2s;" for port in upstream_ports)
    d = directory
    return f"""
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format ops "{LOG_FORMAT}";
    access_log {d}/access.log ops;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;

    server_tokens off;
    merge_slashes on;
    underscores_in_headers off;
    ignore_invalid_headers on;
    client_max_body_size 9m;
    client_header_timeout 10s;
    client_body_timeout 20s;
    send_timeout 40s;
    keepalive_timeout 30s;

    upstream hosted {{
{servers}
        keepalive 32;
        keepalive_timeout 10s;
    }}

    server {{
        listen 127.0.0.1:{listen_port};

        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_connect_timeout 2s;
        proxy_send_timeout 30s;
        proxy_read_timeout 40s;
        proxy_next_upstream error timeout;
        proxy_next_upstream_tries 3;
        proxy_next_upstream_timeout 10s;

        location / {{
            proxy_pass http://hosted;
        }}
        location /v1/verifications {{
            proxy_pass http://hosted;
            proxy_buffering off;
        }}
        location /j/ {{
            proxy_pass http://hosted;
            proxy_buffering off;
        }}
    }}
}}
"""


@dataclass(frozen=True)
class AccessEntry:
    at: float  # epoch seconds (nginx $msec)
    method: str
    uri: str
    status: int
    upstreams: tuple[int, ...]  # every node port nginx tried, in order
    upstream_status: str

    @property
    def node(self) -> int | None:
        return self.upstreams[-1] if self.upstreams else None


class Nginx:
    """A private nginx on 127.0.0.1:`port` in front of `upstream_ports` (its own temporary
    directory, world-readable because nginx's workers drop root; logs copied to `keep` at the end)."""

    def __init__(self, port: int, upstream_ports: list[int], keep: Path):
        binary = require_nginx()
        self.port = port
        self.keep = keep
        self.dir = Path(tempfile.mkdtemp(prefix="hosted-ops-nginx."))
        os.chmod(self.dir, 0o755)
        config = self.dir / "nginx.conf"
        config.write_text(nginx_site(self.dir, port, upstream_ports))
        self.stderr_path = self.dir / "stderr.log"
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen([binary, "-p", f"{self.dir}/", "-c", str(config), "-e", str(self.dir / "error.log")],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                problem = tail(self.stderr_path) + "\n" + tail(self.dir / "error.log")
                self.stop()
                pytest.fail(f"nginx did not start on 127.0.0.1:{port}:\n{problem}", pytrace=False)
            time.sleep(0.05)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def logs(self) -> list[Path]:
        return [self.keep / "nginx-access.log", self.keep / "nginx-error.log"]

    def entries(self, since: float = 0.0) -> list[AccessEntry]:
        """The access log's entries from `since` (epoch seconds) on; after `stop`, from the copy."""
        entries = []
        live = self.dir / "access.log"
        try:
            text = (live if live.exists() else self.keep / "nginx-access.log").read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return entries
        for line in text.splitlines():
            parts = line.split("\t")
            if len(parts) != 7:
                continue
            at = float(parts[0])
            if at < since:
                continue
            ports = tuple(int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", parts[4]))
            entries.append(AccessEntry(at, parts[1], parts[2], int(parts[3]), ports, parts[5]))
        return entries

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for name, kept in (("access.log", "nginx-access.log"), ("error.log", "nginx-error.log")):
            if (self.dir / name).exists():
                shutil.copyfile(self.dir / name, self.keep / kept)
        shutil.rmtree(self.dir, ignore_errors=True)


def spread(entries: list[AccessEntry]) -> Counter:
    return Counter(entry.node for entry in entries)


# --- 1. three nodes behind nginx --------------------------------------------------------------

@dataclass
class Balanced:
    deployment: Deployment
    nodes: list[Node]
    nginx: Nginx
    api: Api  # through nginx


@pytest.fixture(scope="class")
def balanced(tmp_path_factory):
    """Three nodes started at once on a fresh PostgreSQL database, behind nginx; an account made
    with the CLI and its `kyc` workflow (profile, selfie, premises photos) made through nginx.
    Class-scoped: stopped before the tests below run (the PostgreSQL restart test wants no other
    client on the server)."""
    require_nginx()
    admin_url = require_postgres()
    workdir = tmp_path_factory.mktemp("ops-balanced")
    name = f"ops_balanced_{uuid.uuid4().hex[:10]}"
    database_url = create_database(admin_url, name)
    nginx_port = _free_loopback_port()
    deployment = Deployment(workdir, database_url, f"http://127.0.0.1:{nginx_port}")
    nginx = None
    problems: list[str] = []
    try:
        nodes = deployment.start("node-a", "node-b", "node-c")
        nginx = Nginx(nginx_port, [node.port for node in nodes], workdir)
        account_id, api_key = deployment.create_account()
        api = Api(nginx.base_url, api_key, account_id, deployment.secrets)
        api.call("POST", "/v1/workflows", STEPS_WORKFLOW, expected=(201,))
        yield Balanced(deployment, nodes, nginx, api)
    finally:
        if nginx is not None:
            nginx.stop()
        problems = deployment.close(extra_logs=nginx.logs if nginx else [])
        drop_database(admin_url, name)
    assert not problems, "\n".join(problems)


def long_poll(base_url: str, api: Api, vid: str, etag: str, wait: int = 20):
    response = session().get(f"{base_url}/v1/verifications/{vid}", params={"wait": wait},
                             headers={**api.auth_headers, "If-None-Match": etag}, timeout=wait + 15)
    return response, time.monotonic()


class TestThreeNodesBehindNginx:
    """Three `serve` processes on one PostgreSQL behind nginx pass the same tests as one."""

    def test_thirty_parallel_identical_creates_through_nginx_make_one(self, balanced, capsys):
        api, nginx = balanced.api, balanced.nginx
        body = {"user_id": f"ops-idem-{uuid.uuid4().hex[:8]}", "workflow": "kyc", "mobile": MOBILE}
        barrier = threading.Barrier(30)
        since = time.time()

        def create(_):
            client = session()
            barrier.wait(timeout=10)
            response = client.post(api.base_url + "/v1/verifications", json=body, headers=api.auth_headers, timeout=30)
            return response.status_code, (response.json().get("id") if response.status_code < 300 else None), response.text[:300]

        with ThreadPoolExecutor(max_workers=30) as pool:
            results = list(pool.map(create, range(30)))
        statuses = Counter(status for status, _, _ in results)
        assert statuses == Counter({201: 1, 200: 29}), (
            f"30 parallel identical creates answered {dict(statuses)}; e.g. "
            f"{[text for status, _, text in results if status not in (200, 201)][:3]}")
        ids = {vid for _, vid, _ in results}
        assert len(ids) == 1, f"30 identical creates made {len(ids)} verifications: {sorted(ids)}"
        listed = api.call("GET", f"/v1/verifications?user_id={body['user_id']}&workflow=kyc").json()["data"]
        assert [item["id"] for item in listed] == list(ids)
        served = spread([e for e in nginx.entries(since) if e.method == "POST" and e.uri == "/v1/verifications"])
        assert sum(served.values()) == 30 and len(served) >= 2, f"the creates were not spread over the nodes: {served}"
        with capsys.disabled():
            print(f"\n  [ops] 30 parallel identical creates: {dict(statuses)}, one id; nodes (port: count) {dict(served)}")

    def test_one_of_twenty_parallel_handoff_exchanges_through_nginx_wins(self, balanced, capsys):
        api, nginx, node_a = balanced.api, balanced.nginx, balanced.nodes[0]
        verification = api.create().json()
        vid = verification["id"]
        # Minted on one node, exchanged through nginx (so on all three).
        handoff = api.at(node_a.base_url).call("POST", f"/v1/verifications/{vid}/handoffs", {}, expected=(201,)).json()
        prefix = f"{api.base_url}/j/{vid}#handoff="
        assert handoff["url"].startswith(prefix), "the handoff URL is not built from HOSTED_PUBLIC_URL (nginx)"
        secret = handoff["url"][len(prefix):]
        api.secrets.append(secret)
        barrier = threading.Barrier(20)
        since = time.time()

        def exchange(_):
            client = session()
            barrier.wait(timeout=10)
            response = client.post(f"{api.base_url}/j/{vid}/api/session", json={"handoff": secret},
                                   headers={"Origin": api.base_url}, timeout=30)
            return response.status_code, problem_code(response), client.cookies.get("hosted_session")

        with ThreadPoolExecutor(max_workers=20) as pool:
            results = list(pool.map(exchange, range(20)))
        statuses = Counter(status for status, _, _ in results)
        assert statuses == Counter({200: 1, 401: 19}), f"20 parallel exchanges of one handoff answered {dict(statuses)}"
        assert {code for status, code, _ in results if status == 401} == {"signin_required"}
        token = next(token for status, _, token in results if status == 200)
        assert token, "the winning exchange set no hosted_session cookie"
        api.secrets.append(token)
        state = session().get(f"{api.base_url}/j/{vid}/api/state", headers={"Cookie": f"hosted_session={token}"}, timeout=10)
        assert state.status_code == 200, f"the won session does not work through nginx: {state.status_code} {state.text[:200]}"
        served = spread([e for e in nginx.entries(since) if e.uri == f"/j/{vid}/api/session"])
        assert sum(served.values()) == 20 and len(served) >= 2, f"the exchanges were not spread over the nodes: {served}"
        with capsys.disabled():
            print(f"\n  [ops] 20 parallel handoff exchanges: {dict(statuses)}; nodes {dict(served)}")

    def test_long_polls_wake_across_nodes(self, balanced, capsys):
        api, nodes = balanced.api, balanced.nodes
        node_a, node_b = nodes[0], nodes[1]

        # Straight to the nodes: waiting on A, canceled on B.
        created = api.create()
        vid, etag = created.json()["id"], created.headers["ETag"]
        with ThreadPoolExecutor(max_workers=1) as pool:
            waiting = pool.submit(long_poll, node_a.base_url, api, vid, etag)
            wait_for(lambda: node_a.metric("hosted_long_polls_open") >= 1, 10, "the long-poll waiting on node A")
            assert not waiting.done(), f"the long-poll was answered before any change: {waiting.result()[0].status_code}"
            canceled_at = time.monotonic()  # the cancel is sent (its answer may come after the wake-up)
            api.at(node_b.base_url).call("POST", f"/v1/verifications/{vid}/cancel", {})
            response, answered_at = waiting.result(timeout=20)
        assert response.status_code == 200 and response.json()["status"] == "canceled", (
            f"{response.status_code} {response.text[:200]}")
        direct_delay = answered_at - canceled_at
        assert direct_delay <= 2.0, f"the long-poll on A woke {direct_delay:.2f} s after the cancel on B"

        # Through nginx: three long-polls (nginx spreads them), one cancel.
        created = api.create()
        vid, etag = created.json()["id"], created.headers["ETag"]
        with ThreadPoolExecutor(max_workers=3) as pool:
            waiting = [pool.submit(long_poll, api.base_url, api, vid, etag) for _ in range(3)]
            open_per_node = wait_for(
                lambda: (counts := [node.metric("hosted_long_polls_open") for node in nodes]) and sum(counts) >= 3 and counts,
                10, "three long-polls waiting behind nginx")
            assert sum(1 for count in open_per_node if count) >= 2, f"nginx sent every long-poll to one node: {open_per_node}"
            assert not any(w.done() for w in waiting), "a long-poll through nginx was answered before any change"
            canceled_at = time.monotonic()
            api.call("POST", f"/v1/verifications/{vid}/cancel", {})
            answers = [w.result(timeout=20) for w in waiting]
        for response, _ in answers:
            assert response.status_code == 200 and response.json()["status"] == "canceled", (
                f"{response.status_code} {response.text[:200]}")
        delays = [answered_at - canceled_at for _, answered_at in answers]
        assert max(delays) <= 2.0, f"long-polls through nginx woke {[f'{d:.2f}' for d in delays]} s after the cancel"
        with capsys.disabled():
            print(f"\n  [ops] long-poll wake-up across nodes: direct {direct_delay * 1000:.0f} ms; through nginx "
                  f"{[round(d * 1000) for d in delays]} ms (waiting per node {open_per_node})")

    def test_whole_browser_journey_through_nginx(self, balanced, browsers, return_page, request, capsys):
        api, nginx = balanced.api, balanced.nginx
        api.call("POST", "/v1/return_urls", {"url": return_page.url}, expected=(200, 201))
        driver = browsers()
        verification = new_verification(api, request, return_url=return_page.url)
        vid = verification["id"]
        assert verification["journey_url"] == f"{nginx.base_url}/j/{vid}"
        since = time.time()
        started = time.monotonic()

        open_signed_in(driver, api, verification)
        fill_profile(driver)
        take_photos(driver, "selfie", 1)
        take_photos(driver, "premises_photos", 2)
        on_review(driver).click()
        base = return_page.url.split("?")[0]
        wait_in_browser(driver, lambda d: d.current_url.startswith(base), f"the return URL {base}")
        query = parse_qs(urlsplit(driver.current_url).query)
        assert query == {"src": ["app"], "verification_id": [vid], "status": ["submitted"]}, driver.current_url
        elapsed = time.monotonic() - started
        sizes = check_submitted(api, vid)

        journey = [e for e in nginx.entries(since) if e.uri.startswith(f"/j/{vid}")]
        failed = [(e.method, e.uri, e.status) for e in journey if e.status >= 500]
        assert not failed, f"nginx answered the journey with server errors: {failed}"
        served = spread(journey)
        assert len(served) >= 2, f"the journey's requests all went to one node: {served}"
        uploads = [e for e in journey if e.method == "POST" and e.uri.endswith("/images")]
        assert len(uploads) >= 3 and all(e.status == 201 for e in uploads), [(e.uri, e.status) for e in uploads]
        with capsys.disabled():
            print(f"\n  [ops] browser journey through nginx in {elapsed:.1f} s: {len(journey)} journey requests over nodes "
                  f"{dict(served)}, {len(uploads)} uploads; image sizes {sizes}")


# --- 2. rolling restart behind nginx -----------------------------------------------------------

@dataclass
class Outcome:
    sent: float  # monotonic
    path: str
    status: int | None
    detail: str = ""


class ClientLoop:
    """`threads` clients, each with its own keep-alive session, GETting `paths` in turn through
    `base_url` at `rate` requests a second in all, until stopped (or the caps)."""

    def __init__(self, base_url: str, headers: dict[str, str], paths: list[str], rate: float = 200, threads: int = 4,
                 max_seconds: float = 60, max_requests: int = 9000):
        self.base_url, self.headers, self.paths = base_url, headers, paths
        self.interval = threads / rate
        self.max_seconds, self.max_requests = max_seconds, max_requests
        self.outcomes: list[Outcome] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True, name=f"client-{i}") for i in range(threads)]

    def start(self) -> ClientLoop:
        self.started = time.monotonic()
        for thread in self.threads:
            thread.start()
        return self

    def stop(self) -> list[Outcome]:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=20)
        return self.outcomes

    def _run(self, index: int) -> None:
        client = session()
        due = time.monotonic() + index * self.interval / len(self.threads)
        turn = index
        while not self.stopping.is_set() and time.monotonic() - self.started < self.max_seconds:
            with self.lock:
                if len(self.outcomes) >= self.max_requests:
                    return
            path = self.paths[turn % len(self.paths)]
            turn += 1
            sent = time.monotonic()
            try:
                response = client.get(self.base_url + path, headers=self.headers, timeout=10)
                outcome = Outcome(sent, path, response.status_code,
                                  "" if response.status_code == 200 else redact(response.text[:200]))
            except requests.RequestException as error:
                outcome = Outcome(sent, path, None, f"{type(error).__name__}: {error}"[:300])
            with self.lock:
                self.outcomes.append(outcome)
            due += self.interval
            pause = due - time.monotonic()
            if pause > 0:
                self.stopping.wait(pause)
            else:
                due = time.monotonic()


def test_rolling_restart_behind_nginx_is_invisible_to_clients(tmp_path, capsys):
    require_nginx()
    admin_url = require_postgres()
    name = f"ops_rolling_{uuid.uuid4().hex[:10]}"
    database_url = create_database(admin_url, name)
    port_a, port_b, nginx_port = distinct_free_ports(3)
    delay = 2
    deployment = Deployment(tmp_path, database_url, f"http://127.0.0.1:{nginx_port}", HOSTED_SHUTDOWN_DELAY=str(delay))
    nginx = None
    loop = None
    problems: list[str] = []
    rolled = []  # (name, SIGTERM at, exit code, exited at, back at)
    try:
        node_a, = deployment.start("node-a", port=port_a)
        node_b, = deployment.start("node-b", port=port_b)
        nginx = Nginx(nginx_port, [port_a, port_b], tmp_path)
        account_id, api_key = deployment.create_account()
        api = Api(nginx.base_url, api_key, account_id, deployment.secrets)
        api.call("POST", "/v1/workflows", SELFIE_WORKFLOW, expected=(201,))
        vid = api.create(workflow="selfie").json()["id"]
        paths = [f"/v1/verifications/{vid}"] * 9 + ["/healthz"]
        loop = ClientLoop(nginx.base_url, api.auth_headers, paths).start()
        time.sleep(1.0)

        for old, port, new_name in ((node_a, port_a, "node-a2"), (node_b, port_b, "node-b2")):
            sigterm_at = old.sigterm()
            time.sleep(0.5)
            # Draining: not ready, everything else still served, on the port it had.
            ready = session().get(old.base_url + "/readyz", timeout=5)
            assert ready.status_code == 503, f"{old.name} /readyz while draining: {ready.status_code}"
            assert session().get(old.base_url + "/healthz", timeout=5).status_code == 200
            code = old.wait_exit(timeout=delay + STOP_GRACE + 8)
            exited_at = time.monotonic()
            assert code == 0, f"{old.name} exited {code} after SIGTERM:\n{tail(old.stderr_path)}"
            assert exited_at - sigterm_at >= delay - 0.1, f"{old.name} stopped {exited_at - sigterm_at:.2f} s after SIGTERM"
            # Started again on the same port: nginx's configuration stays as it is.
            restarted_wall = time.time()
            new, = deployment.start(new_name, port=port)
            wait_for(lambda: any(e.node == port and e.status == 200 for e in nginx.entries(restarted_wall)),
                     15, f"nginx sending requests to {new_name} again", interval=0.1)
            rolled.append((old.name, sigterm_at, code, exited_at, time.monotonic()))
        time.sleep(1.0)
    finally:
        outcomes = loop.stop() if loop else []
        if nginx is not None:
            nginx.stop()
        problems = deployment.close(extra_logs=nginx.logs if nginx else [])
        drop_database(admin_url, name)
    assert not problems, "\n".join(problems)

    failed = [o for o in outcomes if o.status != 200]
    statuses = Counter(o.status for o in outcomes)
    assert not failed, (f"{len(failed)} of {len(outcomes)} GETs through nginx failed during the rolling restart "
                        f"({dict(statuses)}), e.g. {[(round(o.sent - loop.started, 2), o.path, o.status, o.detail) for o in failed[:5]]}")
    for node_name, sigterm_at, _, _, back_at in rolled:
        during = [o for o in outcomes if sigterm_at <= o.sent <= back_at]
        assert len(during) >= 100, f"only {len(during)} GETs were sent while {node_name} restarted"
    entries = nginx.entries()
    retried = [e for e in entries if len(e.upstreams) > 1]
    elapsed = max(o.sent for o in outcomes) - loop.started
    with capsys.disabled():
        print(f"\n  [ops] rolling restart: {len(outcomes)} GETs in {elapsed:.1f} s ({len(outcomes) / elapsed:.0f}/s), "
              f"all 200; nginx retried {len(retried)} on the other node; restarts "
              f"{[(n, round(e - s, 2), round(b - s, 2)) for n, s, _, e, b in rolled]} (name, exit and back, s after SIGTERM)")


# --- 3. PostgreSQL restarted under load ----------------------------------------------------------

@dataclass
class Create:
    sent: float
    done: float
    status: int | None
    code: str | None
    vid: str | None
    detail: str = ""


def test_postgresql_restart_under_load_heals_without_restarting_the_node(tmp_path, capsys):
    admin_url = require_postgres()
    if not os.environ.get("HOSTED_TEST_PG_CTL"):
        pytest.skip("HOSTED_TEST_PG_CTL is not set: run under scripts/with-postgres.sh (its throwaway server is "
                    "the only one this test restarts)")
    name = f"ops_pgrestart_{uuid.uuid4().hex[:10]}"
    database_url = create_database(admin_url, name)
    deployment = Deployment(tmp_path, database_url, "http://127.0.0.1:8080")
    creates: list[Create] = []
    stopping = threading.Event()
    threads: list[threading.Thread] = []
    problems: list[str] = []
    timeline: dict[str, float] = {}
    try:
        node_a, node_b = deployment.start("node-a", "node-b")
        pid_a = node_a.process.pid
        account_id, api_key = deployment.create_account()
        api = Api(node_a.base_url, api_key, account_id, deployment.secrets)
        api.call("POST", "/v1/workflows", SELFIE_WORKFLOW, expected=(201,))

        def create_loop(index: int) -> None:
            client = session()
            number = 0
            started = time.monotonic()
            while not stopping.is_set() and time.monotonic() - started < 60 and number < 2000:
                number += 1
                body = {"user_id": f"pg-{index}-{number}-{uuid.uuid4().hex[:6]}", "workflow": "selfie", "mobile": MOBILE}
                sent = time.monotonic()
                try:
                    response = client.post(api.base_url + "/v1/verifications", json=body, headers=api.auth_headers, timeout=15)
                    vid = response.json().get("id") if response.status_code == 201 else None
                    creates.append(Create(sent, time.monotonic(), response.status_code, problem_code(response), vid,
                                          "" if response.status_code == 201 else redact(response.text[:200])))
                except (requests.RequestException, ValueError) as error:
                    creates.append(Create(sent, time.monotonic(), None, None, None, f"{type(error).__name__}: {error}"[:300]))
                stopping.wait(0.04)

        threads = [threading.Thread(target=create_loop, args=(i,), daemon=True) for i in range(2)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        unsafe = restart_unsafe_reason(admin_url, name)
        if unsafe:
            pytest.skip(unsafe)

        timeline["stop"] = time.monotonic()
        pg_ctl("stop", "-m", "fast")
        timeline["stopped"] = time.monotonic()
        time.sleep(1.5)
        pg_ctl("start")
        back = timeline["back"] = time.monotonic()

        def ready() -> bool:
            try:
                return session().get(node_a.base_url + "/readyz", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_for(ready, 5.0, "node A's /readyz answering 200 after PostgreSQL came back", interval=0.1)
        timeline["ready"] = time.monotonic()
        # Keep the loop going well past the 5 s allowed for healing.
        time.sleep(max(0.0, back + 7.0 - time.monotonic()))
        stopping.set()
        for thread in threads:
            thread.join(timeout=20)
        assert node_a.alive() and node_a.process.pid == pid_a, "node A was restarted or died"
        assert node_b.alive(), f"node B died:\n{tail(node_b.stderr_path)}"

        # Cross-node wake-ups work again: both nodes' LISTEN connections came back.
        created = api.at(node_b.base_url).create(workflow="selfie")
        vid, etag = created.json()["id"], created.headers["ETag"]
        with ThreadPoolExecutor(max_workers=1) as pool:
            waiting = pool.submit(long_poll, node_a.base_url, api, vid, etag)
            wait_for(lambda: node_a.metric("hosted_long_polls_open") >= 1, 10, "the long-poll waiting on node A")
            canceled_at = time.monotonic()
            api.at(node_b.base_url).call("POST", f"/v1/verifications/{vid}/cancel", {})
            response, answered_at = waiting.result(timeout=25)
        assert response.status_code == 200 and response.json()["status"] == "canceled"
        wake = answered_at - canceled_at
        assert wake <= 2.0, f"after the restart a long-poll on A woke {wake:.2f} s after a cancel on B"

        # Every create that got 201 is there.
        made = [c.vid for c in creates if c.status == 201]
        reader = api.at(node_b.base_url)
        client = session()
        missing = [vid for vid in made
                   if client.get(f"{reader.base_url}/v1/verifications/{vid}", headers=reader.auth_headers, timeout=10).status_code != 200]
        assert not missing, f"{len(missing)} of {len(made)} creates that got 201 are gone: {missing[:5]}"
    finally:
        problems = stop_load_and_deployment(stopping, threads, deployment, admin_url, name, join_timeout=20)
    assert not problems, "\n".join(problems)

    statuses = Counter((c.status, c.code) for c in creates)
    wrong = [c for c in creates if not (c.status == 201 or (c.status == 503 and c.code == "database_unavailable"))]
    assert not wrong, (f"creates during the PostgreSQL restart answered {dict(statuses)}; e.g. "
                       f"{[(round(c.sent - back, 2), c.status, c.detail) for c in wrong[:5]]}")
    late = [c for c in creates if c.sent >= back + 5.0 and c.status != 201]
    assert not late, f"{len(late)} creates sent 5 s or more after PostgreSQL was back still failed"
    healed = min((c.done for c in creates if c.status == 201 and c.sent >= back), default=None)
    assert healed is not None and healed - back <= 5.0, "no create succeeded within 5 s of PostgreSQL being back"
    assert timeline["ready"] - back <= 5.0
    failed_after = sum(1 for c in creates if c.sent >= back and c.status != 201)
    with capsys.disabled():
        print(f"\n  [ops] PostgreSQL restart: creates {dict(statuses)}; database down "
              f"{back - timeline['stop']:.1f} s; first 201 {healed - back:.2f} s and /readyz 200 "
              f"{timeline['ready'] - back:.2f} s after it was back; {failed_after} failed after it was back; "
              f"cross-node wake-up {wake * 1000:.0f} ms")


# --- 4. SIGTERM under load ---------------------------------------------------------------------

def raw_get(port: int, path: str, headers: list[tuple[str, str]]) -> tuple[float, object]:
    """One GET on a connection of its own: (sent at, status | "refused" | "reset" | "error …")."""
    sent = time.monotonic()
    try:
        connection = RawConnection(port, connect_timeout=2)
    except ConnectionRefusedError:
        return sent, "refused"
    except ConnectionResetError:  # the handshake was under way as the listening socket closed
        return sent, "reset"
    except OSError as error:
        return sent, f"error {error}"
    with connection:
        if not connection.send(request_bytes("GET", path, f"127.0.0.1:{port}", headers + [("Connection", "close")])):
            return sent, "reset"
        response = connection.read_response(timeout=10)
        return sent, (response.status if response is not None else "reset")


def test_sigterm_under_load_finishes_requests_in_flight(tmp_path, capsys):
    admin_url = require_postgres()
    name = f"ops_sigterm_{uuid.uuid4().hex[:10]}"
    database_url = create_database(admin_url, name)
    port, = distinct_free_ports(1)
    public_url = f"http://127.0.0.1:{port}"
    delay = 2
    deployment = Deployment(tmp_path, database_url, public_url, HOSTED_SHUTDOWN_DELAY=str(delay))
    problems: list[str] = []
    stopping = threading.Event()
    load: list[tuple[float, object]] = []
    load_threads: list[threading.Thread] = []
    try:
        node, = deployment.start("node", port=port)
        account_id, api_key = deployment.create_account()
        api = Api(public_url, api_key, account_id, deployment.secrets)
        api.call("POST", "/v1/workflows", SELFIE_WORKFLOW, expected=(201,))
        auth = [("Authorization", f"Bearer {api_key}")]

        polled = [api.create(workflow="selfie") for _ in range(5)]
        polled = [(r.json()["id"], r.headers["ETag"]) for r in polled]
        upload_ids = []
        cookies = []
        for _ in range(2):
            vid = api.create(workflow="selfie").json()["id"]
            secret = api.call("POST", f"/v1/verifications/{vid}/handoffs", {}, expected=(201,)).json()["url"].split("#handoff=")[1]
            api.secrets.append(secret)
            client = session()
            exchanged = client.post(f"{public_url}/j/{vid}/api/session", json={"handoff": secret},
                                    headers={"Origin": public_url}, timeout=10)
            assert exchanged.status_code == 200, exchanged.text[:200]
            token = client.cookies.get("hosted_session")
            api.secrets.append(token)
            upload_ids.append(vid)
            cookies.append(token)
        image = picture(800, 600)
        half = len(image) // 2
        load_target = polled[0][0]

        # Five long-polls waiting.
        pollers = []
        for vid, etag in polled:
            connection = RawConnection(port)
            connection.send(request_bytes("GET", f"/v1/verifications/{vid}?wait=25", f"127.0.0.1:{port}",
                                          auth + [("If-None-Match", etag)]))
            pollers.append(connection)
        wait_for(lambda: node.metric("hosted_long_polls_open") == 5, 10, "five long-polls waiting")

        # Two uploads with half their body sent.
        uploads = []
        for vid, token in zip(upload_ids, cookies):
            connection = RawConnection(port)
            head = request_bytes("POST", f"/j/{vid}/api/steps/selfie/images", f"127.0.0.1:{port}",
                                 [("Origin", public_url), ("Cookie", f"hosted_session={token}"),
                                  ("Content-Type", "image/jpeg"), ("Content-Length", str(len(image)))],
                                 content_length=False)
            assert connection.send(head + image[:half])
            uploads.append(connection)

        # Load: GETs of a verification and /healthz, each on a new connection, about 40 a second.
        def load_loop(index: int) -> None:
            paths = [f"/v1/verifications/{load_target}", "/healthz"]
            turn = index
            started = time.monotonic()
            while not stopping.is_set() and time.monotonic() - started < 40 and len(load) < 3000:
                load.append(raw_get(port, paths[turn % 2], auth))
                turn += 1
                stopping.wait(0.05)

        load_threads = [threading.Thread(target=load_loop, args=(i,), daemon=True) for i in range(2)]
        for thread in load_threads:
            thread.start()
        time.sleep(0.5)
        assert session().get(public_url + "/readyz", timeout=5).status_code == 200

        answers: dict[str, tuple[object, float]] = {}

        def read(label: str, connection: RawConnection) -> None:
            response = connection.read_response(timeout=25)
            answers[label] = (response, time.monotonic())

        readers = [threading.Thread(target=read, args=(f"long-poll {i}", c), daemon=True) for i, c in enumerate(pollers)]
        for thread in readers:
            thread.start()

        sigterm_at = node.sigterm()
        readiness: list[tuple[float, int, int]] = []
        first_rest_sent = False
        while time.monotonic() < sigterm_at + delay - 0.3:
            if not first_rest_sent and time.monotonic() >= sigterm_at + 1.0:
                assert uploads[0].send(image[half:]), "upload 1 was cut during the delay"
                first_rest_sent = True
                thread = threading.Thread(target=read, args=("upload 1", uploads[0]), daemon=True)
                thread.start()
                readers.append(thread)
            if time.monotonic() >= sigterm_at + 0.3:
                ready_status = session().get(public_url + "/readyz", timeout=5).status_code
                health_status = session().get(public_url + "/healthz", timeout=5).status_code
                readiness.append((time.monotonic() - sigterm_at, ready_status, health_status))
            time.sleep(0.1)
        assert first_rest_sent
        # The listening socket closes at the end of the delay; then the second upload's rest.
        time.sleep(max(0.0, sigterm_at + delay + 0.7 - time.monotonic()))
        second_rest_at = time.monotonic()
        assert uploads[1].send(image[half:]), "upload 2's connection was cut when the server stopped accepting"
        thread = threading.Thread(target=read, args=("upload 2", uploads[1]), daemon=True)
        thread.start()
        readers.append(thread)

        code = node.wait_exit(timeout=delay + STOP_GRACE + 8)
        exited_at = time.monotonic()
        for thread in readers:
            thread.join(timeout=10)
        stopping.set()
        for thread in load_threads:
            thread.join(timeout=15)
        assert code == 0, f"serve exited {code} after SIGTERM:\n{tail(node.stderr_path)}"
        assert "draining: /readyz answers 503 for 2 s" in node.log_text()

        # What the uploads stored is there, for a node started afterwards.
        after, = deployment.start("node-after")
        for vid in upload_ids:
            steps = api.at(after.base_url).call("GET", f"/v1/verifications/{vid}").json()["steps"]
            assert len(steps[0]["artifacts"]) == 1, f"the upload of {vid} is not stored: {steps}"
    finally:
        problems = stop_load_and_deployment(stopping, load_threads, deployment, admin_url, name, join_timeout=15)
    assert not problems, "\n".join(problems)

    # Readiness 503 during the delay, while everything else was served.
    assert readiness and all(ready == 503 and health == 200 for _, ready, health in readiness), readiness
    # The long-polls were answered (not cut) when the delay ended, not before.
    shut = sigterm_at + delay
    for i in range(5):
        response, at = answers.get(f"long-poll {i}", (None, 0.0))
        assert response is not None, f"long-poll {i} was cut off without an answer"
        assert response.status == 304, f"long-poll {i}: {response.describe()}"
        assert shut - 0.3 <= at <= shut + 3.0, f"long-poll {i} answered {at - sigterm_at:.2f} s after SIGTERM"
    for label, earliest in (("upload 1", sigterm_at + 1.0), ("upload 2", second_rest_at)):
        response, at = answers.get(label, (None, 0.0))
        assert response is not None, f"{label} was cut off without an answer"
        assert response.status == 201, f"{label}: {response.describe()}"
        assert earliest <= at <= exited_at + 0.5, f"{label} answered {at - sigterm_at:.2f} s after SIGTERM"
    assert exited_at - sigterm_at <= delay + STOP_GRACE + 3, f"exit {exited_at - sigterm_at:.1f} s after SIGTERM"
    # The load: every request before the end of the delay answered 200; after it the socket
    # refuses; only a request caught in the accept queue as the socket closed may see a reset.
    outcomes = Counter(outcome for _, outcome in load)
    before = [outcome for sent, outcome in load if sent < shut - 0.2]
    assert before and all(outcome == 200 for outcome in before), Counter(before)
    answered = [outcome for _, outcome in load if isinstance(outcome, int)]
    assert all(outcome == 200 for outcome in answered), Counter(answered)
    unexpected = [(round(sent - sigterm_at, 2), outcome) for sent, outcome in load
                  if not isinstance(outcome, int) and outcome != "refused"
                  and not (outcome == "reset" and shut - 0.2 <= sent <= shut + 1.0)]
    assert not unexpected, f"load requests failed other than by a refused connection: {unexpected[:10]}"
    late = [outcome for sent, outcome in load if sent > shut + 1.0]
    assert all(outcome == "refused" for outcome in late), Counter(late)
    with capsys.disabled():
        print(f"\n  [ops] SIGTERM under load: load {dict(outcomes)}; long-polls answered "
              f"{sorted(round(answers[f'long-poll {i}'][1] - sigterm_at, 2) for i in range(5))} s after SIGTERM; "
              f"uploads 201 at {round(answers['upload 1'][1] - sigterm_at, 2)} and "
              f"{round(answers['upload 2'][1] - sigterm_at, 2)} s; exit 0 after {exited_at - sigterm_at:.2f} s")
