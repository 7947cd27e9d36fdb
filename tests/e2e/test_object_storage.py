"""Photos in S3-compatible object storage (issue 41), end to end, in a real browser.

A `hosted serve --dev` of its own with `HOSTED_ARTIFACT_STORE` pointing at the throwaway
OpenStack Swift that `scripts/with-swift.sh` runs (its S3 API on loopback; `HOSTED_TEST_S3_URL`
and its credentials). In headless Chromium: the whole journey (profile, a selfie, two premises
photos, submit) through the fake camera. Then:

1. the API downloads every photo as a real JPEG (read back through Hosted from the bucket,
   SHA-256 checked);
2. the bucket, listed with Debian's botocore, holds one object per photo under
   `{prefix}/{account_id}/{verification_id}/{artifact_id}` — ids only, never the user id or the
   number — and not one of them is a JPEG (no `FF D8 FF`): they are sealed;
3. the console's detail of the verification shows the three photos, loaded from the store;
4. after a redaction every download is 410 at once, and the sweeper deletes the objects.

Skipped without `HOSTED_TEST_S3_URL`, unless `HOSTED_REQUIRE_S3=1` (as in CI), which fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid

import pytest
import requests

from conftest import (
    STEPS_WORKFLOW,
    JourneyServer,
    _binary,
    _create_account,
    _environment,
    start_on_a_free_port,
    stop_server,
)
from test_console import Console, open_as, wait_images_loaded, wait_state
from test_journey_signin import _api
from test_journey_steps import (
    MOBILE,
    check_submitted,
    fetch,
    fill_profile,
    on_review,
    on_step,
    open_signed_in,
    take_photos,
)

S3_URL = os.environ.get("HOSTED_TEST_S3_URL")
LIST_OBJECTS = r"""
import json, sys
import botocore.session
from botocore.config import Config
endpoint, key, secret, prefix = sys.argv[1:5]
client = botocore.session.get_session().create_client(
    "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key, aws_secret_access_key=secret,
    config=Config(s3={"addressing_style": "path"}))
listed = client.list_objects_v2(Bucket="hosted-test", Prefix=prefix + "/").get("Contents", [])
heads = {}
for item in listed:
    try:
        heads[item["Key"]] = client.get_object(Bucket="hosted-test", Key=item["Key"])["Body"].read()[:3].hex()
    except client.exceptions.NoSuchKey:
        pass  # deleted between the listing and the read (the sweeper is at work): it is gone
print(json.dumps(heads))
"""


def objects_under(prefix: str) -> dict[str, str]:
    """Every object under `prefix/` in the test bucket: its key and its first three bytes (hex).

    An object listed but deleted before it is read (the sweeper runs beside the test) counts as gone."""
    result = subprocess.run(
        ["/usr/bin/python3", "-c", LIST_OBJECTS, os.environ["HOSTED_TEST_S3_ENDPOINT"],
         os.environ["HOSTED_TEST_S3_ACCESS_KEY_ID"], os.environ["HOSTED_TEST_S3_SECRET_ACCESS_KEY"], prefix],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"listing the bucket with botocore failed: {result.stderr[-2000:]}"
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def s3_hosted(tmp_path_factory):
    """`hosted serve --dev` with the S3 artifact store, one account and the steps workflow."""
    if not S3_URL:
        if os.environ.get("HOSTED_REQUIRE_S3") == "1":
            pytest.fail("HOSTED_REQUIRE_S3=1 but HOSTED_TEST_S3_URL is not set (run under scripts/with-swift.sh)",
                        pytrace=False)
        pytest.skip("no S3 server: HOSTED_TEST_S3_URL is unset (run under scripts/with-swift.sh)")
    binary = _binary()
    workdir = tmp_path_factory.mktemp("s3-hosted")
    prefix = "e2e-" + uuid.uuid4().hex[:10]
    bucket, query = S3_URL.split("?", 1)
    env = {**_environment(workdir),
           "HOSTED_ARTIFACT_STORE": f"{bucket}/{prefix}?{query}",
           "HOSTED_S3_ACCESS_KEY_ID": os.environ["HOSTED_TEST_S3_ACCESS_KEY_ID"],
           "HOSTED_S3_SECRET_ACCESS_KEY": os.environ["HOSTED_TEST_S3_SECRET_ACCESS_KEY"],
           "HOSTED_SWEEP_INTERVAL": "1"}
    process, public_url, stderr_path = start_on_a_free_port(binary, env, workdir)
    env = {**env, "HOSTED_PUBLIC_URL": public_url}
    try:
        created = _create_account(binary, env, workdir)
        server = JourneyServer(base_url=public_url, api_key=created["api_key"], account_id=created["account_id"],
                               stderr_path=stderr_path, binary=binary, cli_env=env)
        _api(server, "POST", "/v1/workflows", STEPS_WORKFLOW, expected=(201,))
        ready = requests.get(public_url + "/readyz", timeout=10)
        assert ready.status_code == 200, f"/readyz with a working store: {ready.status_code} {ready.text[:300]}"
        yield server, prefix
    finally:
        stop_server(process, stderr_path)
    log = server.log_text()
    assert os.environ["HOSTED_TEST_S3_SECRET_ACCESS_KEY"] not in log, "the S3 secret is in the server log"


def test_whole_journey_with_photos_in_object_storage(browsers, s3_hosted, request, capsys):
    server, prefix = s3_hosted
    user_id = f"e2e-s3-{uuid.uuid4().hex[:8]}"
    verification = _api(server, "POST", "/v1/verifications", {"user_id": user_id, "workflow": "kyc", "mobile": MOBILE},
                        expected=(201,))
    vid = verification["id"]
    driver = browsers()
    open_signed_in(driver, server, verification)
    on_step(driver, "profile")
    fill_profile(driver)
    take_photos(driver, "selfie", 1)
    take_photos(driver, "premises_photos", 2)
    on_review(driver).click()
    deadline = time.monotonic() + 30
    while fetch(server, vid)["status"] != "submitted":
        assert time.monotonic() < deadline, "the verification was never submitted"
        time.sleep(1.1)  # the API's polling limit: 1 per second

    # 1. Downloads through Hosted: real phone-sized JPEGs (check_submitted checks them).
    sizes = check_submitted(server, vid)
    steps = {step["id"]: step["artifacts"] for step in fetch(server, vid)["steps"]}
    photos = steps["selfie"] + steps["premises_photos"]

    # 2. The bucket: one sealed object per photo, under ids only.
    objects = objects_under(prefix)
    expected = {f"{prefix}/{server.account_id}/{vid}/{artifact}" for artifact in photos}
    assert set(objects) == expected, f"objects in the bucket: {sorted(objects)}"
    for key, head in objects.items():
        assert head != "ffd8ff", f"{key} is a JPEG at rest"
        assert user_id not in key and MOBILE.lstrip("+") not in key

    # 3. The console shows the photos, read from the store.
    console = Console(server=server, foreign_account_id="", binary=server.binary, env=server.cli_env)
    reviewer = console.new_operator("s3-reviewer", "reviewer")
    console.set_up(reviewer)
    open_as(driver, console, reviewer, f"/console/verifications/{vid}?lang=en")
    wait_state(driver, "detail")
    images = wait_images_loaded(driver, len(photos))
    assert len(images) >= len(photos) and all(image["width"] > 0 for image in images), images

    # 4. Redaction: 410 at once; the sweeper (every second here) deletes the objects.
    _api(server, "POST", f"/v1/verifications/{vid}/decision", {"decision": "rejected"}, expected=(200,))
    _api(server, "POST", f"/v1/verifications/{vid}/redact", None, expected=(200,))
    for artifact in photos:
        gone = requests.get(f"{server.base_url}/v1/verifications/{vid}/artifacts/{artifact}", headers=server.auth_headers,
                            timeout=10)
        assert gone.status_code == 410 and gone.json()["code"] == "artifact_redacted", gone.text[:300]
    deadline = time.monotonic() + 20
    while objects_under(prefix):
        assert time.monotonic() < deadline, f"objects left after the redaction: {sorted(objects_under(prefix))}"
        time.sleep(0.5)
    with capsys.disabled():
        print(f"\n  [s3] journey with photos in Swift's S3 API: {len(photos)} sealed objects, sizes {sizes}, "
              "shown in the console, gone after the redaction")
