"""Issue 15 at the service layer: who may decide a claim (finding 9), a crash after an approval
record (finding 6), a damaged memory file (finding 10), a numbers-only message (finding 7)."""

from __future__ import annotations

import dataclasses

import pytest

from governance.audit import AuditLog
from governance.identity import Identity, PermissionDenied
from governance.service import GovernanceService
from memory.service import user_key
from pipeline.ground.config import load_config

STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
CLAIM = "The revaluation fee is now Rs. 800 per course."


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)


def test_a_reviewer_cannot_decide_a_claim_they_filed(service):
    ticket = service.governance.file_ticket(REVIEWER, CLAIM, proof_text="Circular 3/2026: Rs. 800 per course.")
    with pytest.raises(PermissionDenied, match="another reviewer or an admin"):
        service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "my own circular")
    assert service.governance.tickets.get(ticket.ticket_id).status == "open"
    assert service.governance.decide(ADMIN, ticket.ticket_id, "reject", "not verified").status == "rejected"


def test_a_crash_after_the_approval_record_is_followed_by_a_rollback_record(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    real_append = service.audit.append

    def append_then_die(event, actor, **details):
        record = real_append(event, actor, **details)
        if event == "ticket_approved":
            raise SystemExit("killed right after the approval record")  # what kill -9 leaves behind
        return record

    service.audit.append = append_then_die
    with pytest.raises(SystemExit):
        service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "circular checked")
    service.audit.append = real_append
    # the next start
    GovernanceService(service.engine, AuditLog(service.config.audit_path), service.config)
    events = [r["event"] for r in service.audit.records()]
    after = events[events.index("ticket_approved") + 1 :]
    assert "apply_rolled_back" in after
    assert service.governance.tickets.get(ticket.ticket_id).status == "open"
    assert service.audit.verify().ok


def test_a_damaged_memory_file_starts_the_user_afresh(service):
    service.memory.learn(STUDENT, "s1", "my advisor is Dr. Rao")
    path = service.config.users_dir / f"{user_key(STUDENT)}.json"
    path.write_text("{not json", encoding="utf-8")
    backup = path.with_name(f".{path.name}.bak")
    backup.unlink(missing_ok=True)  # no good copy either
    view = service.memory.view(STUDENT)  # no raw JSON error, no lock-out
    assert view["facts"] == []
    assert list(path.parent.glob(f"{path.name}.damaged-*"))
    result = service.chat(STUDENT, "What is the revaluation fee?")
    assert result.answer.decision == "answer"


@pytest.mark.parametrize("message", ["12345", "500?", "₹500"])
def test_a_numbers_only_message_is_a_turn_not_a_crash(service, message):
    result = service.chat(STUDENT, message)
    assert result.answer.decision in ("answer", "abstain", "clarify", "out_of_scope")
    assert service.memory.history(STUDENT, result.session_id)[-1]["user_text"] == message
