"""Which Chroma the index talks to: the embedded store under `<home>/chroma`, or a Chroma server.

The embedded `PersistentClient` (the default) is for one serving process. Measured with chromadb
1.5.9 (tests/pipeline/test_chroma_client.py): a second process on the same directory sees another
process's writes in `count()` and `get()` (SQLite), but its vector search keeps the HNSW index it
loaded at start, so chunks added by an approved ticket elsewhere are never retrieved until it
restarts. Several app processes, on one machine or several, therefore share one index through a
Chroma server (`chroma run --path DIR --port 8000`, `WARRANT_CHROMA_URL=http://host:8000`), and
`claim_embedded_index` keeps a second app process off an embedded index that one already serves.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import chromadb
from chromadb.api import ClientAPI
from chromadb.config import Settings as ChromaSettings
from filelock import BaseFileLock, FileLock, Timeout

from pipeline.ground.config import Config


class ChromaUnavailable(RuntimeError):
    """The configured Chroma server did not answer."""


def _settings() -> ChromaSettings:
    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def open_chroma(config: Config) -> ClientAPI:
    """The client `config` asks for: `HttpClient` when `chroma_url` is set, else `PersistentClient`."""
    if not config.chroma_url:
        config.chroma_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(config.chroma_dir), settings=_settings())
    url = urlsplit(config.chroma_url)
    ssl = url.scheme == "https"
    headers = {"Authorization": f"Bearer {config.chroma_token}"} if config.chroma_token else None
    try:
        client = chromadb.HttpClient(
            host=url.hostname or "",
            port=url.port or (443 if ssl else 8000),
            ssl=ssl,
            headers=headers,
            settings=_settings(),
        )
        client.heartbeat()
    except Exception as exc:  # chromadb raises plain ValueError/ConnectionError/httpx errors here
        raise ChromaUnavailable(
            f"No Chroma server answered at WARRANT_CHROMA_URL={config.chroma_url} ({type(exc).__name__}: {exc}). "
            "Start one with `chroma run --path DIR --port PORT`, or unset WARRANT_CHROMA_URL to use the "
            "embedded index under WARRANT_HOME."
        ) from exc
    return client


class IndexInUse(RuntimeError):
    """Another app process already serves this embedded index."""


def claim_embedded_index(config: Config) -> BaseFileLock | None:
    """For a serving process: hold `<home>/chroma/serving.lock` for as long as it runs, so that a
    second app process on the same embedded index stops at start instead of answering from a stale
    search index. None (nothing to hold) when the index is on a Chroma server. The operating system
    releases the lock when the process ends, however it ends.
    """
    if config.chroma_url:
        return None
    config.chroma_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(config.chroma_dir / "serving.lock"), timeout=0)
    try:
        lock.acquire()
    except Timeout as exc:
        raise IndexInUse(
            f"Another Warrant process already serves the embedded index in {config.chroma_dir}. A second "
            "process would not see the first one's index changes (approved tickets, documents). To run "
            "several processes, start a Chroma server (`chroma run --path DIR --port PORT`) and set "
            "WARRANT_CHROMA_URL in every process (README, Deployment)."
        ) from exc
    return lock
