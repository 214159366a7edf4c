"""The command-line contract: `python -m governance documents add|list|retire|replace --home DIR`,
`python -m pipeline ask` answering from the changed corpus, and `python -m governance insights gaps
--home DIR --csv FILE`.

The commands' own `main` functions are called in this process (argv, stdout, stderr and exit code
as a shell sees them, with the model loaded once); one real `python -m governance` run checks the
module entry point itself.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from governance.__main__ import main as governance_main
from governance.audit import AuditLog
from pipeline.__main__ import main as pipeline_main
from tests.conftest import TINY_FEES, run_module
from tests.documents_fixtures import RESEARCH_ETHICS, SPORTS_FACILITIES, make_docx, make_pdf

ETHICS_Q = "How many days before the ethics committee meeting must an application reach the secretary?"


@pytest.fixture()
def cli(capsys, monkeypatch, tmp_path):
    home = tmp_path / "home"
    monkeypatch.setenv("WARRANT_HOME", str(home))

    def run(*argv: str) -> tuple[int, str, str]:
        entry = pipeline_main if argv[0] == "pipeline" else governance_main
        args = list(argv[1:]) + (["--home", str(home)] if argv[0] == "governance" else [])
        code = entry(args)
        out, err = capsys.readouterr()
        return code, out, err

    return run, home


def test_documents_commands_change_the_corpus_and_gaps_export(cli, tmp_path: Path):
    run, home = cli
    pdf, docx = tmp_path / "research-ethics.pdf", tmp_path / "sports-facilities.docx"
    pdf.write_bytes(make_pdf(RESEARCH_ETHICS))
    docx.write_bytes(make_docx(SPORTS_FACILITIES))
    fees = tmp_path / "exam-fees.md"
    fees.write_text(TINY_FEES, encoding="utf-8")

    code, out, err = run("governance", "documents", "add", str(pdf), str(docx), str(fees))
    assert code == 0, err
    assert "Added research-ethics" in out and "Added sports-facilities" in out and "Added fees" in out

    code, out, _ = run("governance", "documents", "list")
    assert code == 0
    assert "research-ethics" in out and "active" in out and "admin" in out

    assert "21 days" in run("pipeline", "ask", ETHICS_Q)[1]

    code, _, err = run("governance", "documents", "add", str(pdf))
    assert code == 1 and "already in the library" in err and len(err.strip().splitlines()) == 1

    v2 = tmp_path / "ethics-v2.pdf"
    v2.write_bytes(make_pdf([(t.replace("21 days", "28 days"), s) for t, s in RESEARCH_ETHICS]))
    code, out, err = run("governance", "documents", "replace", "research-ethics", str(v2))
    assert code == 0, err
    assert "v1.1" in out
    assert "28 days" in run("pipeline", "ask", ETHICS_Q)[1]

    code, out, err = run("governance", "documents", "retire", "research-ethics")
    assert code == 0, err
    assert "abstain" in run("pipeline", "ask", ETHICS_Q)[1].lower()
    run("pipeline", "ask", "When does the ethics committee meet each month?")

    code, _, err = run("governance", "documents", "retire", "no-such-doc")
    assert code == 1 and "no-such-doc" in err

    code, _, err = run("governance", "documents", "add", str(tmp_path / "missing.pdf"))
    assert code == 1 and "no such file" in err

    out_csv = tmp_path / "gaps.csv"
    code, out, err = run("governance", "insights", "gaps", "--csv", str(out_csv))
    assert code == 0, err
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert list(rows[0]) == ["group_id", "group_size", "question", "sigma", "nearest_section"]
    assert any("ethics committee" in r["question"] for r in rows)
    sizes = [int(r["group_size"]) for r in rows]
    assert sizes == sorted(sizes, reverse=True)

    audit = AuditLog(home / "audit.jsonl")
    assert audit.verify().ok
    assert {"document_added", "document_replaced", "document_retired"} <= {r["event"] for r in audit.records()}

    # The module entry point itself, as a script would call it.
    listed = run_module("governance", "documents", "list", "--home", str(home), home=home, timeout=1200)
    assert listed.returncode == 0, listed.stderr
    assert "research-ethics" in listed.stdout and "retired" in listed.stdout
