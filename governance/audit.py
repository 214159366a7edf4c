"""Append-only, hash-chained audit log (`<state>/audit.jsonl`).

Each record carries `prev_hash` (the previous record's `hash`, or 64 zeros for the first) and its
own `hash` = sha256 over the canonical JSON of the record without `hash`. Editing, deleting,
inserting or reordering any line breaks the chain at that line. Deleting the *last* lines leaves
a valid shorter chain, so each append also records the newest `seq` and `hash` in
`<state>/audit.jsonl.head`; `verify` checks that the log still reaches that record.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

GENESIS = "0" * 64
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def canonical(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_hash(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def _lock_for(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(path.resolve()), threading.Lock())


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    records: int
    broken_line: int | None = None
    problem: str = ""


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = _lock_for(self.path)

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
            }
            record["hash"] = record_hash(record)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(canonical(record) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self._write_head(record)
            return record

    @property
    def head_path(self) -> Path:
        return self.path.with_name(self.path.name + ".head")

    def _write_head(self, record: dict) -> None:
        tmp = self.head_path.with_name(self.head_path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(canonical({"seq": record["seq"], "hash": record["hash"]}))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.head_path)

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
        if not self.path.exists():
            if self._read_head():
                return VerifyResult(False, 0, 1, "the log file is missing but records were written")
            return VerifyResult(True, 0)
        prev = GENESIS
        count = 0
        hashes: dict[int, str] = {}
        with open(self.path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    return VerifyResult(False, count, number, "blank line inside the log")
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    return VerifyResult(False, count, number, "not valid JSON")
                if record.get("prev_hash") != prev:
                    return VerifyResult(False, count, number, "prev_hash does not match the record before it "
                                        "(a record was deleted, inserted or moved)")
                if record.get("hash") != record_hash(record):
                    return VerifyResult(False, count, number, "hash does not match the record's content (edited)")
                if record.get("seq") != count + 1:
                    return VerifyResult(False, count, number, f"sequence number {record.get('seq')} where {count + 1} was expected")
                prev = record["hash"]
                hashes[count + 1] = prev
                count += 1
        head = self._read_head()
        # A crash between the log's fsync and the head's may leave the head one record behind; a
        # head *ahead* of the log, or naming another hash, means records were cut from the end.
        if head and (head.get("seq", 0) > count or hashes.get(head.get("seq")) != head.get("hash")):
            return VerifyResult(False, count, count + 1, f"the log ends at record {count} but record "
                                f"{head.get('seq')} was written (records deleted from the end)")
        return VerifyResult(True, count)
