"""Append-only, keyed hash-chained audit log (`<state>/audit.jsonl`).

Each record carries `prev_hash` (the previous record's `hash`, or 64 zeros for the first) and its
own `hash` = HMAC-SHA256, under the audit key, of the canonical JSON of the record without
`hash` (`"alg": "hmac-sha256"`). Editing, deleting, inserting or reordering any line breaks the
chain at that line, and without the key nobody can recompute the hashes of an edited or forged
record. Deleting the *last* lines leaves a valid shorter chain, so each append also records the
newest `seq` and `hash`, with its own HMAC, in `<state>/audit.jsonl.head`; `verify` fails when
the head is missing, unkeyed or forged, or the log no longer reaches it.

Emptying the log and deleting its head leaves nothing to check, so the chain's existence is
pinned outside the log's own files: once a record is written, a keyed *genesis marker* (the first
record's hash, with its HMAC) is put in `<state>/settings.json` and in the head. The log's writer
only ever adds it where it is missing, never replaces it; `verify` fails when the marker or the
head says records were written and the log is empty or missing, when the log does not begin with
the record the marker names, or when one of the two copies is gone or forged. (Someone who
deletes the settings file too, and knows to, is out of reach of any check kept on the same disk.)

The key is `WARRANT_AUDIT_KEY`, else the cookie secret (`pipeline.ground.keys.audit_key`). Records
written before the chain was keyed (plain sha256, no `alg`) are accepted only as a prefix that
a keyed record and the keyed head pin.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from pipeline.ground.storage import FILE_MODE, JSONDocument, lock_for, write_atomic

GENESIS = "0" * 64
ALG = "hmac-sha256"
MARKER = "audit_genesis"  # the key of the genesis marker in the settings file


def canonical(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_hash(record: dict, key: bytes | None = None) -> str:
    """The record's hash: HMAC-SHA256 under `key` for keyed records, plain sha256 for legacy ones."""
    body = {k: v for k, v in record.items() if k != "hash"}
    data = canonical(body).encode("utf-8")
    if record.get("alg") == ALG:
        return hmac.new(key or b"", data, hashlib.sha256).hexdigest()
    return hashlib.sha256(data).hexdigest()


def head_mac(seq: int, digest: str, key: bytes, genesis: str = "") -> str:
    """The head's HMAC; a head written since the genesis marker also covers the first record's hash."""
    message = f"audit-head:{seq}:{digest}" + (f":{genesis}" if genesis else "")
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def genesis_mac(first_hash: str, key: bytes) -> str:
    return hmac.new(key, f"audit-genesis:{first_hash}".encode(), hashlib.sha256).hexdigest()


def _default_key(path: Path, create: bool) -> bytes:
    from pipeline.ground.config import load_config
    from pipeline.ground.keys import audit_key

    return audit_key(load_config().with_home(path.parent), create=create)


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    records: int
    broken_line: int | None = None
    problem: str = ""


class AuditLog:
    """The log at `path`, keyed with `key` (default: `WARRANT_AUDIT_KEY`, else the cookie secret of
    the log's folder), its genesis marker kept in `anchor` (default: `settings.json` beside the
    log). Appends hold a lock across threads and processes."""

    def __init__(self, path: Path, key: bytes | str | None = None, anchor: Path | None = None) -> None:
        self.path = Path(path)
        self._key = key.encode("utf-8") if isinstance(key, str) else key
        self._lock = lock_for(self.path)
        self.anchor = Path(anchor) if anchor is not None else self.path.with_name("settings.json")
        self._genesis = ""  # the first record's hash, once pinned

    def key(self, create: bool = True) -> bytes:
        if not self._key:
            self._key = _default_key(self.path, create) or None
        return self._key or b""

    def _last_hash(self) -> tuple[str, int]:
        if not self.path.exists():
            return GENESIS, 0
        last, seq = GENESIS, 0
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    record = json.loads(line)
                    last, seq = record["hash"], record["seq"]
        return last, seq

    def append(self, event: str, actor: str, **details) -> dict:
        """Write one record durably (flush + fsync) and return it."""
        with self._lock:
            prev, seq = self._last_hash()
            record = {
                "seq": seq + 1,
                "id": uuid.uuid4().hex,
                "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "event": event,
                "actor": actor,
                "details": details,
                "prev_hash": prev,
                "alg": ALG,
            }
            record["hash"] = record_hash(record, self.key())
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
            with os.fdopen(fd, "a", encoding="utf-8") as fh:
                fh.write(canonical(record) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self._write_head(record, self._pin(record))
            return record

    def _pin(self, record: dict) -> str:
        """The genesis marker (the first record's hash), written to the anchor where it is missing
        (the first record, or a log written before markers); never replaced."""
        if self._genesis:
            return self._genesis
        document = JSONDocument(self.anchor)
        with lock_for(self.anchor):
            marker = document.read().get(MARKER)
            if isinstance(marker, dict) and isinstance(marker.get("first_hash"), str):
                self._genesis = marker["first_hash"]
                return self._genesis
            first = record if record["seq"] == 1 else self.records()[0]
            key = self.key()
            document.update({MARKER: {"first_hash": first["hash"], "mac": genesis_mac(first["hash"], key)}})
            self._genesis = first["hash"]
        return self._genesis

    @property
    def head_path(self) -> Path:
        return self.path.with_name(self.path.name + ".head")

    def _write_head(self, record: dict, genesis: str) -> None:
        write_atomic(
            self.head_path,
            canonical(
                {
                    "seq": record["seq"],
                    "hash": record["hash"],
                    "genesis": genesis,
                    "alg": ALG,
                    "mac": head_mac(record["seq"], record["hash"], self.key(), genesis),
                }
            ),
            keep_backup=False,
        )  # an older head kept beside it would let the tail be cut

    def _read_marker(self) -> object:
        """The genesis marker in the anchor (None when there is none)."""
        return JSONDocument(self.anchor).read().get(MARKER) if self.anchor.exists() else None

    def _read_head(self) -> dict | None:
        try:
            head = json.loads(self.head_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        return head if isinstance(head, dict) else None

    def records(self) -> list[dict]:
        if not self.path.exists():
            return []
        with open(self.path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    def verify(self) -> VerifyResult:
        """Check every record's keyed hash and link, that the keyed head is reached, and that the
        log begins with the record its genesis marker names."""
        head = self._read_head()
        marker = self._read_marker()
        if not self.path.exists():
            if head or marker:
                return VerifyResult(False, 0, 1, "the log file is missing but records were written")
            return VerifyResult(True, 0)
        key = self.key(create=False)
        if not key:
            return VerifyResult(
                False, 0, 1, "no audit key: set WARRANT_AUDIT_KEY (or WARRANT_SECRET) as when the log was written"
            )
        genesis = ""
        if marker is not None:
            if (
                not isinstance(marker, dict)
                or not isinstance(marker.get("first_hash"), str)
                or not hmac.compare_digest(str(marker.get("mac", "")), genesis_mac(marker["first_hash"], key))
            ):
                return VerifyResult(
                    False,
                    0,
                    1,
                    f"the genesis marker in {self.anchor.name} is not keyed with the audit key (forged, or the "
                    "key is not the one it was written with)",
                )
            genesis = marker["first_hash"]
        prev = GENESIS
        count = 0
        keyed = False
        hashes: dict[int, str] = {}
        with open(self.path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    return VerifyResult(False, count, number, "blank line inside the log")
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    return VerifyResult(False, count, number, "not valid JSON")
                if not isinstance(record, dict):
                    return VerifyResult(False, count, number, "not a record")
                if record.get("prev_hash") != prev:
                    return VerifyResult(
                        False,
                        count,
                        number,
                        "prev_hash does not match the record before it (a record was deleted, inserted or moved)",
                    )
                if record.get("alg") == ALG:
                    keyed = True
                elif keyed or "alg" in record:
                    return VerifyResult(False, count, number, "an unkeyed record after keyed ones (forged)")
                if not hmac.compare_digest(str(record.get("hash", "")), record_hash(record, key)):
                    return VerifyResult(
                        False,
                        count,
                        number,
                        "hash does not match the record's content under the "
                        "audit key (edited or forged, or the key is not the one it was written with)",
                    )
                if record.get("seq") != count + 1:
                    return VerifyResult(
                        False, count, number, f"sequence number {record.get('seq')} where {count + 1} was expected"
                    )
                prev = record["hash"]
                hashes[count + 1] = prev
                count += 1
        if count == 0:
            if head or genesis:
                return VerifyResult(False, 0, 1, "the log is empty but records were written (emptied)")
            return VerifyResult(True, 0)
        if genesis and hashes[1] != genesis:
            return VerifyResult(
                False, count, 1, "the log does not begin with the record its genesis marker names (replaced)"
            )
        if head is None:
            return VerifyResult(
                False,
                count,
                count + 1,
                f"the head file {self.head_path.name} is missing or "
                "unreadable: records may have been deleted from the end",
            )
        seq, digest, head_genesis = head.get("seq"), head.get("hash"), head.get("genesis", "")
        if (
            head.get("alg") != ALG
            or not isinstance(seq, int)
            or not isinstance(digest, str)
            or not isinstance(head_genesis, str)
            or not hmac.compare_digest(str(head.get("mac", "")), head_mac(seq, digest, key, head_genesis))
        ):
            return VerifyResult(
                False,
                count,
                count + 1,
                "the head is not keyed with the audit key (forged, or "
                "written by an older version: the next recorded event keys it)",
            )
        if head_genesis and head_genesis != genesis:
            return VerifyResult(
                False,
                count,
                1,
                f"the head names a first record but the genesis marker in {self.anchor.name} "
                + ("is missing (removed)" if not genesis else "names another (replaced)"),
            )
        # A crash between the log's fsync and the head's may leave the head one record behind; a
        # head *ahead* of the log, or naming another hash, means records were cut from the end.
        if seq > count or seq < count - 1 or hashes.get(seq) != digest:
            return VerifyResult(
                False,
                count,
                count + 1,
                f"the log ends at record {count} but record {seq} was written (records deleted from the end)",
            )
        return VerifyResult(True, count)
