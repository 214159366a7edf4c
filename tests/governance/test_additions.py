"""A claim that adds a rule is approved as a new section (issue 31 item 2): under the document and
heading the reviewer picks, versioned, audited, and checked like any change."""

from __future__ import annotations

import dataclasses

import pytest

from governance.identity import Identity, PermissionDenied
from pipeline.ground.config import load_config

STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
CLAIM = "Library books can now be renewed online."
SECTION = "Borrowed books can be renewed online through the library portal for one more loan period."


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)


def test_a_claim_that_adds_a_rule_affects_no_section_and_says_how_to_approve_it(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    assert ticket.affected == [] and ticket.replacements == {}
    with pytest.raises(ValueError, match="approve it as an addition"):
        service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "new service")
    assert service.governance.get_ticket(REVIEWER, ticket.ticket_id).status == "open"


def test_approved_as_an_addition_it_becomes_a_new_versioned_section_that_answers(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    before = {
        m["doc_id"]: m["version"] for m in service.engine.index.collection.get(include=["metadatas"])["metadatas"]
    }
    service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Online Renewals", SECTION)
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "the library portal went live")
    assert done.status == "approved" and done.check["passed"], done.check
    (new_id,) = done.new_chunk_ids
    (node,) = service.engine.index.get_nodes([new_id])
    meta = node.metadata
    assert node.text == SECTION and meta["doc_id"] == "library" and meta["section"] == "3. Online Renewals"
    assert meta["status"] == "active" and meta["origin"] == "ticket" and meta["ticket_id"] == ticket.ticket_id
    assert meta["version"] == "1.1" and before["library"] == "1.0" and meta["title"] == "Library Borrowing Policy"
    answer = service.chat(STUDENT, "Can I renew my library books online?").answer
    assert answer.decision == "answer" and new_id in [c.chunk_id for c in answer.citations], answer.text
    records = service.audit.records()
    approved = next(r for r in records if r["event"] == "ticket_approved")
    assert approved["details"]["addition"] == "library §3. Online Renewals"
    created = next(r for r in records if r["event"] == "chunks_created")
    assert created["details"]["chunk_ids"] == [new_id]
    assert any(r["event"] == "post_update_check" and r["details"]["passed"] for r in records)
    assert service.governance.verify_audit(ADMIN).ok


def test_an_addition_whose_check_fails_is_rolled_back(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Online Renewals", SECTION)
    count = service.engine.index.count()
    service.governance.post_check = lambda t, plan: {"passed": False, "reason": "forced failure"}
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "ok")
    assert done.status == "failed" and service.engine.index.count() == count
    assert "apply_rolled_back" in [r["event"] for r in service.audit.records()]


def test_an_addition_needs_a_reviewer_an_active_document_a_heading_and_text(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    with pytest.raises(PermissionDenied):
        service.governance.set_addition(STUDENT, ticket.ticket_id, "library", "3. Renewals", SECTION)
    with pytest.raises(ValueError, match="No active document"):
        service.governance.set_addition(REVIEWER, ticket.ticket_id, "hostel", "3. Renewals", SECTION)
    with pytest.raises(ValueError, match="heading"):
        service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "  ", SECTION)
    with pytest.raises(ValueError, match="text"):
        service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Renewals", "")
    assert ("Library Borrowing Policy", "library") in service.governance.documents_for_additions(REVIEWER)
