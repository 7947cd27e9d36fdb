#!/usr/bin/env python3
"""The upload half of bench/artifacts.sh: prepares N verifications signed in to their journey
(outside the timed window), then uploads PER photos to each from C connections at once and
prints "uploads/s µs_of_hosted_CPU_per_upload", writing every artifact's download path to
PATHS (one per line, for wrk). Usage: artifacts-drive.py BASE API_KEY PID N PER C PHOTO PATHS TAG
"""
import http.client
import json
import sys
import threading
import time
from urllib.parse import urlsplit

base, key, pid, count, per, connections, photo_path, paths_file, tag = sys.argv[1:10]
pid, count, per, connections = int(pid), int(count), int(per), int(connections)
photo = open(photo_path, "rb").read()
host = urlsplit(base)


def connect():
    return http.client.HTTPConnection(host.hostname, host.port, timeout=60)


def call(conn, method, path, body=None, headers=None, want=200):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    if response.status != want:
        sys.exit(f"bench: {method} {path} -> {response.status} (expected {want}): {data[:300]!r}")
    return response, data


def prepare(conn, index):
    api = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    body = {"user_id": f"bench-artifacts-{tag}-{index}", "workflow": "bench_artifacts", "mobile": "+919876543210"}
    _, data = call(conn, "POST", "/v1/verifications", json.dumps(body), api, 201)
    vid = json.loads(data)["id"]
    _, data = call(conn, "POST", f"/v1/verifications/{vid}/handoffs", json.dumps({"nonce": f"bench-{index}"}), api, 201)
    secret = json.loads(data)["url"].split("#handoff=", 1)[1]
    journey = {"Origin": base, "Content-Type": "application/json"}
    response, _ = call(conn, "POST", f"/j/{vid}/api/session", json.dumps({"handoff": secret}), journey)
    cookie = next(v.split(";", 1)[0] for k, v in response.getheaders() if k.lower() == "set-cookie" and v.startswith("hosted_session="))
    return vid, {"Origin": base, "Cookie": cookie, "Content-Type": "image/jpeg"}


def cpu_ticks():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


conn = connect()
prepared = [prepare(conn, i) for i in range(count)]
conn.close()
paths, lock = [], threading.Lock()


def worker(part):
    conn = connect()
    for vid, headers in part:
        for _ in range(per):
            _, data = call(conn, "POST", f"/j/{vid}/api/steps/shop/images", photo, headers, 201)
            with lock:
                paths.append(f"/v1/verifications/{vid}/artifacts/{json.loads(data)['artifact_id']}")
    conn.close()


parts = [prepared[i::connections] for i in range(connections)]
threads = [threading.Thread(target=worker, args=(part,)) for part in parts]
before, started = cpu_ticks(), time.monotonic()
for thread in threads: thread.start()
for thread in threads: thread.join()
elapsed, after = time.monotonic() - started, cpu_ticks()
if len(paths) != count * per:
    sys.exit(f"bench: {len(paths)} uploads of {count * per}")
with open(paths_file, "w") as out:
    out.write("\n".join(paths) + "\n")
import os
print(f"{len(paths) / elapsed:.1f} {(after - before) * 1e6 / os.sysconf('SC_CLK_TCK') / len(paths):.0f}")
