"""Helpers for test_hostile.py: raw HTTP/1.1 over a plain socket, RSS sampling, throwaway
PostgreSQL databases.

The raw client exists because `requests`/`urllib3` refuse to send most of what the hostile
tests need (duplicate or malformed framing headers, NUL bytes, a body that never follows its
headers) and hide what the server did with the connection afterwards. Every read here has a
deadline: a server that hangs makes a test fail, never wait forever.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})[^\r\n]*\r\n")


@dataclass
class RawResponse:
    status: int
    # Lower-cased names; repeated headers joined with ", " (Set-Cookie kept in `cookies`).
    headers: dict[str, str]
    body: bytes
    cookies: list[str] = field(default_factory=list)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def is_problem(self) -> bool:
        return self.content_type.split(";")[0].strip().lower() == "application/problem+json"

    def describe(self) -> str:
        return f"{self.status} {self.content_type or '(no Content-Type)'} {self.body[:200]!r}"


def parse_response(buffer: bytes, closed: bool) -> tuple[RawResponse | None, bytes]:
    """Takes one complete response off the front of `buffer`: (response, rest), or (None,
    buffer) while it is incomplete. `closed` says no more bytes will come (a body without
    framing then ends there)."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None, buffer
    match = STATUS_LINE.match(buffer)
    if not match:
        raise ValueError(f"not an HTTP/1.x response: {buffer[:120]!r}")
    status = int(match.group(1))
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for line in buffer[match.end():head_end].split(b"\r\n"):
        if not line:
            continue
        name, _, value = line.decode("latin-1").partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "set-cookie":
            cookies.append(value)
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    rest = buffer[head_end + 4:]
    if status < 200 or status in (204, 304):
        return RawResponse(status, headers, b"", cookies), rest
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        position = 0
        while True:
            line_end = rest.find(b"\r\n", position)
            if line_end < 0:
                return None, buffer
            size = int(rest[position:line_end].split(b";")[0].strip() or b"0", 16)
            chunk_start = line_end + 2
            if size == 0:
                trailer_end = rest.find(b"\r\n\r\n", line_end)
                if rest[chunk_start:chunk_start + 2] == b"\r\n":
                    return RawResponse(status, headers, body, cookies), rest[chunk_start + 2:]
                if trailer_end < 0:
                    return None, buffer
                return RawResponse(status, headers, body, cookies), rest[trailer_end + 4:]
            if len(rest) < chunk_start + size + 2:
                return None, buffer
            body += rest[chunk_start:chunk_start + size]
            position = chunk_start + size + 2
    if "content-length" in headers:
        length = int(headers["content-length"].split(",")[0])
        if len(rest) < length:
            return None, buffer
        return RawResponse(status, headers, rest[:length], cookies), rest[length:]
    if closed:
        return RawResponse(status, headers, rest, cookies), b""
    return None, buffer


class RawConnection:
    """One TCP connection to the server, spoken to byte by byte."""

    def __init__(self, port: int, connect_timeout: float = 3.0,
                 observer: Callable[[RawResponse], None] | None = None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=connect_timeout)
        self.buffer = b""
        self.closed = False  # the server closed (EOF) or reset the connection
        # Called with every response parsed off this connection (the tests' status ledger).
        self.observer = observer

    def _take(self) -> RawResponse | None:
        response, self.buffer = parse_response(self.buffer, self.closed)
        if response is not None and self.observer is not None:
            self.observer(response)
        return response

    def __enter__(self) -> RawConnection:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data: bytes) -> bool:
        """Sends everything; False if the server had already closed or reset the connection."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
            return False

    def _receive(self, deadline: float) -> bool:
        """Reads once, waiting until `deadline` at most; False on timeout or end of stream."""
        if self.closed:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return False
        except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
            self.closed = True
            return False
        if not chunk:
            self.closed = True
            return False
        self.buffer += chunk
        return True

    def read_response(self, timeout: float) -> RawResponse | None:
        """The next complete response, or None if none arrived within `timeout` seconds (or the
        connection ended first)."""
        deadline = time.monotonic() + timeout
        while True:
            response = self._take()
            if response is not None:
                return response
            if not self._receive(deadline):
                return self._take()

    def wait_closed(self, timeout: float) -> bool:
        """True if the server ends the connection within `timeout` seconds; any bytes it sends
        meanwhile are kept in `buffer`."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._receive(deadline)
        return self.closed

    def read_until_closed(self, timeout: float) -> list[RawResponse]:
        """Every response that arrives until the server closes, or `timeout` seconds pass."""
        self.wait_closed(timeout)
        responses = []
        while (response := self._take()) is not None:
            responses.append(response)
        return responses


@dataclass
class Exchange:
    responses: list[RawResponse]
    closed: bool
    leftover: bytes


def exchange(port: int, data: bytes, timeout: float = 2.0,
             observer: Callable[[RawResponse], None] | None = None) -> Exchange:
    """Sends `data` on a fresh connection and collects every response until the server closes
    or `timeout` seconds pass."""
    with RawConnection(port, observer=observer) as connection:
        connection.send(data)
        responses = connection.read_until_closed(timeout)
        return Exchange(responses, connection.closed, connection.buffer)


def request_bytes(method: str, target: str, host: str, headers: list[tuple[str, str]] | None = None,
                  body: bytes = b"", content_length: bool = True) -> bytes:
    """A well-formed HTTP/1.1 request (the hostile tests add the malformed parts themselves)."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in headers or []]
    if content_length and (body or method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


# --- the server process ------------------------------------------------------------------

def rss_mib(pid: int) -> float:
    """Resident set size of `pid` in MiB, from /proc/PID/status (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


# --- PostgreSQL --------------------------------------------------------------------------

def _psql() -> str:
    directory = os.environ.get("HOSTED_TEST_PG_BIN")
    return str(Path(directory) / "psql") if directory else "psql"


def _run_sql(url: str, sql: str) -> None:
    result = subprocess.run([_psql(), url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError(f"psql {sql!r} exited {result.returncode}: {result.stderr.strip()}")


def database_url(url: str, name: str) -> str:
    """`url` with its database replaced by `name`."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))


def create_database(url: str, name: str) -> str:
    """Creates database `name` on the server of `url` (connecting to `url`'s database); returns
    the URL of the new database."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"unsafe database name {name!r}")
    _run_sql(url, f'CREATE DATABASE "{name}"')
    return database_url(url, name)


def drop_database(url: str, name: str) -> None:
    """Drops database `name` (closing any connection still open to it)."""
    _run_sql(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
