"""While the app starts, its address serves "Warrant is starting: building the index (n of m files)"."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import time

import httpx

from scenarios.bench.concurrency_http import free_port, stop_process
from tests.conftest import REPO, subprocess_env
from ui.starting import StartingPage


def test_the_page_says_how_many_files_are_read_and_what_the_index_is_doing():
    page = StartingPage()
    assert "Loading" in page.status
    page.update("reading fees.md (3 of 10 files)")
    assert page.status.startswith("Building the index (3 of 10 files)")
    page.update("embedding 80 chunks")
    assert page.status == "Building the index (3 of 10 files): embedding 80 chunks…"
    page.update("reading <b>x</b>.md (4 of 10 files)")
    assert "<b>" not in page.page().decode() and "&lt;b&gt;" in page.page().decode()


def test_any_request_gets_a_503_that_refreshes_itself():
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    asyncio.run(StartingPage()({"type": "http", "method": "GET", "path": "/config"}, receive, send))
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 503 and headers[b"retry-after"] == b"2"
    assert b'http-equiv="refresh"' in sent[1]["body"] and b"Warrant is starting" in sent[1]["body"]


def test_the_first_start_serves_the_starting_page_until_the_index_is_built(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for path in sorted((REPO / "data" / "policies").glob("*.md"))[:6]:
        shutil.copy(path, docs / path.name)
    port = free_port()
    env = subprocess_env(tmp_path / "home")
    env.update(PORT=str(port), WARRANT_DOCS=str(docs), WARRANT_HOST="127.0.0.1", WARRANT_DEMO_PASSWORD="x" * 12)
    env.pop("GRADIO_SERVER_PORT", None)
    base = f"http://127.0.0.1:{port}"
    statuses: list[str] = []
    with open(tmp_path / "app.log", "w") as log:
        proc = subprocess.Popen([sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    response = httpx.get(base + "/login", timeout=5)
                except httpx.HTTPError:
                    time.sleep(0.1)
                    continue
                if response.status_code == 200:
                    break
                assert response.status_code == 503 and "Warrant is starting" in response.text
                statuses += re.findall(r'<p id="warrant-starting">([^<]*)</p>', response.text)
                time.sleep(0.1)
            assert httpx.get(base + "/login", timeout=5).status_code == 200, (tmp_path / "app.log").read_text()[-2000:]
        finally:
            stop_process(proc)
    assert statuses, "the address answered nothing before the login page"
    building = [s for s in statuses if s.startswith("Building the index (")]
    assert building and any(re.search(r"\(\d of 6 files\)", s) for s in building), statuses
