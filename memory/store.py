"""One TinyDB file per user, written atomically and serialised by a per-file lock.

Gradio runs handlers in threads, and several `MemoryService` objects may exist in one process
(the app, the scenario runner, tests), so the lock lives in a module-level registry keyed by the
file's resolved path rather than on an instance. Every write goes to a temporary file in the same
folder, is fsynced, then `os.replace`d over the old file: a crash mid-write leaves the previous
content readable, never a truncated JSON file.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from tinydb import TinyDB
from tinydb.storages import Storage

_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(path: Path) -> threading.RLock:
    """The one lock that serialises access to `path` across every store object in this process."""
    key = str(Path(path).resolve())
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = _LOCKS[key] = threading.RLock()
        return lock


class AtomicJSONStorage(Storage):
    """A TinyDB storage that replaces the whole file atomically on every write."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)

    def read(self) -> dict[str, dict[str, Any]] | None:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        if not raw.strip():
            return None
        return json.loads(raw)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        serialised = json.dumps(data, ensure_ascii=False)
        tmp = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(serialised)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.path.parent)

    def close(self) -> None:  # nothing is held open between calls
        pass


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable; not every platform allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class UserStore:
    """Access to one user's file. Use `with store.open() as db:` for every read or write."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = lock_for(self.path)

    @contextmanager
    def open(self) -> Iterator[TinyDB]:
        """The user's database, held under the file's lock for the whole block."""
        with self._lock:
            db = TinyDB(self.path, storage=AtomicJSONStorage)
            try:
                yield db
            finally:
                db.close()

    def exists(self) -> bool:
        return self.path.exists()

    def delete(self) -> bool:
        """Remove the file (and any stray temporary files of it); True when something was removed."""
        with self._lock:
            removed = False
            if self.path.exists():
                self.path.unlink()
                removed = True
            for stray in self.path.parent.glob(f".{self.path.name}.*.tmp"):
                stray.unlink(missing_ok=True)
            return removed
