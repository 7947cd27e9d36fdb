"""The nginx front of docs/deployment.md refuses a malformed Content-Length before Hosted sees it.

libmicrohttpd 0.9.75 answers a Content-Length it cannot parse (`+5`, `0x5`, `-1`, `5, 5`, more
digits than fit in 64 bits) from its own error path, which writes the status line and headers
twice; a minimal libmicrohttpd server does the same, so it cannot be fixed in Hosted. Behind the
documented nginx site (`test_operations.nginx_site`, Debian's nginx 1.22) such a request is
answered once, 400, by nginx itself: nginx's access log shows no upstream for it, and Hosted's
access log never names it while a control request sent right after through the same nginx is
logged.

Uses the session's `hosted serve --dev` on SQLite (conftest's `hosted`); skipped without nginx
(`apt-get install nginx-light`; scripts/test.sh installs it). Everything on 127.0.0.1, every wait
bounded.
"""

from __future__ import annotations

import re
import time
import uuid
from urllib.parse import urlsplit

import pytest

from conftest import HostedServer, _free_loopback_port
from hostile_support import RawConnection, request_bytes
from test_operations import Nginx, require_nginx

MALFORMED_CONTENT_LENGTHS = {
    "plus sign": "+5",
    "hexadecimal": "0x5",
    "negative": "-1",
    "a list": "5, 5",
    "23 digits": "1" * 23,
}
STATUS_LINE = re.compile(rb"(?m)^HTTP/1\.[01] (\d{3}) ")


@pytest.fixture(scope="module")
def front(hosted: HostedServer, tmp_path_factory: pytest.TempPathFactory):
    """The documented nginx site on a free loopback port, in front of the session's server."""
    require_nginx()
    upstream = urlsplit(hosted.base_url).port
    nginx = Nginx(_free_loopback_port(), [upstream], tmp_path_factory.mktemp("nginx-front"))
    try:
        yield nginx
    finally:
        nginx.stop()


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(0.05)
    return value


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("value", list(MALFORMED_CONTENT_LENGTHS.values()), ids=list(MALFORMED_CONTENT_LENGTHS))
def test_a_malformed_content_length_is_refused_once_by_nginx_and_never_reaches_hosted(
        front: Nginx, hosted: HostedServer, method: str, value: str):
    refused = f"/v1/verifications/edge-refused-{uuid.uuid4().hex}"
    head = (f"{method} {refused} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {value}\r\n\r\n").encode("latin-1")
    with RawConnection(front.port) as connection:
        connection.send(head + b'{"a":1}')
        assert connection.wait_closed(10), "nginx kept the connection open after a malformed Content-Length"
        answer = connection.buffer
    statuses = STATUS_LINE.findall(answer)
    assert statuses == [b"400"], f"Content-Length {value!r}: expected one 400 status line, got {answer[:300]!r}"
    assert re.search(rb"(?mi)^Server: nginx\r$", answer), f"not answered by nginx: {answer[:300]!r}"

    # nginx answered it itself: no upstream in its access log.
    entry = wait_until(lambda: [e for e in front.entries() if e.uri == refused], 5, "nginx's access line")[0]
    assert entry.status == 400 and entry.upstreams == (), f"nginx passed it on: {entry}"

    # Hosted never saw it: a control request sent after it through nginx reaches Hosted's access
    # log (buffered up to 200 ms), the refused one is not there.
    control = f"/v1/verifications/edge-control-{uuid.uuid4().hex}"
    with RawConnection(front.port) as connection:
        connection.send(request_bytes("GET", control, "127.0.0.1"))
        response = connection.read_response(10)
    assert response is not None and response.status in (401, 404), "the control request did not reach Hosted"
    wait_until(lambda: control in hosted.log_text(), 5, "Hosted's access line for the control request")
    assert refused not in hosted.log_text(), f"Hosted saw the request with Content-Length {value!r}"
