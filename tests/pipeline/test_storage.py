"""The one storage for every TinyDB file (issue 15, finding 5): atomic, locked across processes,
private, and a damaged file is reported and replaced by its last good copy instead of failing."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from pipeline.ground.storage import JSONFile, backup_path, check_file, read_json, tighten_permissions, write_atomic

REPO = Path(__file__).resolve().parents[2]

_WORKER = """
import sys
from pipeline.ground.storage import JSONFile
store = JSONFile(sys.argv[1], indent=1)
for _ in range(int(sys.argv[2])):
    with store.open() as db:
        row = db.get(doc_id=1)
        if row is None:
            db.insert({"n": 1, "pad": "x" * 2000})
        else:
            db.update({"n": row["n"] + 1}, doc_ids=[1])
"""


def test_files_are_written_private(tmp_path):
    path = tmp_path / "state.json"
    write_atomic(path, "{}")
    write_atomic(path, '{"a": 1}')
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(backup_path(path).stat().st_mode) == 0o600
    assert json.loads(backup_path(path).read_text()) == {}  # the previous version, kept


def test_damaged_file_is_reported_moved_aside_and_the_last_good_copy_used(tmp_path):
    path = tmp_path / "accounts.json"
    store = JSONFile(path)
    with store.open() as db:
        db.insert({"username": "admin"})
    with store.open() as db:
        db.insert({"username": "student"})
    path.write_text('{"_default": {"1": {"username": "adm', encoding="utf-8")  # a torn write
    report = check_file(path)
    assert report and report["recovered_from"].endswith(".accounts.json.bak")
    assert list(tmp_path.glob("accounts.json.damaged-*"))  # kept aside for a person to look at
    with store.open() as db:
        assert [r["username"] for r in db.all()] == ["admin"]  # the last good copy
    assert check_file(path) is None  # fine now


def test_damaged_file_without_a_good_copy_starts_empty_instead_of_failing(tmp_path):
    path = tmp_path / "tickets.json"
    path.write_bytes(b"\x00\x00garbage")
    assert read_json(path) is None
    with JSONFile(path).open() as db:
        assert db.all() == []


def test_processes_sharing_a_file_lose_no_update(tmp_path):
    path = tmp_path / "counter.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(path), "40"], env=env) for _ in range(3)]
    for worker in workers:
        assert worker.wait(timeout=120) == 0
    with JSONFile(path).open() as db:
        assert db.get(doc_id=1)["n"] == 120


def test_kill_9_in_the_middle_of_writes_never_leaves_an_unparseable_file(tmp_path):
    path = tmp_path / "accounts.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for run in range(8):
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        worker = subprocess.Popen([sys.executable, "-c", _WORKER, str(path), "100000"], env=env)
        deadline = time.monotonic() + 60
        while (not path.exists() or path.read_text(encoding="utf-8") == before) and time.monotonic() < deadline:
            time.sleep(0.01)  # writing has started
        time.sleep(0.05 + 0.037 * run)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        json.loads(path.read_text(encoding="utf-8"))  # complete every time
        assert check_file(path) is None


def test_tighten_permissions_fixes_older_state(tmp_path):
    home = tmp_path / "home"
    (home / "users").mkdir(parents=True)
    (home / "users" / "u.json").write_text("{}")
    os.chmod(home / "users" / "u.json", 0o644)
    os.chmod(home, 0o755)
    assert tighten_permissions(home) >= 2
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "users" / "u.json").stat().st_mode) == 0o600


def test_deleting_a_file_removes_every_copy_of_it(tmp_path):
    path = tmp_path / "u.json"
    write_atomic(path, "{}")
    write_atomic(path, '{"a": 1}')
    (tmp_path / "u.json.damaged-20260101T000000-abc").write_text("{x")
    from pipeline.ground.storage import delete_file

    assert delete_file(path)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == []
