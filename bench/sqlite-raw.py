#!/usr/bin/env python3
"""SQLite's own speed for the statements behind hosted's poll and repeat create (bench/run.sh).

Usage: bench/sqlite-raw.py DATABASE VERIFICATION_ID ACCOUNT_ID USER_ID WORKFLOW_KEY SECONDS [CONNECTIONS]
       bench/sqlite-raw.py --sql read|create   (prints that statement's text, for bench/min-poll.c)
       bench/sqlite-raw.py --user-key ACCOUNT_ID USER_ID   (the keyed hash hosted looks the user up
                           by, from HOSTED_SECRET_KEY: docs/personal-data.md)

Runs, on the database file hosted used (hosted stopped), each statement in a tight loop for
SECONDS on CONNECTIONS threads, each with its own connection (Python's sqlite3 releases the GIL
while SQLite steps), with the same statement text hosted prepares and the same bound values:
  read    the verification by id and account: what a poll runs (answered from a poll lease)
  create  the open verification of a user and workflow: what a repeated create runs
Prints one JSON object per statement: {"statement", "rows_per_second", "runs", "seconds"}.
A statement that finds no row is an error (exit 1), so a wrong value cannot look fast.
"""
import hashlib
import hmac
import json
import os
import sqlite3
import sys
import threading
import time

COLUMNS = ("id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps, "
           "created_at, updated_at, submitted_at, decided_at, revision, decision_reason, "
           "expires_at, expired_reason, last_step, redacted_at, redact_after_seconds, redact_at, approvals_required, approvals, "
           "resubmissions, resubmission_reason, resubmission_message, flags, livemode, user_key, personal, data_key")
READ = f"SELECT {COLUMNS} FROM verifications WHERE id = $1 AND account_id = $2"
OPEN = (f"SELECT {COLUMNS} FROM verifications "
        "WHERE account_id = $1 AND livemode = 1 AND user_key = $2 AND workflow_key = $3 AND status NOT IN ('canceled', 'expired')")


def user_key(account, user):
    """The keyed hash hosted looks a user id up by (docs/personal-data.md), from HOSTED_SECRET_KEY."""
    lookup = hmac.new(os.environ["HOSTED_SECRET_KEY"].encode(), b"hosted/lookup-keys/v1", hashlib.sha256).digest()
    return hmac.new(lookup, account.encode() + b"\0" + user.encode(), hashlib.sha256).hexdigest()


def loop(path, sql, values, seconds, counts, index, failures):
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA query_only = ON")
    parameters = {str(n + 1): value for n, value in enumerate(values)}
    runs = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for _ in range(100):
            if connection.execute(sql, parameters).fetchone() is None:
                failures.append(sql)
                return
        runs += 100
    counts[index] = runs
    connection.close()


def measure(path, name, sql, values, seconds, connections):
    counts = [0] * connections
    failures = []
    threads = [threading.Thread(target=loop, args=(path, sql, values, seconds, counts, n, failures))
               for n in range(connections)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    if failures:
        sys.exit(f"sqlite-raw: {name}: the statement found no row (wrong id or values?)")
    total = sum(counts)
    print(json.dumps({"statement": name, "rows_per_second": round(total / elapsed), "runs": total,
                      "seconds": round(elapsed, 2), "connections": connections}))


def main(argv):
    if len(argv) == 4 and argv[1] == "--user-key":
        print(user_key(argv[2], argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == "--sql" and argv[2] in ("read", "create"):
        print(READ if argv[2] == "read" else OPEN)
        return 0
    if len(argv) not in (7, 8) or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    path, verification, account, user, workflow, seconds = argv[1:7]
    connections = int(argv[7]) if len(argv) == 8 else 1
    measure(path, "read", READ, [verification, account], float(seconds), connections)
    measure(path, "create", OPEN, [account, user_key(account, user), workflow], float(seconds), connections)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
