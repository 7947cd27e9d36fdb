"""Photo uploads that cost far more to decode than to send, against a live `hosted serve --dev`.

A PNG compresses up to ~1000:1 and a JPEG's frame header can claim any size, so a few hundred
kilobytes can ask a decoder for gigabytes. What is proved here, on a server of its own (so its
RSS is this module's alone):

* **Decode bombs** (a 7071² 16-bit RGBA PNG, interlaced and not, a 7000² progressive JPEG, a
  691-byte progressive JPEG whose frame claims 7070², a baseline JPEG whose frame claims
  4000×3000 with no scan to fill it) are refused with 422 `image_invalid`, eight at once, and
  the server's resident memory stays within 60 MiB of where it was throughout.
* **Heavy but honest photos** (8-bit 7000² PNGs, decoded in about a second each) sent eight at
  once are all kept (201) while `GET /healthz` goes on answering at once: decodes run on their
  own threads, not on the HTTP workers. Afterwards the process gives the decoders' memory back.
"""

from __future__ import annotations

import io
import struct
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from PIL import Image

from conftest import JourneyServer, _binary, _create_account, _environment, start_on_a_free_port, stop_server
from hostile_support import rss_mib
from test_journey_signin import mint_handoff

SELFIE_WORKFLOW = {"key": "selfie", "name": "Selfie", "steps": [{"type": "selfie"}]}


def png(width: int, height: int, depth: int, colour_type: int, interlaced: bool) -> bytes:
    """An all-zero PNG, compressed with zlib (Pillow writes no 16-bit RGBA or interlaced PNGs)."""
    bands = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    pixel_bytes = bands * depth // 8
    compressor = zlib.compressobj(9)
    parts = []
    passes = ([(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
              if interlaced else [(0, 0, 1, 1)])
    for x0, y0, dx, dy in passes:
        pass_width = (width - x0 + dx - 1) // dx if width > x0 else 0
        pass_height = (height - y0 + dy - 1) // dy if height > y0 else 0
        if pass_width and pass_height:
            row = b"\0" * (1 + pass_width * pixel_bytes)
            parts.extend(compressor.compress(row) for _ in range(pass_height))
    parts.append(compressor.flush())

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 1 if interlaced else 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


def jpeg(width: int, height: int, progressive: bool) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 120, 150)).save(out, "JPEG", quality=80, progressive=progressive)
    return out.getvalue()


def claiming(jpeg_bytes: bytes, width: int, height: int) -> bytes:
    """The JPEG with its start-of-frame header rewritten to claim another size."""
    data = bytearray(jpeg_bytes)
    offset = 2
    while offset + 4 <= len(data):
        marker, length = data[offset + 1], data[offset + 2] << 8 | data[offset + 3]
        if marker in (0xC0, 0xC1, 0xC2):
            data[offset + 5:offset + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        offset += 2 + length
    raise AssertionError("no start-of-frame segment")


@pytest.fixture(scope="module")
def decode_server(tmp_path_factory: pytest.TempPathFactory):
    binary = _binary()
    workdir = tmp_path_factory.mktemp("decode-limits")
    env = _environment(workdir)
    process, public_url, stderr_path = start_on_a_free_port(binary, env, workdir)
    try:
        created = _create_account(binary, {**env, "HOSTED_PUBLIC_URL": public_url}, workdir)
        server = JourneyServer(base_url=public_url, api_key=created["api_key"], account_id=created["account_id"],
                               stderr_path=stderr_path, binary=binary, cli_env=env)
        response = requests.post(public_url + "/v1/workflows", json=SELFIE_WORKFLOW, headers=server.auth_headers, timeout=10)
        assert response.status_code == 201, response.text[:300]
        yield server, process
    finally:
        stop_server(process, stderr_path)


def selfie_uploads(server: JourneyServer, count: int, tag: str) -> list[tuple[requests.Session, str]]:
    """`count` signed-in journeys, each with its selfie step's upload URL."""
    uploads = []
    for index in range(count):
        verification = requests.post(server.base_url + "/v1/verifications", headers=server.auth_headers, timeout=10,
                                     json={"user_id": f"decode-{tag}-{index}-{time.monotonic_ns()}", "workflow": "selfie",
                                           "mobile": "+919800000001"}).json()
        secret = mint_handoff(server, verification)["url"].split("#handoff=", 1)[1]
        session = requests.Session()
        session.headers["Origin"] = server.base_url
        answer = session.post(f"{server.base_url}/j/{verification['id']}/api/session", json={"handoff": secret}, timeout=10)
        assert answer.status_code == 200, answer.text[:300]
        uploads.append((session, f"{server.base_url}/j/{verification['id']}/api/steps/selfie/images"))
    return uploads


class Watch:
    """Samples the server's RSS and `/healthz` latency on a thread while the uploads run."""

    def __init__(self, base_url: str, pid: int):
        self.base_url, self.pid = base_url, pid
        self.peak_rss = rss_mib(pid)
        self.slowest_health = 0.0
        self.health_failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_rss = max(self.peak_rss, rss_mib(self.pid))
            started = time.monotonic()
            try:
                if requests.get(self.base_url + "/healthz", timeout=5).status_code != 200:
                    self.health_failures += 1
            except requests.RequestException:
                self.health_failures += 1
            self.slowest_health = max(self.slowest_health, time.monotonic() - started)
            time.sleep(0.02)

    def __enter__(self) -> "Watch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)


def send_all(uploads, files: list[bytes]) -> list[requests.Response]:
    with ThreadPoolExecutor(len(uploads)) as pool:
        return list(pool.map(lambda pair: pair[0][0].post(pair[0][1], data=pair[1], timeout=60,
                                                          headers={"Content-Type": "application/octet-stream"}),
                             zip(uploads, files)))


def test_decode_bombs_are_refused_before_they_cost_memory(decode_server):
    server, process = decode_server
    small_progressive = jpeg(16, 16, progressive=True)
    bombs = {
        "png 7071² 16-bit RGBA interlaced": png(7071, 7071, 16, 6, interlaced=True),
        "png 7071² 16-bit RGBA": png(7071, 7071, 16, 6, interlaced=False),
        "jpeg 7000² progressive": jpeg(7000, 7000, progressive=True),
        "jpeg of 16² claiming 7070² progressive": claiming(small_progressive, 7070, 7070),
        "jpeg of 64² claiming 4000×3000 baseline, padded": claiming(jpeg(64, 64, progressive=False), 4000, 3000) + bytes(60_000),
    }
    assert len(bombs["png 7071² 16-bit RGBA interlaced"]) < 400_000  # ~389 KB asking for 400 MB
    assert len(bombs["jpeg of 16² claiming 7070² progressive"]) < 1000
    before = rss_mib(process.pid)
    for name, bomb in bombs.items():
        uploads = selfie_uploads(server, 8, "bomb")
        with Watch(server.base_url, process.pid) as watch:
            answers = send_all(uploads, [bomb] * len(uploads))
        for answer in answers:
            assert answer.status_code == 422, f"{name}: {answer.status_code} {answer.text[:200]}"
            assert answer.json()["code"] == "image_invalid", f"{name}: {answer.text[:200]}"
        assert watch.peak_rss - before < 60, f"{name}: RSS grew from {before:.0f} to {watch.peak_rss:.0f} MiB"
        assert watch.health_failures == 0, name


def test_heavy_photos_decode_off_the_workers_and_memory_comes_back(decode_server):
    server, process = decode_server
    heavy = png(7000, 7000, 8, 2, interlaced=False)  # 147 MB decoded, within the limits
    uploads = selfie_uploads(server, 8, "heavy")
    requests.get(server.base_url + "/healthz", timeout=5)
    before = rss_mib(process.pid)
    started = time.monotonic()
    with Watch(server.base_url, process.pid) as watch:
        answers = send_all(uploads, [heavy] * len(uploads))
    elapsed = time.monotonic() - started
    assert [answer.status_code for answer in answers] == [201] * len(uploads), [a.text[:200] for a in answers]
    assert elapsed > 1.0, f"eight heavy decodes took only {elapsed:.2f} s: nothing was measured"
    # While eight decodes of about a second each ran, the workers went on answering at once.
    assert watch.slowest_health < 0.5, f"/healthz took {watch.slowest_health:.2f} s during the uploads"
    assert watch.health_failures == 0
    time.sleep(0.5)
    after = rss_mib(process.pid)
    # What the allocator keeps after eight decodes of 147 MB each is well under half of one of
    # them (no decoded image is kept), and a second batch of eight leaves the process no larger
    # than the first did (nothing accumulates per upload). The first bound leaves room for the
    # allocator's own keeping, which varies from run to run on a loaded machine (30 to 60 MiB
    # here); a leak of even one decode per batch would be 147 MiB.
    assert after - before < 64, f"RSS {before:.0f} MiB before, {after:.0f} MiB after the uploads (peak {watch.peak_rss:.0f})"
    second = selfie_uploads(server, 8, "heavy-again")
    answers = send_all(second, [heavy] * len(second))
    assert [answer.status_code for answer in answers] == [201] * len(second), [a.text[:200] for a in answers]
    time.sleep(0.5)
    again = rss_mib(process.pid)
    assert again - after < 24, f"RSS {after:.0f} MiB after the first eight uploads, {again:.0f} MiB after eight more"
