"""The audit chain catches any edited, deleted, inserted or reordered line; the CLI reports it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from governance.__main__ import main
from governance.audit import AuditLog

REPO = Path(__file__).resolve().parents[2]


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
    run = subprocess.run([sys.executable, "-m", "governance", "audit", "verify", "--home", str(log.path.parent)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "OK" in run.stdout
    _write(log, _lines(log)[1:])
    run = subprocess.run([sys.executable, "-m", "governance", "audit", "verify", "--home", str(log.path.parent)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "BROKEN at line 1" in run.stdout
