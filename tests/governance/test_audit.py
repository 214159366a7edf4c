"""The audit chain catches any edited, deleted, inserted or reordered line; the CLI reports it."""

from __future__ import annotations

import json

import pytest

from governance.__main__ import main
from governance.audit import AuditLog
from tests.conftest import run_module


@pytest.fixture()
def log(tmp_path) -> AuditLog:
    audit = AuditLog(tmp_path / "audit.jsonl")
    for n in range(5):
        audit.append("ticket_created", f"user{n}", ticket_id=f"T-{n}")
    return audit


def _lines(log: AuditLog) -> list[str]:
    return log.path.read_text(encoding="utf-8").splitlines(keepends=True)


def _write(log: AuditLog, lines: list[str]) -> None:
    log.path.write_text("".join(lines), encoding="utf-8")


def test_intact_log_verifies(log, capsys):
    assert log.verify().ok and log.verify().records == 5
    assert main(["audit", "verify", "--home", str(log.path.parent)]) == 0
    assert "OK: 5 records" in capsys.readouterr().out


def test_edited_line_is_caught(log, capsys):
    lines = _lines(log)
    record = json.loads(lines[2])
    record["actor"] = "mallory"
    lines[2] = json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"
    _write(log, lines)
    result = log.verify()
    assert not result.ok and result.broken_line == 3 and "edited" in result.problem
    assert main(["audit", "verify", "--home", str(log.path.parent)]) == 1
    assert "BROKEN at line 3" in capsys.readouterr().out


def test_deleted_line_is_caught(log):
    lines = _lines(log)
    del lines[1]
    _write(log, lines)
    assert log.verify().broken_line == 2


def test_deleted_last_line_is_caught(log):
    _write(log, _lines(log)[:-1])
    result = log.verify()
    assert not result.ok and "deleted from the end" in result.problem


def test_inserted_line_is_caught(log):
    lines = _lines(log)
    forged = json.loads(lines[1])
    forged["id"] = "forged"
    lines.insert(2, json.dumps(forged) + "\n")
    _write(log, lines)
    assert log.verify().broken_line == 3


def test_reordered_lines_are_caught(log):
    lines = _lines(log)
    lines[1], lines[2] = lines[2], lines[1]
    _write(log, lines)
    assert log.verify().broken_line == 2


def test_cli_runs_as_a_module(log):
    run = run_module("governance", "audit", "verify", "--home", str(log.path.parent), timeout=60)
    assert run.returncode == 0 and "OK" in run.stdout
    _write(log, _lines(log)[1:])
    run = run_module("governance", "audit", "verify", "--home", str(log.path.parent), timeout=60)
    assert run.returncode == 1 and "BROKEN at line 1" in run.stdout


# -- issue 15, finding 6: a keyed chain and a keyed head ----------------------------------------


def _rechain_unkeyed(records: list[dict]) -> list[str]:
    """What an attacker without the key can do: recompute every hash as plain sha256."""
    import hashlib

    from governance.audit import GENESIS, canonical

    prev, lines = GENESIS, []
    for seq, record in enumerate(records, start=1):
        body = {k: v for k, v in record.items() if k not in ("hash", "alg")}
        body.update(seq=seq, prev_hash=prev)
        body["hash"] = hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()
        prev = body["hash"]
        lines.append(canonical(body) + "\n")
    return lines


def test_records_are_keyed_with_the_audit_key(log):
    record = log.records()[0]
    assert record["alg"] == "hmac-sha256"
    other = AuditLog(log.path, key=b"another key")
    assert not other.verify().ok  # a different key cannot vouch for the log


def test_cutting_the_tail_together_with_the_head_is_caught(log):
    _write(log, _lines(log)[:-2])
    log.head_path.unlink()
    result = log.verify()
    assert not result.ok and "head" in result.problem
    assert main(["audit", "verify", "--home", str(log.path.parent)]) == 1


def test_an_edit_with_every_hash_and_the_head_recomputed_is_caught(log):
    records = [json.loads(line) for line in _lines(log)]
    records[2]["actor"] = "mallory"
    lines = _rechain_unkeyed(records)
    _write(log, lines)
    last = json.loads(lines[-1])
    log.head_path.write_text(json.dumps({"seq": last["seq"], "hash": last["hash"]}), encoding="utf-8")
    assert not log.verify().ok
    assert main(["audit", "verify", "--home", str(log.path.parent)]) == 1


def test_a_forged_role_change_appended_is_caught(log):
    import hashlib

    from governance.audit import canonical

    last = json.loads(_lines(log)[-1])
    forged = {
        "seq": last["seq"] + 1,
        "id": "f",
        "ts": last["ts"],
        "event": "role_change",
        "actor": "admin",
        "details": {"username": "mallory", "old": "user", "new": "admin"},
        "prev_hash": last["hash"],
        "alg": "hmac-sha256",
    }
    forged["hash"] = hashlib.sha256(canonical(forged).encode("utf-8")).hexdigest()
    _write(log, [*_lines(log), canonical(forged) + "\n"])
    log.head_path.write_text(json.dumps({"seq": forged["seq"], "hash": forged["hash"]}), encoding="utf-8")
    result = log.verify()
    assert not result.ok and result.broken_line == 6


def test_a_missing_or_unkeyed_head_is_a_failure(log):
    head = json.loads(log.head_path.read_text(encoding="utf-8"))
    log.head_path.write_text(json.dumps({"seq": head["seq"], "hash": head["hash"]}), encoding="utf-8")
    assert not log.verify().ok and "not keyed" in log.verify().problem
    log.head_path.unlink()
    assert not log.verify().ok


def test_the_key_comes_from_warrant_audit_key_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv("WARRANT_AUDIT_KEY", "kept-outside-the-state-directory")
    audit = AuditLog(tmp_path / "audit.jsonl")
    audit.append("ingest", "system")
    assert not (tmp_path / "secret.key").exists()  # no key was generated beside the log
    assert audit.verify().ok
    monkeypatch.setenv("WARRANT_AUDIT_KEY", "a different key")
    assert main(["audit", "verify", "--home", str(tmp_path)]) == 1


# -- issue 27, finding 5: an emptied log is not an intact one ------------------------------------


def _empty_it(log: AuditLog) -> None:
    """`: > audit.jsonl; rm audit.jsonl.head`"""
    log.path.write_text("", encoding="utf-8")
    log.head_path.unlink()


def test_an_emptied_log_without_its_head_fails_verification(log, capsys):
    _empty_it(log)
    result = log.verify()
    assert not result.ok and "emptied" in result.problem
    assert main(["audit", "verify", "--home", str(log.path.parent)]) == 1
    assert "BROKEN" in capsys.readouterr().out
    log.path.unlink()
    assert not log.verify().ok  # deleted outright: the same


def test_an_emptied_log_stays_broken_after_new_records(log):
    _empty_it(log)
    fresh = AuditLog(log.path)  # a new process writes on: the marker is not replaced
    fresh.append("ticket_created", "mallory", ticket_id="T-9")
    result = fresh.verify()
    assert not result.ok and "genesis marker" in result.problem


def test_the_genesis_marker_cannot_be_removed_or_forged(log):
    settings = log.path.parent / "settings.json"
    pinned = json.loads(settings.read_text(encoding="utf-8"))
    settings.write_text(json.dumps({"tau": 0.5}), encoding="utf-8")
    assert "missing" in log.verify().problem
    forged = {"tau": 0.5, "audit_genesis": {"first_hash": pinned["audit_genesis"]["first_hash"], "mac": "0" * 64}}
    settings.write_text(json.dumps(forged), encoding="utf-8")
    assert "forged" in log.verify().problem
    settings.write_text(json.dumps(pinned), encoding="utf-8")
    assert log.verify().ok


def test_a_log_written_before_markers_is_pinned_at_its_next_record(tmp_path):
    from governance.audit import canonical, head_mac

    log = AuditLog(tmp_path / "audit.jsonl")
    for n in range(3):
        last = log.append("ticket_created", f"user{n}", ticket_id=f"T-{n}")
    # as an older version left it: a head without the first record's hash, no marker in settings
    (tmp_path / "settings.json").unlink()
    log.head_path.write_text(
        canonical({"seq": 3, "hash": last["hash"], "alg": "hmac-sha256", "mac": head_mac(3, last["hash"], log.key())}),
        encoding="utf-8",
    )
    log = AuditLog(tmp_path / "audit.jsonl")
    assert log.verify().ok
    log.append("ticket_created", "user3", ticket_id="T-3")
    assert log.verify().ok and log.verify().records == 4
    _empty_it(log)
    assert not log.verify().ok
