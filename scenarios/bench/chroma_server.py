"""A real Chroma server on loopback, for the multi-process bench row and the integration tests.

`running_chroma_server(path)` starts `chroma run --path PATH --host 127.0.0.1 --port FREE` (the CLI
installed with chromadb, beside this Python), waits for its heartbeat, yields its URL (what
`WARRANT_CHROMA_URL` takes) and always stops it. Bounded: a start deadline, loopback only.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"  # loopback only


def chroma_cli() -> str:
    """The `chroma` command of the chromadb installed with this interpreter (in .venv/bin)."""
    beside = Path(sys.executable).with_name("chroma")
    found = str(beside) if beside.exists() else shutil.which("chroma")
    if not found:
        raise RuntimeError("the `chroma` command of chromadb is not installed beside this Python; run `make install`")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _heartbeat(url: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{url}/api/v2/heartbeat", timeout=2, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def running_chroma_server(path: Path, log_path: Path | None = None, start_timeout_s: float = 60.0) -> Iterator[str]:
    """Yield the URL of a Chroma server persisting to `path`; it is stopped on the way out."""
    from scenarios.bench.concurrency_http import stop_process

    path.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://{HOST}:{port}"
    log_path = log_path or path.parent / f"{path.name}-chroma.log"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [chroma_cli(), "run", "--path", str(path), "--host", HOST, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + start_timeout_s
            while not _heartbeat(url):
                if proc.poll() is not None:
                    raise RuntimeError(f"chroma run exited ({proc.returncode}):\n{log_path.read_text()[-2000:]}")
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"chroma run did not answer in {start_timeout_s:.0f}s:\n{log_path.read_text()[-2000:]}"
                    )
                time.sleep(0.2)
            yield url
        finally:
            stop_process(proc)
