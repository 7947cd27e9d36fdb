#!/usr/bin/env python3
"""Submits for bench/results.sh, against two servers on one database at once (signing on and
off), interleaved so that the machine's drift falls on both alike.

Prepares N verifications per server (signed in through a handoff with a nonce, their one
profile step done; outside the timed windows). Then:
- one by one: a quarter of each server's submits on one connection per server, alternating
  on, off, on, off… (what a user waits: each submit's latency);
- at once: the rest in CHUNKS chunks per server, each from C connections at once, the servers'
  chunks alternating (on, off, off, on, …). For each chunk: the CPU of that server's threads
  (`/proc/PID/task/*/schedstat`, ns) and, with BENCH_PG_POSTMASTER set, the CPU of every child
  of that PostgreSQL postmaster (`/proc/CHILD/schedstat`: the backends running the submits'
  transactions, and the WAL writer, checkpointer and other helpers) over the same window. The
  other server is idle meanwhile.
Prints one line per server, "ARM submits/s µs_hosted_CPU_per_submit µs_postgres_CPU_per_submit
signed median_latency_µs" (postgres 0 without BENCH_PG_POSTMASTER; signed: how many redirect
URLs carried #hosted_result), then "follow ID COOKIE": one submitted verification's, for the
follow rows (any of the servers can answer it: its session is in the database, and the origin
check that ties a journey's calls to one server's public URL is for state-changing calls only).
Usage: results-submit.py API_KEY N CONNECTIONS CHUNKS TAG ARM=BASE,PID ARM=BASE,PID
"""
import http.client
import json
import os
import sys
import threading
import time
from urllib.parse import urlsplit

key, count, connections, chunks, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
servers = []
for spec in sys.argv[6:]:
    arm, _, rest = spec.partition("=")
    base, _, pid = rest.partition(",")
    servers.append({"arm": arm, "base": base, "pid": int(pid), "host": urlsplit(base)})
postmaster = int(os.environ["BENCH_PG_POSTMASTER"]) if os.environ.get("BENCH_PG_POSTMASTER") else None


def connect(server):
    return http.client.HTTPConnection(server["host"].hostname, server["host"].port, timeout=30)


def call(conn, method, path, body=None, headers=None, want=200):
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    if response.status != want:
        sys.exit(f"bench: {method} {path} -> {response.status} (expected {want}): {data[:300]!r}")
    return response, data


def prepare(conn, server, index):
    api = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    _, data = call(conn, "POST", "/v1/verifications", {"user_id": f"bench-results-{tag}-{server['arm']}-{index}", "workflow": "bench_results",
                                                       "mobile": "+919876543210",
                                                       "return_url": "https://app.example.com/done"}, api, 201)
    vid = json.loads(data)["id"]
    _, data = call(conn, "POST", f"/v1/verifications/{vid}/handoffs", {"nonce": f"bench-{index}"}, api, 201)
    secret = json.loads(data)["url"].split("#handoff=", 1)[1]
    journey = {"Origin": server["base"], "Content-Type": "application/json"}
    response, _ = call(conn, "POST", f"/j/{vid}/api/session", {"handoff": secret}, journey)
    cookie = next(v.split(";", 1)[0] for k, v in response.getheaders() if k.lower() == "set-cookie" and v.startswith("hosted_session="))
    journey["Cookie"] = cookie
    call(conn, "POST", f"/j/{vid}/api/steps/about/profile", {"full_name": "Asha Rao", "date_of_birth": "1990-04-01"}, journey)
    return vid, journey


def task_cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile (hosted's pools keep theirs)
    return total


def postgres_cpu_ns():
    """Each child of the postmaster by pid, its run time in ns (PostgreSQL's processes are
    single-threaded: /proc/PID/schedstat is the process's)."""
    if postmaster is None:
        return {}
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
            # The fields after the command's closing parenthesis: state, ppid, …
            if int(stat[stat.rindex(")") + 2:].split()[1]) != postmaster:
                continue
            found[int(entry)] = int(open(f"/proc/{entry}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return found


def postgres_spent(before, after):
    # A backend that started during the window counts from zero; one that ended is lost (hosted
    # keeps its connections, so none does here).
    return sum(ns - before.get(pid, 0) for pid, ns in after.items())


def redirect_signed(data):
    return "#hosted_result=" in (json.loads(data).get("redirect_url") or "")


# Each server's own verifications, prepared through it (the journey checks the page's origin).
for server in servers:
    conn = connect(server)
    server["prepared"] = [prepare(conn, server, i) for i in range(count)]
    server.update(signed=0, latencies=[], cpu=0, pg=0, elapsed=0.0, submitted=0)
    conn.close()

# One by one, alternating between the servers.
sequential = max(1, count // 4)
own = {server["arm"]: connect(server) for server in servers}
for index in range(sequential):
    for server in servers if index % 2 == 0 else servers[::-1]:
        vid, headers = server["prepared"][index]
        started = time.perf_counter()
        _, data = call(own[server["arm"]], "POST", f"/j/{vid}/api/submit", None, headers)
        server["latencies"].append(time.perf_counter() - started)
        server["signed"] += redirect_signed(data)
for c in own.values():
    c.close()


def run_chunk(server, items):
    """`items` submitted from `connections` connections at once; the window starts once every
    connection is open."""
    parts = [items[i::connections] for i in range(connections)]
    ready = threading.Barrier(len(parts) + 1)
    signed = [0] * len(parts)

    def worker(number, part):
        c = connect(server)
        c.connect()
        ready.wait()
        for vid, headers in part:
            _, data = call(c, "POST", f"/j/{vid}/api/submit", None, headers)
            signed[number] += redirect_signed(data)
        c.close()

    threads = [threading.Thread(target=worker, args=(n, part)) for n, part in enumerate(parts)]
    for thread in threads:
        thread.start()
    pg_before, before, started = postgres_cpu_ns(), task_cpu_ns(server["pid"]), time.monotonic()
    ready.wait()
    for thread in threads:
        thread.join()
    elapsed, after, pg_after = time.monotonic() - started, task_cpu_ns(server["pid"]), postgres_cpu_ns()
    server["cpu"] += after - before
    server["pg"] += postgres_spent(pg_before, pg_after)
    server["elapsed"] += elapsed
    server["submitted"] += len(items)
    server["signed"] += sum(signed)


rest = {server["arm"]: server["prepared"][sequential:] for server in servers}
size = -(-len(rest[servers[0]["arm"]]) // chunks)
for number in range(chunks):
    for server in servers if number % 2 == 0 else servers[::-1]:
        run_chunk(server, rest[server["arm"]][number * size:(number + 1) * size])

for server in servers:
    latencies = sorted(server["latencies"])
    n = server["submitted"]
    print(f"{server['arm']} {n / server['elapsed']:.0f} {server['cpu'] / 1000 / n:.1f} {server['pg'] / 1000 / n:.1f} "
          f"{server['signed']} {latencies[len(latencies) // 2] * 1e6:.0f}")
vid, headers = servers[0]["prepared"][-1]
print(f"follow {vid} {headers['Cookie']}")
