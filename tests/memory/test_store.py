"""The per-user store: writes serialised across threads and store objects, atomic on crash."""

from __future__ import annotations

import json
import os
import threading

import pytest

from memory.store import AtomicJSONStorage, UserStore, lock_for


def test_many_threads_writing_to_one_store_lose_nothing(tmp_path):
    path = tmp_path / "u.json"
    stores = [UserStore(path) for _ in range(4)]  # separate objects, as separate services would hold

    def write(worker: int) -> None:
        for i in range(25):
            with stores[worker % 4].open() as db:
                db.table("conversations").insert({"worker": worker, "i": i})

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with UserStore(path).open() as db:
        rows = db.table("conversations").all()
    assert len(rows) == 8 * 25
    assert {(r["worker"], r["i"]) for r in rows} == {(w, i) for w in range(8) for i in range(25)}
    assert not list(tmp_path.glob(".*.tmp"))


def test_lock_is_shared_by_path_across_store_objects(tmp_path):
    assert lock_for(tmp_path / "a.json") is lock_for(tmp_path / "." / "a.json")
    assert lock_for(tmp_path / "a.json") is not lock_for(tmp_path / "b.json")


def test_crash_during_replace_keeps_previous_content(tmp_path, monkeypatch):
    path = tmp_path / "u.json"
    store = UserStore(path)
    with store.open() as db:
        db.table("facts").insert({"key": "advisor", "value": "Dr. Rao"})
    before = path.read_text(encoding="utf-8")

    def crash(*_args, **_kwargs):
        raise OSError("simulated power loss")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        with store.open() as db:
            db.table("facts").insert({"key": "advisor", "value": "Dr. Iyer"})
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == before
    assert not list(tmp_path.glob(".*.tmp"))
    with store.open() as db:
        assert [r["value"] for r in db.table("facts").all()] == ["Dr. Rao"]


def test_crash_midway_through_writing_the_temp_file_keeps_previous_content(tmp_path, monkeypatch):
    path = tmp_path / "u.json"
    store = UserStore(path)
    with store.open() as db:
        db.table("preferences").insert({"key": "length", "value": "brief"})
    before = json.loads(path.read_text(encoding="utf-8"))

    def die_before_sync(_fd):  # the new bytes are in the temp file, not yet durable or renamed
        raise OSError("simulated crash before fsync")

    monkeypatch.setattr(os, "fsync", die_before_sync)
    with pytest.raises(OSError):
        with store.open() as db:
            db.table("preferences").insert({"key": "format", "value": "bullets"})
    monkeypatch.undo()
    assert json.loads(path.read_text(encoding="utf-8")) == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_storage_reads_missing_or_empty_file_as_new_database(tmp_path):
    assert AtomicJSONStorage(tmp_path / "missing.json").read() is None
    (tmp_path / "empty.json").write_text("", encoding="utf-8")
    assert AtomicJSONStorage(tmp_path / "empty.json").read() is None
