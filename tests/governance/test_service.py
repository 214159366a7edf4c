"""Claims in chat, tickets and review through the service layer, with roles checked on the server."""

from __future__ import annotations

import dataclasses

import pytest

from governance.identity import Identity, PermissionDenied
from governance.proof import ProofRefused
from pipeline.ground.config import load_config

STUDENT = Identity("local:stu", "stu", "user")
OTHER = Identity("local:eve", "eve", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
CLAIM = "The revaluation fee is now Rs. 800 per course."
QUESTION = "What is the revaluation fee?"


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)


def _corpus(service) -> dict:
    got = service.engine.index.collection.get(include=["metadatas", "documents"])
    return {i: (m, d) for i, m, d in zip(got["ids"], got["metadatas"], got["documents"], strict=True)}


def _events(service) -> list[str]:
    return [r["event"] for r in service.audit.records()]


def test_chat_claim_is_answered_from_the_corpus_and_offered_for_review(service):
    turn = service.chat(STUDENT, CLAIM)
    answer = turn.answer
    assert answer.decision == "answer" and "Rs. 500" in answer.text
    claim = answer.policy_claim
    assert claim["offer_ticket"] and claim["conflicts"]
    assert claim["conflicting_citation"]["section"].startswith("2")
    assert claim["contradictions"][0]["chunk_span"]["text"] == "Rs. 500"
    assert "conflicts with" in answer.text
    assert service.chat(STUDENT, QUESTION).answer.policy_claim is None


def test_a_claim_names_the_section_it_contradicts_even_when_the_gate_abstains(service):
    service.engine.tau = 1.0  # no answer passes: the notice must find the section on its own
    answer = service.chat(STUDENT, CLAIM).answer
    assert answer.decision != "answer" and not answer.citations
    claim = answer.policy_claim
    assert claim["conflicts"] and claim["contradictions"][0]["chunk_span"]["text"] == "Rs. 500"
    assert claim["conflicting_citation"]["section"].startswith("2") and claim["conflicting_citation"]["n"] is None
    assert "conflicts with" in claim["note"] and "[None]" not in claim["note"]
    assert "could not find the section" not in answer.text


def test_the_claim_notice_is_not_scored_as_an_answer_sentence(service):
    from pipeline.evaluation.golden import answer_sentences_text, unsupported_sentences

    answer = service.chat(STUDENT, CLAIM).answer
    note = answer.policy_claim["note"]
    assert note and answer.text.endswith(note)
    assert note not in answer_sentences_text(answer) and "Rs. 500" in answer_sentences_text(answer)
    chunks = {c.chunk_id: service.engine.index.get_nodes([c.chunk_id])[0].get_content() for c in answer.citations}
    total, bad = unsupported_sentences(answer, chunks)
    assert total >= 1 and bad == 0


def test_full_approve_path_changes_the_answer_and_keeps_the_old_chunk(service):
    ticket = service.governance.file_ticket(
        STUDENT,
        CLAIM,
        proof_text="Circular 3/2026 of the Controller of Examinations: the revaluation fee is Rs. 800 per course.",
    )
    assert ticket.status == "open" and ticket.trust["score"] >= 0.8
    assert [a["section"] for a in ticket.affected] == ["2. Revaluation Fee"]
    (old_id,) = ticket.replacements
    assert "Rs. 800 per course" in ticket.replacements[old_id]
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "circular checked")
    assert done.status == "approved" and done.check["passed"], done.check
    (new_id,) = done.new_chunk_ids
    corpus = _corpus(service)
    old_meta, new_meta = corpus[old_id][0], corpus[new_id][0]
    assert old_meta["status"] == "deprecated" and old_meta["superseded_by"] == new_id
    assert new_meta["status"] == "active" and new_meta["origin"] == "ticket" and new_meta["supersedes"] == old_id
    assert new_meta["version"] == "1.1"
    answer = service.chat(STUDENT, QUESTION).answer
    assert "Rs. 800" in answer.text and "Rs. 500" not in answer.text
    assert new_id in [c.chunk_id for c in answer.citations]
    assert service.governance.verify_audit(ADMIN).ok
    events = _events(service)
    for event in (
        "ticket_created",
        "contradiction_analysis",
        "ticket_approved",
        "chunks_deprecated",
        "chunks_created",
        "post_update_check",
        "ticket_implemented",
    ):
        assert event in events
    # The reporter sees the outcome and the reason.
    mine = service.governance.list_tickets(STUDENT)
    assert [(t.status, t.decision_reason) for t in mine] == [("approved", "circular checked")]


def test_applying_twice_changes_nothing_new(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "ok")
    before, events = _corpus(service), _events(service)
    with pytest.raises(ValueError, match="already approved"):
        service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "again")
    assert _corpus(service) == before and _events(service) == events


def test_reject_changes_nothing_but_the_log(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    before = _corpus(service)
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "reject", "no official source")
    assert done.status == "rejected" and done.decision_reason == "no official source"
    assert _corpus(service) == before
    assert _events(service)[-1] == "ticket_rejected"
    assert "Rs. 500" in service.chat(STUDENT, QUESTION).answer.text


def test_student_cannot_approve_and_nothing_changes(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    before, events = _corpus(service), _events(service)
    with pytest.raises(PermissionDenied):
        service.governance.decide(STUDENT, ticket.ticket_id, "approve", "I say so")
    with pytest.raises(PermissionDenied):
        service.governance.edit_replacement(STUDENT, ticket.ticket_id, next(iter(ticket.replacements)), "x")
    assert _corpus(service) == before and _events(service) == events
    assert service.governance.get_ticket(REVIEWER, ticket.ticket_id).status == "open"


def test_users_see_only_their_own_tickets(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    assert service.governance.list_tickets(OTHER) == []
    with pytest.raises(PermissionDenied):
        service.governance.get_ticket(OTHER, ticket.ticket_id)
    assert [t.ticket_id for t in service.governance.list_tickets(REVIEWER, status="open")] == [ticket.ticket_id]
    with pytest.raises(PermissionDenied):
        service.governance.audit_records(STUDENT)
    with pytest.raises(PermissionDenied):
        service.governance.verify_audit(REVIEWER)


def test_decision_needs_a_reason(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    with pytest.raises(ValueError, match="reason"):
        service.governance.decide(REVIEWER, ticket.ticket_id, "reject", "  ")


def test_failed_post_update_check_rolls_back(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    before = _corpus(service)
    service.governance.post_check = lambda t, plan: {"passed": False, "reason": "forced failure"}
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "looks right")
    assert done.status == "failed" and "forced failure" in done.decision_reason
    assert _corpus(service) == before
    assert "apply_rolled_back" in _events(service) and service.governance.verify_audit(ADMIN).ok
    assert "Rs. 500" in service.chat(STUDENT, QUESTION).answer.text


def test_reviewer_edit_is_what_gets_applied(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    (old_id,) = ticket.replacements
    text = "The revaluation fee is Rs. 800 per course, paid online through the ERP portal."
    service.governance.edit_replacement(REVIEWER, ticket.ticket_id, old_id, text)
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "edited wording")
    assert _corpus(service)[done.new_chunk_ids[0]][1] == text


def test_bad_uploads_are_refused_and_no_ticket_is_filed(service, tmp_path):
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b"0" * (5 * 1024 * 1024))
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n0000")
    with pytest.raises(ProofRefused, match="5 MB"):
        service.governance.file_ticket(STUDENT, CLAIM, proof_file=big)
    with pytest.raises(ProofRefused, match=r"not a \.pdf"):
        service.governance.file_ticket(STUDENT, CLAIM, proof_file=fake)
    with pytest.raises(ProofRefused, match="path"):
        service.governance.file_ticket(STUDENT, CLAIM, proof_file=b"hi", proof_name="../../x.txt")
    assert service.governance.list_tickets(STUDENT) == []
    ok = service.governance.file_ticket(
        STUDENT, CLAIM, proof_file=b"Notice: revaluation fee Rs. 800 per course", proof_name="notice.txt"
    )
    assert ok.proof_file["kind"] == "text"
    assert (service.config.home / "proofs" / ok.proof_file["stored_name"]).exists()
