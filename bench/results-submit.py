#!/usr/bin/env python3
"""Submits for bench/results.sh: prepares N verifications signed in and with their one profile
step done (outside the timed window); submits a quarter of them one after another on one
connection (what a user waits: each submit's latency), then the rest from C connections at once
(what a busy server spends: hosted's CPU per submit, the rate). Prints "submits/s
µs_of_hosted_CPU_per_submit signed id cookie median_latency_µs" (signed: how many redirect URLs
carried #hosted_result; id and cookie: one submitted verification's, for the follow row). hosted's CPU is the sum of its threads' run time in /proc/PID/task/*/schedstat
(nanoseconds; /proc/PID/stat counts in 10 ms ticks, too coarse for a few thousand submits).
Usage: results-submit.py BASE API_KEY PID N CONNECTIONS TAG
"""
import http.client
import json
import os
import sys
import threading
import time
from urllib.parse import urlsplit

base, key, pid, count, connections, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
host = urlsplit(base)


def connect():
    return http.client.HTTPConnection(host.hostname, host.port, timeout=30)


def call(conn, method, path, body=None, headers=None, want=200):
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    if response.status != want:
        sys.exit(f"bench: {method} {path} -> {response.status} (expected {want}): {data[:300]!r}")
    return response, data


def prepare(conn, index):
    api = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    _, data = call(conn, "POST", "/v1/verifications", {"user_id": f"bench-results-{tag}-{index}", "workflow": "bench_results",
                                                       "mobile": "+919876543210",
                                                       "return_url": "https://app.example.com/done"}, api, 201)
    vid = json.loads(data)["id"]
    _, data = call(conn, "POST", f"/v1/verifications/{vid}/handoffs", {"nonce": f"bench-{index}"}, api, 201)
    secret = json.loads(data)["url"].split("#handoff=", 1)[1]
    journey = {"Origin": base, "Content-Type": "application/json"}
    response, _ = call(conn, "POST", f"/j/{vid}/api/session", {"handoff": secret}, journey)
    cookie = next(v.split(";", 1)[0] for k, v in response.getheaders() if k.lower() == "set-cookie" and v.startswith("hosted_session="))
    journey["Cookie"] = cookie
    call(conn, "POST", f"/j/{vid}/api/steps/about/profile", {"full_name": "Asha Rao", "date_of_birth": "1990-04-01"}, journey)
    return vid, journey


def cpu_ns():
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile (hosted's pools keep theirs)
    return total


conn = connect()
prepared = [prepare(conn, i) for i in range(count)]
conn.close()
signed = 0
lock = threading.Lock()


def worker(part):
    global signed
    own = connect()
    mine = 0
    for vid, headers in part:
        _, data = call(own, "POST", f"/j/{vid}/api/submit", None, headers)
        if "#hosted_result=" in (json.loads(data).get("redirect_url") or ""):
            mine += 1
    own.close()
    with lock:
        signed += mine


# One by one: each submit's wall time, as the page waits for it.
sequential, prepared = prepared[: max(1, count // 4)], prepared[max(1, count // 4):]
latencies = []
own = connect()
for vid, headers in sequential:
    started = time.perf_counter()
    _, data = call(own, "POST", f"/j/{vid}/api/submit", None, headers)
    latencies.append(time.perf_counter() - started)
    if "#hosted_result=" in (json.loads(data).get("redirect_url") or ""):
        signed += 1
own.close()
latencies.sort()
count = len(prepared)

parts = [prepared[i::connections] for i in range(connections)]
threads = [threading.Thread(target=worker, args=(part,)) for part in parts]
before, started = cpu_ns(), time.monotonic()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
elapsed, after = time.monotonic() - started, cpu_ns()
vid, headers = prepared[-1]
print(f"{count / elapsed:.0f} {(after - before) / 1000 / count:.1f} {signed} {vid} {headers['Cookie']} "
      f"{latencies[len(latencies) // 2] * 1e6:.0f}")
