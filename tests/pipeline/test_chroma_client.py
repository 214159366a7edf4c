"""Chroma in client/server mode beside the embedded default, and what the embedded store cannot do.

The server is real: `chroma run` from the installed chromadb, on a free loopback port.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.ground.config import load_config
from pipeline.retrieve.chroma_client import ChromaUnavailable, IndexInUse, claim_embedded_index, open_chroma
from scenarios.bench.chroma_server import free_port, running_chroma_server
from tests.conftest import REPO, TINY_FEES


def test_a_malformed_chroma_url_names_the_variable(monkeypatch):
    monkeypatch.setenv("WARRANT_CHROMA_URL", "localhost:8000")
    with pytest.raises(ValueError, match="WARRANT_CHROMA_URL"):
        load_config()


def test_chroma_url_and_token_are_read(monkeypatch):
    monkeypatch.setenv("WARRANT_CHROMA_URL", "http://10.0.0.5:8123/")
    monkeypatch.setenv("WARRANT_CHROMA_TOKEN", "s3cret")
    config = load_config()
    assert (config.chroma_url, config.chroma_token, config.chroma_collection) == (
        "http://10.0.0.5:8123",
        "s3cret",
        "warrant_chunks",
    )


def test_no_server_at_the_url_says_what_to_do(tmp_path: Path):
    config = replace(load_config().with_home(tmp_path), chroma_url=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(ChromaUnavailable, match="chroma run"):
        open_chroma(config)


def test_engines_in_two_places_share_an_index_on_a_chroma_server(tmp_path: Path, tiny_docs: Path, embed_model):
    """Engine B, opened before engine A changes the corpus, answers from A's change at once:
    the new chunk through the server, A's term statistics through the shared file."""
    from pipeline.engine import AnswerEngine

    with running_chroma_server(tmp_path / "chroma-server") as url:
        config = replace(load_config().with_home(tmp_path / "home"), chroma_url=url)
        writer = AnswerEngine(config, embed_model=embed_model)
        writer.ingest(tiny_docs)
        reader = AnswerEngine(config, embed_model=embed_model)
        assert not (tmp_path / "home" / "chroma" / "chroma.sqlite3").exists()  # the index is on the server
        assert "Rs. 500" in reader.ask("What is the revaluation fee?", log=False).text

        (tiny_docs / "fees.md").write_text(TINY_FEES.replace("Rs. 500", "Rs. 800"), encoding="utf-8")
        writer.ingest(tiny_docs)
        answer = reader.ask("What is the revaluation fee?", log=False)
        assert answer.decision == "answer" and "Rs. 800" in answer.text
        assert reader.stats.knows("800") and not reader.stats.knows("500")  # A's counts, adopted


_PROBE = textwrap.dedent("""
    import sys, chromadb
    from chromadb.config import Settings
    client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("probe", metadata={"hnsw:space": "cosine"})
    if sys.argv[2] == "add":
        start = int(sys.argv[3])
        col.add(ids=[f"v{i}" for i in range(start, start + 20)],
                embeddings=[[1.0, float(i), 0.5] for i in range(start, start + 20)])
    else:
        found = lambda: len(col.query(query_embeddings=[[1.0, 1.0, 0.5]], n_results=100)["ids"][0])
        print(col.count(), found(), flush=True)
        sys.stdin.readline()  # another process adds vectors meanwhile
        print(col.count(), found(), flush=True)
""")


def test_embedded_chroma_in_a_second_process_searches_a_stale_index(tmp_path: Path):
    """Why several processes need the Chroma server (measured with chromadb 1.5.9): a process that
    opened the embedded store sees another process's additions in count() but not in its search.
    If a chromadb upgrade makes this fail, the embedded store may serve several processes."""
    probe = tmp_path / "probe.py"
    probe.write_text(_PROBE, encoding="utf-8")
    db = str(tmp_path / "db")
    subprocess.run([sys.executable, str(probe), db, "add", "0"], check=True, timeout=120)
    reader = subprocess.Popen(
        [sys.executable, str(probe), db, "search"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert reader.stdin is not None and reader.stdout is not None
    try:
        before = reader.stdout.readline().split()
        subprocess.run([sys.executable, str(probe), db, "add", "20"], check=True, timeout=120)
        reader.stdin.write("\n")
        reader.stdin.flush()
        after = reader.stdout.readline().split()
    finally:
        reader.kill()
        reader.wait(timeout=30)
    assert before == ["20", "20"]
    assert after == ["40", "20"]  # count() sees 40 vectors; the search still finds the first 20 only


_CLAIM = textwrap.dedent("""
    import sys, time
    from pipeline.retrieve.chroma_client import claim_embedded_index
    from pipeline.ground.config import load_config
    lock = claim_embedded_index(load_config().with_home(sys.argv[1]))
    print("held", flush=True)
    sys.stdin.readline()
""")


def test_a_second_serving_process_on_an_embedded_index_is_refused(tmp_path: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", _CLAIM, str(tmp_path)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        config = load_config().with_home(tmp_path)
        with pytest.raises(IndexInUse, match="WARRANT_CHROMA_URL"):
            claim_embedded_index(config)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    lock = claim_embedded_index(config)  # released when the holder died
    assert lock is not None and lock.is_locked
    lock.release()


def test_the_token_goes_to_the_server_as_a_bearer_header(tmp_path: Path):
    """A recording HTTP server on loopback stands in for a proxy in front of Chroma."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str | None] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server dispatches to
            seen.append(self.headers.get("Authorization"))
            body = json.dumps({"nanosecond heartbeat": 1}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = replace(
            load_config().with_home(tmp_path),
            chroma_url=f"http://127.0.0.1:{server.server_port}",
            chroma_token="s3cret-token",
        )
        try:
            open_chroma(config)
        except ChromaUnavailable:
            pass  # the recorder is not a whole Chroma; only the requests it saw matter here
    finally:
        server.shutdown()
        server.server_close()
    assert seen and all(header == "Bearer s3cret-token" for header in seen), seen
