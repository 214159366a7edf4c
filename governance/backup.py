"""One archive of a state directory, taken while the app runs, and restored into a new directory.

`python -m governance backup create PATH` writes a gzipped tar (mode 0600: it holds password
hashes, users' memory and the cookie secret) with:

- `state/`: accounts, tickets, settings (τ, the audit chain's genesis marker), the audit log and its
  head, the query log, every user's memory file, claim proofs, the cookie secret and the demo
  passwords where they exist, and a pending change journal if a crash left one;
- `index/chunks.jsonl`: every chunk of the document library, active and deprecated, with its text,
  metadata (audience included) and embedding, as Chroma holds them; `index/sentence_vectors.jsonl`
  the stored sentence vectors. A restore writes them back as they were: no model, no re-embedding,
  the same chunks and so the same answers;
- `manifest.json`: the format, what was counted, and each member's sha256.

A consistent snapshot under the state locks (pipeline.ground.storage.lock_for): the index is read
while holding the lock every corpus change holds (ticket decisions, document changes), so no
approval or upload is half in it; the audit log, its head and the settings file (the genesis
marker) are read together under the audit log's lock, with the accounts and tickets files under
theirs, so the chain and its anchors match; each user's file is read under its own lock; the query
log up to its last complete line. Chat goes on meanwhile; a ticket decision or a document change
waits for the index to be read.

`python -m governance backup restore PATH` refuses a state directory that is not empty, an archive
whose members do not match its manifest, or whose audit chain does not verify with the audit key
(`WARRANT_AUDIT_KEY`, else the archive's cookie secret or `WARRANT_SECRET`). It extracts into a
folder beside the target, checks, rebuilds the index there (or in an empty collection of the
configured Chroma server), then renames it into place, and appends a `backup_restored` record.
Term statistics are counted again at the first start.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from governance.audit import AuditLog, VerifyResult
from pipeline.ground.config import Config
from pipeline.ground.keys import audit_key
from pipeline.ground.storage import FILE_MODE, fsync_dir, lock_for, tighten_permissions
from pipeline.ingest.sentence_vectors import SentenceVectorStore
from pipeline.retrieve.chroma_client import open_chroma

FORMAT = 1
MANIFEST = "manifest.json"
CHUNKS = "index/chunks.jsonl"
SENTENCES = "index/sentence_vectors.jsonl"
AUDIT_FILES = ("audit.jsonl", "audit.jsonl.head", "settings.json")  # settings: the genesis marker
LOCKED_FILES = ("accounts.json", "tickets.json")
PLAIN_FILES = ("secret.key", "demo_passwords.txt", "apply_journal.json", "documents_journal.json")
QUERY_LOG = "query_log.jsonl"
FOLDERS = ("users", "proofs")
_BATCH = 1000
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")


class BackupRefused(ValueError):
    """A backup or restore that was not made; the message says why and what to do."""


@dataclass(frozen=True)
class BackupReport:
    archive: Path
    home: Path
    chunks: int
    sentence_rows: int
    files: int
    audit: VerifyResult

    def summary(self, restored: bool = False) -> str:
        chain = (
            f"audit chain intact ({self.audit.records} records)"
            if self.audit.ok
            else f"audit chain BROKEN at line {self.audit.broken_line}: {self.audit.problem}"
        )
        what = f"{self.chunks} chunks, {self.sentence_rows} sentence vector rows, {self.files} state files; {chain}"
        if restored:
            return f"Restored {self.archive} into {self.home}: {what}."
        return f"Backed up {self.home} to {self.archive}: {what}."


def _allowed(name: str) -> bool:
    if name in (MANIFEST, CHUNKS, SENTENCES):
        return True
    parts = name.split("/")
    if len(parts) == 2 and parts[0] == "state":
        return parts[1] in AUDIT_FILES + LOCKED_FILES + PLAIN_FILES + (QUERY_LOG,)
    return len(parts) == 3 and parts[0] == "state" and parts[1] in FOLDERS and bool(_NAME.fullmatch(parts[2]))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _write_private(path: Path, data: bytes | IO[bytes]) -> None:
    """Write bytes, or copy a stream, to a new owner-only file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as fh:
        if isinstance(data, bytes):
            fh.write(data)
        else:
            shutil.copyfileobj(data, fh, 1 << 20)


# -- the index ----------------------------------------------------------------------------------------
def _collection(config: Config, create: bool):
    client = open_chroma(config)
    if create:
        return client.get_or_create_collection(config.chroma_collection, metadata={"hnsw:space": "cosine"})
    try:
        return client.get_collection(config.chroma_collection)
    except Exception:  # chromadb raises NotFoundError or ValueError by version: no index yet
        return None


def _export_chunks(collection, out: Path) -> int:
    count = 0
    with open(out, "w", encoding="utf-8") as fh:
        if collection is None:
            return 0
        offset = 0
        while True:
            got = collection.get(include=["documents", "metadatas", "embeddings"], limit=_BATCH, offset=offset)
            ids = got["ids"]
            if not ids:
                return count
            for i, chunk_id in enumerate(ids):
                vector = np.asarray(got["embeddings"][i], dtype="<f4")
                record = {
                    "id": chunk_id,
                    "document": got["documents"][i],
                    "metadata": got["metadatas"][i],
                    "embedding": base64.b64encode(vector.tobytes()).decode("ascii"),
                }
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += len(ids)
            offset += len(ids)


def _export_sentences(chroma_dir: Path, out: Path) -> int:
    count = 0
    with open(out, "w", encoding="utf-8") as fh:
        if not (chroma_dir / "warrant_sentence_vectors.sqlite").exists():
            return 0
        store = SentenceVectorStore(chroma_dir, _no_embedding)
        try:
            for chunk_id, sentences, dims, blob in store.all_rows():
                row = {"chunk_id": chunk_id, "sentences": sentences, "dims": dims}
                row["vectors"] = base64.b64encode(blob).decode("ascii")
                fh.write(json.dumps(row) + "\n")
                count += 1
        finally:
            store.close()
    return count


def _no_embedding(texts: list[str]) -> list[list[float]]:
    raise RuntimeError("a backup or restore copies stored vectors; it never embeds")


def _jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _import_index(config: Config, staged: Path) -> tuple[int, int]:
    """Chunks into the configured collection (which must be empty), sentence vectors beside it."""
    collection = _collection(config, create=True)
    if collection.count():
        raise BackupRefused(
            f"The Chroma collection {config.chroma_collection!r} already holds {collection.count()} chunks; "
            "restore into an empty one (WARRANT_CHROMA_COLLECTION names another)."
        )
    chunks = 0
    batch: list[dict] = []
    for record in [*_jsonl(staged / CHUNKS), None]:
        if record is not None:
            batch.append(record)
        if batch and (record is None or len(batch) == _BATCH):
            collection.add(
                ids=[r["id"] for r in batch],
                documents=[r["document"] for r in batch],
                metadatas=[r["metadata"] for r in batch],
                embeddings=[np.frombuffer(base64.b64decode(r["embedding"]), dtype="<f4") for r in batch],
            )
            chunks += len(batch)
            batch = []
    store = SentenceVectorStore(config.chroma_dir, _no_embedding)
    rows = [
        (r["chunk_id"], int(r["sentences"]), int(r["dims"]), base64.b64decode(r["vectors"]))
        for r in _jsonl(staged / SENTENCES)
    ]
    try:
        store.put_rows(rows)
    finally:
        store.close()
    return chunks, len(rows)


# -- creating -----------------------------------------------------------------------------------------
def _copy_locked_files(home: Path, state: Path) -> int:
    """The audit log, head and settings together under the audit lock, accounts and tickets under
    theirs; then each user's file under its own lock; the rest as they are."""
    copied = 0
    with ExitStack() as held:
        for name in ("audit.jsonl", *[n for n in AUDIT_FILES if n != "audit.jsonl"], *LOCKED_FILES):
            held.enter_context(lock_for(home / name))
        for name in AUDIT_FILES + LOCKED_FILES + PLAIN_FILES:
            if (home / name).is_file():
                _write_private(state / name, (home / name).read_bytes())
                copied += 1
    for folder in FOLDERS:
        for path in sorted((home / folder).glob("*")) if (home / folder).is_dir() else []:
            if not path.is_file() or not _NAME.fullmatch(path.name) or path.name.endswith((".lock", ".tmp", ".bak")):
                continue
            if folder == "users":
                with lock_for(path):
                    data = path.read_bytes()
            else:
                data = path.read_bytes()  # proofs are written once, under generated names
            _write_private(state / folder / path.name, data)
            copied += 1
    log = home / QUERY_LOG
    if log.is_file():
        data = log.read_bytes()
        _write_private(state / QUERY_LOG, data[: data.rfind(b"\n") + 1])  # complete lines only
        copied += 1
    return copied


def _verify_staged(config: Config, state: Path) -> VerifyResult:
    """The audit chain of a staged state folder, with the key it was written with."""
    if not (state / "audit.jsonl").exists() and not (state / "audit.jsonl.head").exists():
        return VerifyResult(True, 0)
    key = audit_key(config.with_home(state), create=False)
    return AuditLog(state / "audit.jsonl", key=key or None).verify()


def create_backup(config: Config, archive: Path | str, actor: str = "system") -> BackupReport:
    """Write the archive of `config.home` to `archive` (replaced atomically); see the module doc."""
    home, archive = config.home, Path(archive).resolve()
    if not (home / "accounts.json").exists() and not (home / "audit.jsonl").exists():
        raise BackupRefused(f"{home} holds no Warrant state (no accounts, no audit log); check --home.")
    archive.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".warrant-backup-", dir=archive.parent))
    try:
        (staging / "index").mkdir()
        # Every corpus change holds this lock (ticket decisions, document changes): none is half in.
        with lock_for(home / "governance"):
            chunks = _export_chunks(_collection(config, create=False), staging / CHUNKS)
            rows = _export_sentences(config.chroma_dir, staging / SENTENCES)
            files = _copy_locked_files(home, staging / "state")
        verified = _verify_staged(config, staging / "state")
        members = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
        manifest = {
            "format": FORMAT,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "chunks": chunks,
            "sentence_rows": rows,
            "audit_records": verified.records,
            "audit_verified": verified.ok,
            "files": {m: _sha256(staging / m) for m in members},
        }
        tmp = archive.with_name(f".{archive.name}.{uuid.uuid4().hex}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
                data = json.dumps(manifest, indent=1).encode("utf-8")
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mode, info.mtime = len(data), FILE_MODE, int(time.time())
                tar.addfile(info, io.BytesIO(data))
                for member in members:
                    tar.add(staging / member, arcname=member, recursive=False)
                raw.flush()
                os.fsync(raw.fileno())
            os.replace(tmp, archive)
            fsync_dir(archive.parent)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    AuditLog(config.audit_path, key=audit_key(config)).append(
        "backup_created", actor, archive=archive.name, chunks=chunks, audit_records=verified.records
    )
    return BackupReport(archive, home, chunks, rows, files, verified)


# -- restoring ----------------------------------------------------------------------------------------
def _extract(archive: Path, into: Path) -> dict:
    """Every member of a checked archive into `into`; the manifest. Refuses names outside the
    archive's layout, links and other non-files, and members whose digest is not the manifest's."""
    try:
        tar = tarfile.open(archive, mode="r:gz")
    except (OSError, tarfile.TarError) as exc:
        raise BackupRefused(f"{archive} is not a Warrant backup (not a readable .tar.gz: {exc}).") from exc
    with tar:
        manifest: dict | None = None
        for member in tar:
            if not member.isfile() or not _allowed(member.name):
                raise BackupRefused(f"{archive}: unexpected member {member.name[:120]!r}; not a Warrant backup.")
            source = tar.extractfile(member)
            if source is None:
                raise BackupRefused(f"{archive}: member {member.name[:120]!r} cannot be read.")
            if member.name == MANIFEST:
                try:
                    manifest = json.loads(source.read(1 << 20))
                except ValueError as exc:
                    raise BackupRefused(f"{archive}: its manifest does not parse.") from exc
            else:
                _write_private(into / member.name, source)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupRefused(f"{archive}: no manifest of format {FORMAT}; not a Warrant backup of this version.")
    files = manifest.get("files") or {}
    found = sorted(p.relative_to(into).as_posix() for p in into.rglob("*") if p.is_file())
    if sorted(files) != found or any(_sha256(into / name) != digest for name, digest in files.items()):
        raise BackupRefused(f"{archive} is damaged: its members do not match its manifest.")
    return manifest


def _holds_state(home: Path) -> bool:
    return home.exists() and any(home.iterdir())


def restore_backup(config: Config, archive: Path | str) -> BackupReport:
    """Restore `archive` into `config.home`, which must be new or empty; see the module doc."""
    home, archive = config.home, Path(archive).resolve()
    if not archive.is_file():
        raise BackupRefused(f"{archive}: no such file.")
    if _holds_state(home):
        raise BackupRefused(
            f"{home} is not empty; restore into a new or empty state directory (--home), or move it aside first."
        )
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}.restore-", dir=home.parent))
    try:
        manifest = _extract(archive, staging)
        state = staging / "state"
        state.mkdir(exist_ok=True)
        verified = _verify_staged(config, state)
        if not verified.ok:
            raise BackupRefused(
                f"{archive}: its audit chain does not verify (line {verified.broken_line}: {verified.problem}); "
                "nothing was restored. Check WARRANT_AUDIT_KEY is the key the log was written with."
            )
        if not verified.records and manifest.get("audit_records"):
            raise BackupRefused(f"{archive}: the manifest counts audit records the archive does not hold.")
        files = sum(1 for p in state.rglob("*") if p.is_file())
        if home.exists():
            home.rmdir()  # empty, checked above
        os.replace(state, home)
        fsync_dir(home.parent)
        try:  # in place, so the index's files are where the app will open them
            chunks, rows = _import_index(config, staging)
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)  # it was empty: leave it so
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    tighten_permissions(home)
    AuditLog(config.audit_path, key=audit_key(config)).append(
        "backup_restored", "system", archive=archive.name, chunks=chunks, audit_records=verified.records
    )
    return BackupReport(archive, home, chunks, rows, files, verified)
