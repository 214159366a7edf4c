"""Start `python app.py` as a subprocess on a free loopback port (shared by the browser and API tests).

The first start in a test session ingests data/policies (slow on a loaded machine); later starts
copy that state directory, so they only load the model.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from scenarios.bench.concurrency_http import free_port, stop_process
from tests.conftest import REPO, subprocess_env

DEMO_PASSWORD = "demo-pass-for-tests-123"
_STATE_OF_A_RUN = shutil.ignore_patterns(
    "users",
    "accounts.json",
    ".accounts.json.bak",
    "audit.jsonl*",
    "secret.key",
    "query_log.jsonl",
    "feedback.json",
    "tickets.json",
    ".tickets.json.bak",
    "uploads",
    "proofs",
    "*.lock",
    "demo_passwords.txt",
    "settings.json",  # τ and the audit log's genesis marker (keyed with that run's secret)
    ".settings.json.bak",
)
_TEMPLATE: dict[str, Path] = {}


@contextmanager
def running_app(
    timeout_s: float = 600.0, extra_env: dict[str, str] | None = None, docs: Path | None = None
) -> Iterator[tuple[str, Path]]:
    """Yield (base URL, state directory) of a fresh app on a free port; stop it and clean up after.
    `extra_env`: more settings for the app (e.g. WARRANT_LLM_* pointing at a fake server).
    `docs`: serve that folder (WARRANT_DOCS), indexed at start, instead of the demo policies, whose
    index (copied from one demo start to the next) is then neither used nor kept."""
    root = Path(tempfile.mkdtemp(prefix="warrant-app-"))
    home = root / "home"
    demo = docs is None
    prebuilt = os.environ.get("WARRANT_TEST_HOME_TEMPLATE", "")  # an index built beforehand, to save the ingest
    if demo and "home" not in _TEMPLATE and prebuilt and Path(prebuilt, "chroma").is_dir():
        _TEMPLATE["home"] = Path(prebuilt)
    if demo and "home" in _TEMPLATE:
        shutil.copytree(_TEMPLATE["home"], home, ignore=_STATE_OF_A_RUN)
    port = free_port()
    env = subprocess_env(home)
    env.update(PORT=str(port), WARRANT_DEMO_PASSWORD=DEMO_PASSWORD, WARRANT_HOST="127.0.0.1")
    env.pop("GRADIO_SERVER_PORT", None)
    if docs is not None:
        env["WARRANT_DOCS"] = str(docs)
    env.update(extra_env or {})
    log = open(root / "app.log", "w")
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError("app.py exited early:\n" + (root / "app.log").read_text())
            try:
                if httpx.get(base + "/login", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("app.py did not start in time:\n" + (root / "app.log").read_text())
            time.sleep(1)
        if demo and "home" not in _TEMPLATE:
            template = Path(tempfile.mkdtemp(prefix="warrant-template-")) / "home"
            shutil.copytree(home, template, ignore=_STATE_OF_A_RUN)
            _TEMPLATE["home"] = template
            atexit.register(shutil.rmtree, template.parent, True)
        yield base, home
    finally:
        stop_process(proc)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def login(client: httpx.Client, base: str, username: str, password: str = DEMO_PASSWORD) -> httpx.Response:
    return client.post(base + "/login", data={"username": username, "password": password}, follow_redirects=False)


def call(client: httpx.Client, base: str, api_name: str, *data) -> tuple[str, object]:
    """Call a gradio endpoint by api_name over plain HTTP: (event, decoded data) of the final event."""
    started = client.post(f"{base}/gradio_api/call/{api_name}", json={"data": list(data)})
    if started.status_code != 200:
        return f"http {started.status_code}", started.text
    event_id = started.json()["event_id"]
    stream = client.get(f"{base}/gradio_api/call/{api_name}/{event_id}", timeout=120)
    event, payload = "", None
    for line in stream.text.splitlines():
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            raw = line.split(":", 1)[1].strip()
            payload = json.loads(raw) if raw and raw != "null" else None
    return event, payload
