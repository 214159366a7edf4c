"""Backups end to end through the command line: a state with accounts, memory, an approved claim,
τ, a restricted document and the query log, archived while users keep chatting, restored into a
fresh directory, gives the same answers and an audit chain that verifies; an archive whose chain
was edited, or that holds anything else, is refused and nothing is restored."""

from __future__ import annotations

import dataclasses
import io
import json
import tarfile
import threading
from pathlib import Path

import pytest

from governance.backup import MANIFEST, BackupRefused, restore_backup
from governance.identity import Identity
from pipeline.ground.config import load_config
from tests.conftest import run_module
from tests.pipeline.test_audience import HR_PAY
from tests.pipeline.test_audience import QUESTION as HR_QUESTION

ADMIN = Identity("local:admin", "admin", "admin")
QUESTIONS = ["What is the revaluation fee?", "How many books can an undergraduate borrow?", "Can I bring my dog?"]


def _service(home: Path, docs: Path, embed_model):
    from ui.service import WarrantService

    return WarrantService(dataclasses.replace(load_config().with_home(home), docs_dir=docs), embed_model=embed_model)


@pytest.fixture()
def original(tmp_path, tiny_docs_in_rupees, embed_model):
    svc = _service(tmp_path / "home", tiny_docs_in_rupees, embed_model)
    svc.accounts.create("stu", "student-pass-1", "user")
    svc.accounts.create("rev", "reviewer-pass-1", "reviewer")
    svc.accounts.create("clerk", "clerk-pass-123", "user")
    svc.set_groups(ADMIN, "clerk", "hr")
    student = svc.identity_for("stu")
    assert student is not None
    svc.chat(student, "my advisor is Dr. Rao")
    svc.chat(student, "What is the revaluation fee?")
    ticket = svc.governance.file_ticket(student, "The revaluation fee is now Rs. 800 per course.")
    svc.governance.decide(svc.identity_for("rev"), ticket.ticket_id, "approve", "circular checked")
    library = svc.governance.documents
    library.add(ADMIN, [library.prepare(HR_PAY.encode(), "hr-pay.md")])
    svc.set_tau(ADMIN, 0.55)
    return svc


def _answers(svc) -> list[tuple]:
    out = []
    for username, question in [("stu", q) for q in QUESTIONS] + [("stu", HR_QUESTION), ("clerk", HR_QUESTION)]:
        answer = svc.chat(svc.identity_for(username), question).answer
        out.append((answer.decision, answer.text, [c.chunk_id for c in answer.citations]))
    return out


def test_a_backup_taken_while_users_chat_restores_to_the_same_answers(original, tmp_path, embed_model):
    home, fresh, archive = original.config.home, tmp_path / "restored", tmp_path / "backups" / "warrant.tar.gz"
    student = original.identity_for("stu")
    stop, turns = threading.Event(), []

    def keep_chatting() -> None:  # the app goes on while the backup is taken
        while not stop.is_set():
            turns.append(original.chat(student, "What is the photocopy fee?").answer.decision)
            original.governance.file_ticket(student, "The photocopy fee is now Rs. 350 per course.")

    chatting = threading.Thread(target=keep_chatting)
    chatting.start()
    try:
        created = run_module("governance", "backup", "create", str(archive), "--home", str(home), home=home)
    finally:
        stop.set()
        chatting.join()
    assert created.returncode == 0, created.stderr
    assert "audit chain intact" in created.stdout and turns
    assert archive.stat().st_mode & 0o777 == 0o600

    restored = run_module("governance", "backup", "restore", str(archive), "--home", str(fresh), home=fresh)
    assert restored.returncode == 0, restored.stderr
    snapshot = (fresh / "query_log.jsonl").read_text(encoding="utf-8")
    verified = run_module("governance", "audit", "verify", "--home", str(fresh), home=fresh)
    assert verified.returncode == 0 and verified.stdout.startswith("OK:"), verified.stdout + verified.stderr
    marker = "audit_genesis"  # the chain's genesis marker, where the audit log keeps one, comes along
    settings = [json.loads((h / "settings.json").read_text()) for h in (home, fresh)]
    assert settings[0].get(marker) == settings[1].get(marker) and settings[1]["tau"] == 0.55
    events = [json.loads(line)["event"] for line in (fresh / "audit.jsonl").read_text().splitlines()]
    assert events[-1] == "backup_restored" and "ticket_approved" in events and "document_added" in events

    copy = _service(fresh, original.config.docs_dir, embed_model)
    assert copy.engine.tau == 0.55
    assert copy.accounts.authenticate("stu", "student-pass-1").username == "stu"
    assert [t.status for t in copy.governance.tickets.list("approved")] == ["approved"]
    assert "Dr. Rao" in copy.chat(copy.identity_for("stu"), "who is my advisor?").answer.text
    assert _answers(copy) == _answers(original)
    assert "Rs. 800" in _answers(copy)[0][1]  # the approved claim, not the original text
    assert _answers(copy)[3][0] == "abstain" and _answers(copy)[4][0] == "answer"  # the audience holds
    live = (home / "query_log.jsonl").read_text(encoding="utf-8")  # only ever appended to since
    assert live.startswith(snapshot) and snapshot.count("\n") >= 2


def _repack(archive: Path, out: Path, change) -> None:
    """A copy of `archive` with `change(name, data) -> (name, data)` applied, manifest digests updated."""
    import hashlib

    with tarfile.open(archive, "r:gz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]
    manifest = json.loads(members.pop(MANIFEST))
    changed = dict(change(name, data) for name, data in members.items())
    manifest["files"] = {name: hashlib.sha256(data).hexdigest() for name, data in changed.items()}
    with tarfile.open(out, "w:gz") as tar:
        for name, data in [(MANIFEST, json.dumps(manifest).encode()), *changed.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_an_archive_whose_audit_chain_was_edited_is_refused(original, tmp_path):
    from governance.backup import create_backup

    archive = tmp_path / "good.tar.gz"
    assert create_backup(original.config, archive).audit.ok

    def edit(name: str, data: bytes) -> tuple[str, bytes]:
        if name == "state/audit.jsonl":
            data = data.replace(b'"circular checked"', b'"no proof at all"')
        return name, data

    tampered, fresh = tmp_path / "tampered.tar.gz", tmp_path / "fresh"
    _repack(archive, tampered, edit)
    with pytest.raises(BackupRefused, match="audit chain does not verify"):
        restore_backup(original.config.with_home(fresh), tampered)
    assert not fresh.exists() or not any(fresh.iterdir())
    outside = tmp_path / "outside.tar.gz"
    _repack(
        archive, outside, lambda name, data: ("state/../../escaped" if name == "state/tickets.json" else name, data)
    )
    with pytest.raises(BackupRefused, match="unexpected member"):
        restore_backup(original.config.with_home(fresh), outside)
    assert not (tmp_path / "escaped").exists()
    with pytest.raises(BackupRefused, match="not empty"):
        restore_backup(original.config, archive)  # onto the live state directory
