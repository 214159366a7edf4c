"""The one way Warrant writes a JSON state file: atomically, under a cross-process lock, 0600.

Every TinyDB file (accounts, tickets, settings, each user's memory) goes through `JSONFile`:

- a write goes to a temporary file in the same folder (mode 0600), is fsynced, the previous
  version is kept as `.<name>.bak` (a hard link, no copy), the new file is `os.replace`d over the
  old one and the folder is fsynced, so a crash at any point leaves a complete file;
- every read-modify-write runs under a per-file lock that holds across threads (an `RLock`) and
  across processes (`filelock`, `<name>.lock` beside the file), so several app processes can
  share one state directory;
- a file that does not parse (a disk error, a hand edit, a write by an older version) is reported
  (logged, and listed by `damaged_files()`), moved aside as `<name>.damaged-<time>`, and the last
  good copy (`.bak`) is used in its place; when there is none the file starts empty.

This module lives in pipeline's ground (the bottom layer) because it imports nothing of Warrant:
`governance/` and `memory/` both use it without breaking the dependency direction.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock
from tinydb import TinyDB
from tinydb.storages import Storage

_LOG = logging.getLogger("warrant.storage")
FILE_MODE = 0o600
DIR_MODE = 0o700
LOCK_TIMEOUT_S = 60.0

_LOCKS: dict[str, _PathLock] = {}
_LOCKS_GUARD = threading.Lock()
_DAMAGED: list[dict] = []


class _PathLock:
    """A thread lock plus a file lock for one path; re-entrant within a thread."""

    def __init__(self, path: Path) -> None:
        self.thread_lock = threading.RLock()
        self.file_lock = FileLock(str(path.with_name(path.name + ".lock")), timeout=LOCK_TIMEOUT_S, mode=FILE_MODE)

    def __enter__(self) -> _PathLock:
        self.thread_lock.acquire()
        try:
            self.file_lock.acquire()
        except BaseException:
            self.thread_lock.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.file_lock.release()
        finally:
            self.thread_lock.release()


def lock_for(path: Path | str) -> _PathLock:
    """The one lock that serialises access to `path`, across threads and processes."""
    path = Path(path).resolve()
    key = str(path)
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = _LOCKS[key] = _PathLock(path)
        return lock


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable; not every platform allows opening a folder."""
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


def backup_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.bak")


def damaged_files() -> list[dict]:
    """Files found damaged (and recovered) since this process started: path, moved_to, recovered_from."""
    return list(_DAMAGED)


def write_atomic(path: Path | str, text: str, keep_backup: bool = True) -> None:
    """Replace `path` with `text` so that a crash leaves either the old or the new file, never half.

    The caller holds `lock_for(path)` when the content depends on what was read before.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if keep_backup and path.exists():
            _keep_backup(path)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _keep_backup(path: Path) -> None:
    """Keep the current (complete) version as `.<name>.bak`: a hard link where possible."""
    backup = backup_path(path)
    staged = path.with_name(f".{path.name}.{uuid.uuid4().hex}.bak.tmp")
    try:
        os.link(path, staged)
    except OSError:  # no hard links here (some network or FAT file systems): copy instead
        try:
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            with os.fdopen(fd, "wb") as fh:
                fh.write(path.read_bytes())
        except OSError:
            staged.unlink(missing_ok=True)
            return
    try:
        os.replace(staged, backup)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


def _parse(raw: str) -> Any:
    return json.loads(raw) if raw.strip() else None


def read_json(path: Path | str, expect: type = dict) -> Any:
    """The parsed content of `path` (None when missing or empty), recovering a damaged file.

    A file that does not parse, or does not hold an `expect`, is moved aside and reported; the
    last good copy is restored in its place (or the file starts empty). Never raises for damage.
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raw = "\x00"  # not text: damaged
    try:
        data = _parse(raw)
        if data is None or isinstance(data, expect):
            return data
    except ValueError:
        pass
    return _recover(path, expect)


def _recover(path: Path, expect: type) -> Any:
    with lock_for(path):
        # Another thread or process may have recovered it while we waited for the lock.
        try:
            data = _parse(path.read_text(encoding="utf-8"))
            if data is None or isinstance(data, expect):
                return data
        except (ValueError, UnicodeDecodeError, FileNotFoundError):
            pass
        moved = path.with_name(
            f"{path.name}.damaged-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
        )
        os.replace(path, moved)
        restored, data = None, None
        backup = backup_path(path)
        try:
            candidate = _parse(backup.read_text(encoding="utf-8"))
            if candidate is None or isinstance(candidate, expect):
                data, restored = candidate, backup
        except (ValueError, UnicodeDecodeError, FileNotFoundError):
            pass
        if restored is not None:
            write_atomic(path, backup.read_text(encoding="utf-8"))
        entry = {"path": str(path), "moved_to": str(moved), "recovered_from": str(restored) if restored else ""}
        _DAMAGED.append(entry)
        _LOG.error(
            "damaged state file %s moved to %s; %s",
            path,
            moved,
            f"restored the last good copy {restored}" if restored else "no good copy: starting empty",
        )
        return data


def check_file(path: Path | str) -> dict | None:
    """Read `path` once (recovering it if damaged); the damage report for it, or None when it was fine."""
    before = len(_DAMAGED)
    read_json(path)
    return _DAMAGED[-1] if len(_DAMAGED) > before else None


def delete_file(path: Path | str) -> bool:
    """Remove `path`, its last good copy, copies set aside as damaged and stray temporary files
    (erasure means all of them); True when the file existed."""
    path = Path(path)
    with lock_for(path):
        existed = path.exists()
        path.unlink(missing_ok=True)
        backup_path(path).unlink(missing_ok=True)
        for stray in [*path.parent.glob(f".{path.name}.*.tmp"), *path.parent.glob(f"{path.name}.damaged-*")]:
            stray.unlink(missing_ok=True)
        fsync_dir(path.parent)
        return existed


class AtomicJSONStorage(Storage):
    """A TinyDB storage over `write_atomic` / `read_json`: the whole file replaced on every write."""

    def __init__(self, path: str | Path, indent: int | None = None, **_ignored) -> None:
        super().__init__()
        self.path = Path(path)
        self.indent = indent

    def read(self) -> dict[str, dict[str, Any]] | None:
        return read_json(self.path)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        write_atomic(self.path, json.dumps(data, ensure_ascii=False, indent=self.indent))

    def close(self) -> None:  # nothing is held open between calls
        pass


class JSONFile:
    """One TinyDB file. Use `with store.open() as db:` for every read or write."""

    def __init__(self, path: Path | str, indent: int | None = None) -> None:
        self.path = Path(path)
        self.indent = indent
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = lock_for(self.path)

    @contextmanager
    def open(self) -> Iterator[TinyDB]:
        """The database, held under the file's lock (threads and processes) for the whole block."""
        with self._lock:
            db = TinyDB(self.path, storage=AtomicJSONStorage, indent=self.indent)
            try:
                yield db
            finally:
                db.close()

    def exists(self) -> bool:
        return self.path.exists()

    def delete(self) -> bool:
        return delete_file(self.path)


class JSONDocument:
    """A small JSON object file (settings): read, and update under the lock."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = lock_for(self.path)

    def read(self) -> dict:
        return read_json(self.path) or {}

    def update(self, changes: dict) -> dict:
        with self._lock:
            data = self.read()
            data.update(changes)
            write_atomic(self.path, json.dumps(data, indent=1, ensure_ascii=False))
            return data


def tighten_permissions(home: Path | str) -> int:
    """Make the state directory and its folders 0700 and its files owner-only; returns how many changed.

    Files written before this version (or by libraries such as chromadb) may be group- or
    world-readable; the owner's own bits are kept.
    """
    changed = 0
    for root, _dirs, files in os.walk(Path(home)):
        paths = [(root, True)] + [(os.path.join(root, name), False) for name in files]
        for name, is_dir in paths:
            try:
                st = os.lstat(name)
            except OSError:
                continue
            if os.path.islink(name):
                continue
            wanted = DIR_MODE if is_dir else (st.st_mode & 0o700) | 0o600
            if st.st_mode & 0o777 != wanted:
                os.chmod(name, wanted)
                changed += 1
    return changed
