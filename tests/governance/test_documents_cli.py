"""The command-line contract, run as a user would: `python -m governance documents add|list|retire|
replace --home DIR`, `python -m pipeline ask` answering from the changed corpus, and
`python -m governance insights gaps --home DIR --csv FILE`."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from governance.audit import AuditLog
from tests.conftest import REPO, TINY_FEES, subprocess_env
from tests.documents_fixtures import RESEARCH_ETHICS, SPORTS_FACILITIES, make_docx, make_pdf

ETHICS_Q = "How many days before the ethics committee meeting must an application reach the secretary?"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, env=subprocess_env(home), capture_output=True,
                          text=True, timeout=600)


def test_documents_commands_change_the_corpus_and_gaps_export(tmp_path: Path):
    home = tmp_path / "home"
    pdf, docx = tmp_path / "research-ethics.pdf", tmp_path / "sports-facilities.docx"
    pdf.write_bytes(make_pdf(RESEARCH_ETHICS))
    docx.write_bytes(make_docx(SPORTS_FACILITIES))
    fees = tmp_path / "exam-fees.md"
    fees.write_text(TINY_FEES, encoding="utf-8")

    added = _run(home, "governance", "documents", "add", str(pdf), str(docx), str(fees), "--home", str(home))
    assert added.returncode == 0, added.stderr
    assert "Added research-ethics" in added.stdout and "Added sports-facilities" in added.stdout

    listed = _run(home, "governance", "documents", "list", "--home", str(home))
    assert listed.returncode == 0
    assert "research-ethics" in listed.stdout and "active" in listed.stdout and "admin" in listed.stdout

    asked = _run(home, "pipeline", "ask", ETHICS_Q)
    assert "21 days" in asked.stdout, asked.stdout + asked.stderr

    again = _run(home, "governance", "documents", "add", str(pdf), "--home", str(home))
    assert again.returncode == 1 and "already in the library" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1

    v2 = tmp_path / "ethics-v2.pdf"
    v2.write_bytes(make_pdf([(t.replace("21 days", "28 days"), s) for t, s in RESEARCH_ETHICS]))
    replaced = _run(home, "governance", "documents", "replace", "research-ethics", str(v2), "--home", str(home))
    assert replaced.returncode == 0, replaced.stderr
    assert "v1.1" in replaced.stdout
    assert "28 days" in _run(home, "pipeline", "ask", ETHICS_Q).stdout

    retired = _run(home, "governance", "documents", "retire", "research-ethics", "--home", str(home))
    assert retired.returncode == 0, retired.stderr
    assert "abstain" in _run(home, "pipeline", "ask", ETHICS_Q).stdout.lower()
    _run(home, "pipeline", "ask", "When does the ethics committee meet each month?")

    missing = _run(home, "governance", "documents", "retire", "no-such-doc", "--home", str(home))
    assert missing.returncode == 1 and "no-such-doc" in missing.stderr

    out = tmp_path / "gaps.csv"
    gaps = _run(home, "governance", "insights", "gaps", "--home", str(home), "--csv", str(out))
    assert gaps.returncode == 0, gaps.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["group_id", "group_size", "question", "sigma", "nearest_section"]
    assert any("ethics committee" in r["question"] for r in rows)
    sizes = [int(r["group_size"]) for r in rows]
    assert sizes == sorted(sizes, reverse=True)
    assert AuditLog(home / "audit.jsonl").verify().ok
    events = [r["event"] for r in AuditLog(home / "audit.jsonl").records()]
    assert {"document_added", "document_replaced", "document_retired"} <= set(events)
