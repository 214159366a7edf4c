"""A claim that adds a rule is approved as a new section (issue 31 item 2): under the document and
heading the reviewer picks, versioned, audited, and checked like any change."""

from __future__ import annotations

import pytest

from governance.identity import Identity, PermissionDenied

STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
CLAIM = "Library books can now be renewed online."
SECTION = "Borrowed books can be renewed online through the library portal for one more loan period."


def test_a_claim_that_adds_a_rule_affects_no_section_and_says_how_to_approve_it(tiny_service):
    ticket = tiny_service.governance.file_ticket(STUDENT, CLAIM)
    assert ticket.affected == [] and ticket.replacements == {}
    with pytest.raises(ValueError, match="approve it as an addition"):
        tiny_service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "new tiny_service")
    assert tiny_service.governance.get_ticket(REVIEWER, ticket.ticket_id).status == "open"


def test_approved_as_an_addition_it_becomes_a_new_versioned_section_that_answers(tiny_service):
    ticket = tiny_service.governance.file_ticket(STUDENT, CLAIM)
    before = {
        m["doc_id"]: m["version"] for m in tiny_service.engine.index.collection.get(include=["metadatas"])["metadatas"]
    }
    tiny_service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Online Renewals", SECTION)
    done = tiny_service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "the library portal went live")
    assert done.status == "approved" and done.check["passed"], done.check
    (new_id,) = done.new_chunk_ids
    (node,) = tiny_service.engine.index.get_nodes([new_id])
    meta = node.metadata
    assert node.text == SECTION and meta["doc_id"] == "library" and meta["section"] == "3. Online Renewals"
    assert meta["status"] == "active" and meta["origin"] == "ticket" and meta["ticket_id"] == ticket.ticket_id
    assert meta["version"] == "1.1" and before["library"] == "1.0" and meta["title"] == "Library Borrowing Policy"
    answer = tiny_service.chat(STUDENT, "Can I renew my library books online?").answer
    assert answer.decision == "answer" and new_id in [c.chunk_id for c in answer.citations], answer.text
    records = tiny_service.audit.records()
    approved = next(r for r in records if r["event"] == "ticket_approved")
    assert approved["details"]["addition"] == "library §3. Online Renewals"
    created = next(r for r in records if r["event"] == "chunks_created")
    assert created["details"]["chunk_ids"] == [new_id]
    assert any(r["event"] == "post_update_check" and r["details"]["passed"] for r in records)
    assert tiny_service.governance.verify_audit(ADMIN).ok


def test_an_addition_whose_check_fails_is_rolled_back(tiny_service):
    ticket = tiny_service.governance.file_ticket(STUDENT, CLAIM)
    tiny_service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Online Renewals", SECTION)
    count = tiny_service.engine.index.count()
    tiny_service.governance.post_check = lambda t, plan: {"passed": False, "reason": "forced failure"}
    done = tiny_service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "ok")
    assert done.status == "failed" and tiny_service.engine.index.count() == count
    assert "apply_rolled_back" in [r["event"] for r in tiny_service.audit.records()]


def test_an_addition_needs_a_reviewer_an_active_document_a_heading_and_text(tiny_service):
    ticket = tiny_service.governance.file_ticket(STUDENT, CLAIM)
    with pytest.raises(PermissionDenied):
        tiny_service.governance.set_addition(STUDENT, ticket.ticket_id, "library", "3. Renewals", SECTION)
    with pytest.raises(ValueError, match="No active document"):
        tiny_service.governance.set_addition(REVIEWER, ticket.ticket_id, "hostel", "3. Renewals", SECTION)
    with pytest.raises(ValueError, match="heading"):
        tiny_service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "  ", SECTION)
    with pytest.raises(ValueError, match="text"):
        tiny_service.governance.set_addition(REVIEWER, ticket.ticket_id, "library", "3. Renewals", "")
    assert ("Library Borrowing Policy", "library") in tiny_service.governance.documents_for_additions(REVIEWER)
