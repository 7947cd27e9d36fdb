"""The evidence bundle (issue 40, docs/evidence.md), checked as a customer and an auditor would.

A verification is submitted through the journey API with a retaken selfie and a premises photo
taken with a location (test_console_captures.py's `submitted_with_a_retake`), then approved.

1. Over HTTP, with the account's key: `GET /v1/verifications/{id}/evidence` is a ZIP that Python's
   `zipfile` opens (CRCs checked); `manifest.json` holds the verification exactly as the API shows
   it, the events exactly as the events API shows them with a chain that recomputes to
   `chain_head`, and each artifact's SHA-256, which equals its entry's and the API download's; the
   detached JWS (`manifest.json.jws`) verifies with jwcrypto against only the served
   `/.well-known/jwks.json`, and fails for a changed manifest; the export is the chain's next
   event, by the key. After redaction the bundle is the manifest alone, with the same hashes.
2. In Chromium: the detail page's `evidence-download` button saves the same bundle through the
   browser's own download (the operator recorded as the exporter), axe-core finds nothing, and
   phone-sized screenshots in English and Hindi (`test-artifacts/evidence-*.png`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import time
import zipfile
from pathlib import Path

import pytest
import requests
from jwcrypto import jwk, jws
from jwcrypto.common import JWException

from test_console import DEVANAGARI, Console, as_desktop, as_phone, assert_clean_console, open_as, shoot, shown, wait_state
from test_console_captures import STEPS, WORKFLOW, assert_axe_clean, submitted_with_a_retake
from test_journey_signin import _api


@pytest.fixture(scope="module")
def evidence_console(journey_hosted) -> Console:
    """An account of its own with the capture workflow and one reviewer, set up."""
    if journey_hosted.binary is None:
        pytest.fail("journey_hosted carries no CLI binary", pytrace=False)
    partial = Console(server=journey_hosted, foreign_account_id="", binary=journey_hosted.binary,
                      env=journey_hosted.cli_env)
    created = partial.cli("accounts", "create", "--name", "evidence-e2e")
    foreign = partial.cli("accounts", "create", "--name", "evidence-e2e-foreign")
    journey_hosted.secrets.extend([created["api_key"], foreign["api_key"]])
    server = dataclasses.replace(journey_hosted, api_key=created["api_key"], account_id=created["account_id"])
    console = Console(server=server, foreign_account_id=foreign["account_id"], binary=journey_hosted.binary,
                      env=journey_hosted.cli_env)
    console.foreign_key = foreign["api_key"]
    _api(server, "POST", "/v1/workflows", {"key": WORKFLOW, "name": "Evidence", "steps": STEPS}, expected=(201,))
    console.set_up(console.new_operator("reviewer", "reviewer"))
    return console


# --- what a customer's auditor runs ------------------------------------------------------------

def open_bundle(data: bytes) -> tuple[zipfile.ZipFile, bytes, dict]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None, "an entry's CRC does not match"
    manifest_bytes = archive.read("manifest.json")
    return archive, manifest_bytes, json.loads(manifest_bytes)


def chain_head(events: list[dict]) -> str | None:
    """Recomputes the chain as DESIGN.md defines it; the last hash, or fails."""
    previous = None
    for expected, event in enumerate(sorted(events, key=lambda e: e["sequence"]), start=1):
        assert event["sequence"] == expected, f"sequence {event['sequence']} where {expected} was expected"
        assert event["previous_hash"] == previous, f"{event['id']}: previous_hash does not link"
        body = {k: v for k, v in event.items() if k not in ("hash", "previous_hash")}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(((previous or "") + "\n" + canonical).encode("utf-8")).hexdigest()
        assert digest == event["hash"], f"{event['id']}: the hash does not match the event"
        previous = digest
    return previous


def served_keys(base_url: str) -> jwk.JWKSet:
    """Only what the server publishes, fetched without credentials."""
    response = requests.get(f"{base_url}/.well-known/jwks.json", timeout=10)
    assert response.status_code == 200, response.text[:300]
    return jwk.JWKSet.from_json(response.text)


def signature_holds(signature: str, payload: bytes, keys: jwk.JWKSet) -> bool:
    header, middle, _ = signature.split(".")
    assert middle == "", "not a detached JWS (RFC 7515 appendix F)"
    token = jws.JWS()
    token.deserialize(signature)
    try:
        token.verify(keys, alg="ES256", detached_payload=payload)
    except JWException:
        return False
    return True


def check_bundle(console: Console, vid: str, data: bytes) -> tuple[zipfile.ZipFile, bytes, dict]:
    """Everything an auditor checks in one bundle; returns it opened."""
    archive, manifest_bytes, manifest = open_bundle(data)
    names = set(archive.namelist())
    assert {"manifest.json", "manifest.json.jws"} <= names, names
    assert manifest["verification"]["id"] == vid
    assert chain_head(manifest["events"]) == manifest["chain_head"]
    for artifact in manifest["artifacts"]:
        if artifact["path"] is None:
            continue
        entry = archive.read(artifact["path"])
        assert hashlib.sha256(entry).hexdigest() == artifact["sha256"], artifact["path"]
        assert len(entry) == artifact["bytes"], artifact["path"]
        kind = archive.getinfo(artifact["path"]).compress_type
        assert kind == (zipfile.ZIP_STORED if artifact["path"].endswith(".jpg") else zipfile.ZIP_DEFLATED), artifact["path"]
    assert names == {"manifest.json", "manifest.json.jws"} | {a["path"] for a in manifest["artifacts"] if a["path"]}
    signature = archive.read("manifest.json.jws").decode("ascii")
    keys = served_keys(console.base)
    assert signature_holds(signature, manifest_bytes, keys), "the detached JWS does not verify against the served JWKS"
    assert not signature_holds(signature, manifest_bytes.replace(b'"events":[', b'"events":[ ', 1), keys), "a changed manifest verifies"
    return archive, manifest_bytes, manifest


def download(console: Console, vid: str, key: str | None = None) -> requests.Response:
    return requests.get(f"{console.base}/v1/verifications/{vid}/evidence", timeout=30,
                        headers={"Authorization": f"Bearer {key or console.server.api_key}"})


# --- 1. over HTTP, as a customer ----------------------------------------------------------------

def test_the_bundle_verifies_with_only_the_served_jwks(evidence_console):
    console = evidence_console
    v = submitted_with_a_retake(console)
    vid = v["id"]
    _api(console.server, "POST", f"/v1/verifications/{vid}/decision", {"decision": "approved"})
    before = console.events(vid)
    shown_verification = console.verification(vid)

    response = download(console, vid)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"] == "application/zip"
    assert response.headers["Content-Disposition"] == f'attachment; filename="evidence-{vid}.zip"'
    assert response.headers["Cache-Control"] == "no-store"
    archive, manifest_bytes, manifest = check_bundle(console, vid, response.content)

    assert manifest["verification"] == shown_verification
    assert manifest["events"] == before
    assert manifest["chain_head"] == before[-1]["hash"]
    by_id = {a["id"]: a for a in manifest["artifacts"]}
    assert {v["dark"], v["selfie"], v["shop"]} <= set(by_id), by_id.keys()
    assert by_id[v["dark"]]["superseded"] is True and by_id[v["selfie"]]["superseded"] is False
    assert by_id[v["dark"]]["quality"]["passed"] is False and by_id[v["selfie"]]["quality"]["passed"] is True
    assert by_id[v["shop"]]["location"]["latitude"] == 19.076012, by_id[v["shop"]]
    for artifact in manifest["artifacts"]:
        served = requests.get(f"{console.base}/v1/verifications/{vid}/artifacts/{artifact['id']}",
                              headers=console.server.auth_headers, timeout=30)
        assert served.status_code == 200
        assert hashlib.sha256(served.content).hexdigest() == artifact["sha256"] == hashlib.sha256(
            archive.read(artifact["path"])).hexdigest()
    assert [d["decision"] for d in manifest["decisions"]] == ["approved"]

    after = console.events(vid)
    exported = after[-1]
    assert len(after) == len(before) + 1 and exported["type"] == "verification.evidence_exported", exported
    assert exported["actor"]["type"] == "api_key" and exported["actor"]["id"].startswith("key_"), exported
    assert exported["previous_hash"] == manifest["chain_head"]
    assert exported["data"] == {"manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest()}
    assert chain_head(after) == exported["hash"]

    # Another account's key: 404, as for the verification itself; nothing recorded.
    refused = download(console, vid, key=console.foreign_key)
    assert refused.status_code == 404 and refused.headers["Content-Type"].startswith("application/problem+json")
    assert len(console.events(vid)) == len(after)

    # Redacted: the manifest alone, with the same hashes, still signed.
    kept = {a["id"]: (a["sha256"], a["bytes"]) for a in manifest["artifacts"]}
    _api(console.server, "POST", f"/v1/verifications/{vid}/redact", {})
    response = download(console, vid)
    assert response.status_code == 200
    archive, redacted_bytes, redacted = check_bundle(console, vid, response.content)
    assert sorted(archive.namelist()) == ["manifest.json", "manifest.json.jws"]
    assert redacted["verification"]["redacted_at"] and redacted["verification"]["user_id"] is None
    assert {a["id"]: (a["sha256"], a["bytes"]) for a in redacted["artifacts"]} == kept
    assert all(a["path"] is None and "location" not in a for a in redacted["artifacts"])


# --- 2. the console's button, in Chromium ---------------------------------------------------------

def wait_for_download(directory: Path, timeout: float = 20.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [p for p in directory.glob("*.zip")]
        if done and not list(directory.glob("*.crdownload")):
            return done[0]
        time.sleep(0.2)
    pytest.fail(f"no download in {directory}: {list(directory.iterdir())}", pytrace=False)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_console_button_downloads_the_bundle(browsers, evidence_console, tmp_path, lang):
    console = evidence_console
    op = console.ops["reviewer"]
    v = submitted_with_a_retake(console)
    vid = v["id"]
    driver = browsers()
    downloads = tmp_path / f"downloads-{lang}"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    open_as(driver, console, op, f"/console/verifications/{vid}?lang={lang}")
    wait_state(driver, "detail")
    button = shown(driver, "evidence-download")
    assert button.get_attribute("href").endswith(f"/console/api/verifications/{vid}/evidence"), button.get_attribute("href")
    assert button.get_attribute("download") == f"evidence-{vid}.zip"
    if lang == "hi":
        assert DEVANAGARI.search(button.text), button.text
    else:
        assert button.text == "Download evidence (ZIP)", button.text
    assert_axe_clean(driver, f"the detail with the evidence button ({lang}, phone)")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    shoot(driver, f"evidence-{lang}-phone")

    before = len(console.events(vid))
    button.click()
    saved = wait_for_download(downloads)
    assert saved.name == f"evidence-{vid}.zip", saved.name
    _, _, manifest = check_bundle(console, vid, saved.read_bytes())
    assert manifest["verification"]["id"] == vid
    events = console.events(vid)
    exported = [e for e in events[before:] if e["type"] == "verification.evidence_exported"]
    assert len(exported) == 1, [e["type"] for e in events[before:]]
    assert exported[0]["actor"] == {"type": "operator", "id": op.id}, exported[0]
    assert_clean_console(driver)
    as_desktop(driver)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", shown(driver, "evidence-download"))
    shoot(driver, f"evidence-{lang}-desktop")
    as_phone(driver)
