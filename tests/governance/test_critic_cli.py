"""`python -m governance documents critique FILE… | --library [--json] [--no-model]`: the critic on
the command line, as text and as JSON, on files and on the active library; bad input refused with
one line and exit 1. The other `documents` subcommands are pinned in test_documents_cli.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.__main__ import main as governance_main
from tests.conftest import TINY_FEES, run_module

POLICY = """# Key Holding Policy

## 1. Keys
Key holders must return their keys promptly.
Lost keys will be replaced at the discretion of the Facilities Manager.

## 2. Records
The key register is described in Appendix B.
"""


@pytest.fixture()
def cli(capsys, tmp_path):
    home = tmp_path / "home"

    def run(*argv: str) -> tuple[int, str, str]:
        code = governance_main([*argv, "--home", str(home)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture()
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "keys.md"
    path.write_text(POLICY, encoding="utf-8")
    return path


def test_critique_prints_each_flagged_sentence_with_what_to_do(cli, policy: Path):
    code, out, err = cli("documents", "critique", str(policy), "--no-model")
    assert code == 0, err
    assert out.startswith('keys.md ("Key Holding Policy"): 3 of 3 sentences flagged')
    assert "[1. Keys] Key holders must return their keys promptly." in out
    assert "no_deadline (required action without a time)" in out
    assert "dangling_reference (refers to a part that is not there): This document has no Appendix B" in out


def test_critique_json_lists_counts_and_findings(cli, policy: Path):
    code, out, _ = cli("documents", "critique", str(policy), "--json", "--no-model")
    assert code == 0
    (doc,) = json.loads(out)
    assert doc["name"] == "keys.md" and doc["sentences"] == 3
    assert doc["counts"]["vague"] == 2 and doc["counts"]["dangling_reference"] == 1
    first = doc["findings"][0]
    assert first["flags"] == ["vague", "no_deadline", "no_consequence"]
    assert first["details"][0] == {
        "flag": "vague",
        "evidence": "promptly",
        "advice": 'Say exactly what "promptly" means here: a number, a date, a list or a test.',
        "other": None,
    }


def test_critique_of_the_library_reads_the_active_documents(cli, tmp_path: Path):
    fees = tmp_path / "exam-fees.md"
    fees.write_text(
        TINY_FEES + "\nA student must pay the fee within 3 days, as set out in section 8.\n", encoding="utf-8"
    )
    assert cli("documents", "add", str(fees))[0] == 0
    code, out, err = cli("documents", "critique", "--library", "--json")
    assert code == 0, err
    (doc,) = json.loads(out)
    assert doc["name"] == "fees" and doc["title"] == "Examination Fees Policy"
    flagged = {f["text"]: f["flags"] for f in doc["findings"]}
    assert "dangling_reference" in flagged["A student must pay the fee within 3 days, as set out in section 8."]


def test_critique_refuses_bad_input_with_one_line(cli, policy: Path, tmp_path: Path):
    code, _, err = cli("documents", "critique", str(tmp_path / "missing.md"), "--no-model")
    assert code == 1 and err.startswith("refused:") and "missing.md" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli("documents", "critique", "--no-model")
    assert code == 1 and "--library" in err
    code, _, err = cli("documents", "critique", str(policy), "--library")
    assert code == 1 and "one or the other" in err
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\x00\x01\x02" * 200)
    code, _, err = cli("documents", "critique", str(binary), "--no-model")
    assert code == 1 and err.startswith("refused:") and "Traceback" not in err


def test_the_module_entry_point_runs_the_critique(policy: Path, tmp_path: Path):
    done = run_module("governance", "documents", "critique", str(policy), "--json", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["counts"]["no_consequence"] == 1


def test_critique_reads_files_under_the_library_glossary(tmp_path: Path):
    # a separate process, as a user runs it: the files are read under the glossary of the
    # configured documents (the demo corpus's names its programmes), as an upload in the app is
    path = tmp_path / "pass-marks.md"
    path.write_text(
        "# Pass Marks\n\n## 1. Seminar Courses\n\n"
        "For a seminar course, a B.Tech student passes with at least 40% of the course total.\n\n"
        "For a seminar course, an M.Tech or MCA student passes with at least 50% of the course total.\n",
        encoding="utf-8",
    )
    done = run_module("governance", "documents", "critique", str(path), "--json", "--no-model", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["counts"]["contradiction"] == 0  # two programmes' rules
