"""One TinyDB file per user, through the shared atomic, locked storage (`pipeline.ground.storage`).

Gradio runs handlers in threads, several `MemoryService` objects may exist in one process (the
app, the scenario runner, tests) and several app processes may share one state directory, so the
lock is `pipeline.ground.storage.lock_for(path)`: one per resolved path, across threads and processes.
Every write replaces the whole file atomically (temporary file, fsync, rename, fsync of the
folder): a crash mid-write leaves the previous content readable, never a truncated JSON file. A
damaged file is moved aside and the user's last good copy used (or a fresh start), never an error.
"""

from __future__ import annotations

from pipeline.ground.storage import AtomicJSONStorage, JSONFile, lock_for


class UserStore(JSONFile):
    """Access to one user's file. Use `with store.open() as db:` for every read or write."""


__all__ = ["AtomicJSONStorage", "UserStore", "lock_for"]
