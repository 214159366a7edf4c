"""Applying a ticket is crash-safe and idempotent: a process killed mid-apply leaves, after
recovery, the corpus fully before (not yet committed) or fully after (committed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from governance.audit import AuditLog
from governance.evolution import bump_version
from governance.identity import Identity
from governance.service import GovernanceService
from pipeline.engine import AnswerEngine
from pipeline.ground.config import load_config
from tests.conftest import subprocess_env

REPO = Path(__file__).resolve().parents[2]
STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
CLAIM = "The revaluation fee is now Rs. 800 per course."

# Files a ticket and approves it; at `step` the hook leaves a marker and waits to be killed. With a
# document, heading and text after the claim, the claim is approved as a new section.
_CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from governance.audit import AuditLog
    from governance.identity import Identity
    from governance.service import GovernanceService
    from pipeline.ground.config import load_config
    from pipeline.engine import AnswerEngine

    home, docs, step, claim = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    config = load_config().with_home(home)
    engine = AnswerEngine(config)
    engine.ingest(docs)
    gov = GovernanceService(engine, AuditLog(config.audit_path), config)
    reviewer = Identity("local:rev", "rev", "reviewer")
    ticket = gov.file_ticket(Identity("local:stu", "stu", "user"), claim)
    (home / "ticket_id").write_text(ticket.ticket_id)
    if len(sys.argv) > 5:
        gov.set_addition(reviewer, ticket.ticket_id, *sys.argv[5:8])

    def hook(at):
        if at == step:
            (home / "killed_at").write_text(at)
            time.sleep(120)

    gov.decide(reviewer, ticket.ticket_id, "approve", "circular", hook=hook)
""")
ADDITION_CLAIM = "Library books can now be renewed online."
ADDITION = ("library", "3. Online Renewals", "Borrowed books can be renewed online through the library portal.")


def _corpus(engine) -> dict:
    got = engine.index.collection.get(include=["metadatas", "documents"])
    return {
        i: (m["status"], m.get("superseded_by", ""), d)
        for i, m, d in zip(got["ids"], got["metadatas"], got["documents"], strict=True)
    }


def _kill_mid_apply(tmp_path: Path, docs: Path, step: str, claim: str = CLAIM, *addition: str) -> Path:
    home = tmp_path / "home"
    script = tmp_path / "child.py"
    script.write_text(_CHILD, encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, str(script), str(home), str(docs), step, claim, *addition],
        cwd=REPO,
        env=subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 600  # a safeguard, not a speed target: the child loads the model and ingests
    try:
        while not (home / "killed_at").exists():
            if child.poll() is not None:
                assert child.stdout is not None
                pytest.fail(f"child ended early: {child.stdout.read().decode()[-2000:]}")
            if time.time() > deadline:
                pytest.fail("child never reached the step")
            time.sleep(0.2)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    return home


def _restart(home: Path, embed_model) -> tuple[AnswerEngine, GovernanceService]:
    config = load_config().with_home(home)
    engine = AnswerEngine(config, embed_model=embed_model)
    return engine, GovernanceService(engine, AuditLog(config.audit_path), config)  # runs recover()


@pytest.mark.parametrize("step,expected", [("deprecated", "before"), ("committed", "after")])
def test_killed_apply_recovers_to_before_or_after(tmp_path, tiny_docs, embed_model, step, expected):
    home = _kill_mid_apply(tmp_path, tiny_docs, step)
    assert (home / "apply_journal.json").exists()
    ticket_id = (home / "ticket_id").read_text()
    engine, gov = _restart(home, embed_model)
    assert not (home / "apply_journal.json").exists()
    corpus = _corpus(engine)
    statuses = sorted(s for s, _, _ in corpus.values())
    ticket = gov.tickets.get(ticket_id)
    revaluation = [v for k, v in corpus.items() if k.startswith("fees::2-revaluation-fee")]
    if expected == "before":
        assert "deprecated" not in statuses and len(corpus) == 5
        assert [(s, sup) for s, sup, _ in revaluation] == [("active", "")]
        assert ticket.status == "open" and ticket.notes
        # The reviewer decides again and it goes through; a second apply does nothing new.
        done = gov.decide(REVIEWER, ticket_id, "approve", "circular")
        assert done.status == "approved"
    else:
        assert ticket.status == "approved"
    corpus = _corpus(engine)
    assert sorted(s for s, _, _ in corpus.values()).count("deprecated") == 1 and len(corpus) == 6
    answer = engine.ask("What is the revaluation fee?", log=False)
    assert "Rs. 800" in answer.text
    assert AuditLog(home / "audit.jsonl").verify().ok
    plan_like = {"old": [], "new": []}
    assert gov.evolution.apply(plan_like) == {"deprecated": [], "created": []}


@pytest.mark.parametrize("step,expected", [("created", "before"), ("committed", "after")])
def test_a_killed_addition_recovers_to_before_or_after(tmp_path, tiny_docs, embed_model, step, expected):
    """Issue 31 item 2: a new section goes the same crash-safe way as a replaced one."""
    home = _kill_mid_apply(tmp_path, tiny_docs, step, ADDITION_CLAIM, *ADDITION)
    ticket_id = (home / "ticket_id").read_text()
    engine, gov = _restart(home, embed_model)
    assert not (home / "apply_journal.json").exists()
    added = [k for k in _corpus(engine) if k.startswith("library::3-online-renewals")]
    ticket = gov.tickets.get(ticket_id)
    if expected == "before":
        assert added == [] and len(_corpus(engine)) == 5 and ticket.status == "open" and ticket.notes
    else:
        assert ticket.status == "approved" and len(added) == 1 and ticket.new_chunk_ids == added
        assert _corpus(engine)[added[0]][0] == "active"
    assert "deprecated" not in {s for s, _, _ in _corpus(engine).values()}
    assert AuditLog(home / "audit.jsonl").verify().ok


def test_rollback_restores_a_chunk_lost_between_delete_and_re_add(tmp_path, tiny_engine):
    config = tiny_engine.config
    gov = GovernanceService(tiny_engine, AuditLog(config.audit_path), config)
    ticket = gov.file_ticket(STUDENT, CLAIM)
    before = _corpus(tiny_engine)
    plan = gov.evolution.plan(ticket.ticket_id, ticket.replacements)
    gov.evolution.write_journal(plan)
    tiny_engine.index.delete([o["id"] for o in plan["old"]])  # what a kill inside update_metadata leaves
    assert gov.evolution.state_of(plan) == "partial"
    assert gov.recover() == "rolled_back"
    assert _corpus(tiny_engine) == before


def test_apply_is_idempotent(tmp_path, tiny_engine):
    config = tiny_engine.config
    gov = GovernanceService(tiny_engine, AuditLog(config.audit_path), config)
    ticket = gov.file_ticket(STUDENT, CLAIM)
    plan = gov.evolution.plan(ticket.ticket_id, ticket.replacements)
    first = gov.evolution.apply(plan)
    after = _corpus(tiny_engine)
    assert len(first["deprecated"]) == 1 and len(first["created"]) == 1
    assert gov.evolution.apply(plan) == {"deprecated": [], "created": []}
    assert _corpus(tiny_engine) == after and gov.evolution.state_of(plan) == "after"


def test_version_bump():
    assert [bump_version(v) for v in ("1.0", "1.9", "2", "")] == ["1.1", "1.10", "2.1", "1.1"]
