"""Safer library operations (issue 31 items 4, 6, 7): retiring needs a reason the audit keeps; an
upload with the title of an active document is offered as its new version; adding or replacing a
document scans it against the active library, and each confirmed conflict becomes a ticket that a
reviewer resolves."""

from __future__ import annotations

import dataclasses

import pytest

from governance.identity import Identity
from governance.library import DocumentRefused, SameTitle
from pipeline.ground.config import load_config
from tests.pipeline.tiny_corpora import REMOTE_WORK, STAFF_HANDBOOK_REMOTE_WORK

ADMIN = Identity("local:adm", "adm", "admin")
REVIEWER = Identity("local:rev", "rev", "reviewer")
STUDENT = Identity("local:stu", "stu", "user")


def _service(tmp_path, docs, embed_model, **changes):
    """The tiny corpus with the remote-work policy in it; the staff handbook is uploaded by tests."""
    from ui.service import WarrantService

    (docs / "remote-work.md").write_text(REMOTE_WORK, encoding="utf-8")
    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=docs)
    return WarrantService(dataclasses.replace(config, **changes), embed_model=embed_model)


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    return _service(tmp_path, tiny_docs_in_rupees, embed_model)


def _ids(service) -> list[str]:
    return sorted(service.engine.index.collection.get(include=[])["ids"])


def test_retire_without_a_reason_is_refused_and_changes_nothing(service):
    library = service.governance.documents
    before = _ids(service), len(service.audit.records())
    for reason in ("", "   "):
        with pytest.raises(DocumentRefused, match="reason"):
            library.retire(ADMIN, "fees", reason=reason)
    assert (_ids(service), len(service.audit.records())) == before
    assert next(e for e in library.entries(ADMIN) if e.doc_id == "fees").status == "active"


def test_the_audit_record_of_a_retirement_carries_its_reason(service):
    service.governance.documents.retire(ADMIN, "fees", reason="merged into the finance handbook")
    record = service.audit.records()[-1]
    assert record["event"] == "document_retired" and record["details"]["reason"] == "merged into the finance handbook"


def test_an_upload_with_the_title_of_an_active_document_is_offered_as_its_new_version(service):
    library = service.governance.documents
    # another file name, so another id: the title is what makes it the same document
    v2 = REMOTE_WORK.replace("doc_id: remote-work\n", "").replace("up to 2 days", "up to 2 days (two)")
    prepared = library.prepare(v2.encode(), "remote-work-2027.md")
    assert prepared.doc_id != "remote-work" and prepared.title == "Remote Work Policy"
    with pytest.raises(SameTitle) as refused:
        library.check_new(prepared)
    assert refused.value.entry.doc_id == "remote-work" and "replace remote-work" in str(refused.value)
    before = _ids(service)
    with pytest.raises(SameTitle):
        library.add(ADMIN, [prepared])
    assert _ids(service) == before
    entries = [e for e in library.entries(ADMIN) if e.title == "Remote Work Policy"]
    assert [(e.doc_id, e.status) for e in entries] == [("remote-work", "active")]
    # what the offer does: a new version of the document, not a second one
    result = library.replace(
        ADMIN, "remote-work", library.prepare(v2.encode(), "remote-work-2027.md", doc_id="remote-work")
    )
    assert "v1.1" in result.message
    assert [e.version for e in library.entries(ADMIN) if e.title == "Remote Work Policy"] == ["1.1"]


def test_adding_a_document_lists_what_it_contradicts_and_files_the_confirmed_conflicts(service):
    library, gov = service.governance.documents, service.governance
    handbook = library.prepare(STAFF_HANDBOOK_REMOTE_WORK.encode(), "staff-handbook.md")
    (conflict,) = library.conflicts([handbook])
    assert conflict.what == "day 3 vs 2" and set(conflict.docs) == {"staff-handbook", "remote-work"}
    assert "up to 3 days" in conflict.sentences[0] and "up to 2 days" in conflict.sentences[1]
    results, tickets = gov.add_documents(ADMIN, [handbook], confirmed=[conflict.key])
    assert "Added staff-handbook" in results[0].message
    (ticket,) = tickets
    assert ticket.kind == "conflict" and ticket.status == "open" and set(ticket.replacements) == set(conflict.chunks)
    assert [t.ticket_id for t in gov.list_tickets(REVIEWER, "open")] == [ticket.ticket_id]
    assert "conflict_ticket_created" in [r["event"] for r in service.audit.records()]
    # Insights lists it as open
    (open_row,) = gov.insights.conflicts(REVIEWER)
    assert open_row["ticket"] == ticket.ticket_id and "remote-work" in open_row["where"]


def test_a_conflict_seen_in_an_answer_is_listed_in_insights_until_one_side_is_retired(
    tmp_path, tiny_docs_in_rupees, embed_model
):
    # With the gate's clarify rule in force, the two policies that answer alike and differ make a
    # clarification; without it (WARRANT_RULES), the answer cites both and tells the conflict.
    rules = tuple(r for r in load_config().rules if r != "clarify")
    service = _service(tmp_path, tiny_docs_in_rupees, embed_model, rules=rules)
    library, gov = service.governance.documents, service.governance
    gov.add_documents(ADMIN, [library.prepare(STAFF_HANDBOOK_REMOTE_WORK.encode(), "staff-handbook.md")], confirmed=[])
    assert gov.insights.conflicts(REVIEWER) == []  # not filed, not yet seen
    answer = service.chat(STUDENT, "How many days per week can employees work remotely?").answer
    assert answer.conflicts, answer.text
    (row,) = gov.insights.conflicts(REVIEWER)
    assert row["seen_in_answers"] == 1 and row["ticket"] == "" and row["what"] == "day 2 vs 3"
    assert "remote-work" in row["where"] and "staff-handbook" in row["where"]
    with pytest.raises(PermissionError):
        gov.insights.conflicts(STUDENT)
    library.retire(ADMIN, "staff-handbook", reason="superseded by the Remote Work Policy")
    assert gov.insights.conflicts(REVIEWER) == []


def test_a_conflict_not_confirmed_files_no_ticket(service):
    library, gov = service.governance.documents, service.governance
    handbook = library.prepare(STAFF_HANDBOOK_REMOTE_WORK.encode(), "staff-handbook.md")
    _, tickets = gov.add_documents(ADMIN, [handbook], confirmed=[])
    assert tickets == [] and gov.list_tickets(REVIEWER, "open") == []


def test_a_conflict_ticket_is_resolved_by_editing_one_side(service):
    library, gov = service.governance.documents, service.governance
    handbook = library.prepare(STAFF_HANDBOOK_REMOTE_WORK.encode(), "staff-handbook.md")
    (conflict,) = library.conflicts([handbook])
    _, (ticket,) = gov.add_documents(ADMIN, [handbook], confirmed=[conflict.key])
    with pytest.raises(ValueError, match="kept unchanged"):
        gov.decide(REVIEWER, ticket.ticket_id, "approve", "nothing edited")
    staff = next(a for a in ticket.affected if a["doc_id"] == "staff-handbook")
    gov.edit_replacement(
        REVIEWER, ticket.ticket_id, staff["chunk_id"], staff["text"].replace("up to 3 days", "up to 2 days")
    )
    done = gov.decide(REVIEWER, ticket.ticket_id, "approve", "HR policy governs")
    assert done.status == "approved" and done.check["passed"], done.check
    assert gov.insights.conflicts(REVIEWER) == []
    answer = service.chat(STUDENT, "How many days per week can employees work remotely?").answer
    assert answer.conflicts == [] and "3 days" not in answer.text, answer.text


def test_replacing_a_document_scans_the_new_version_against_the_others(service):
    library, gov = service.governance.documents, service.governance
    library.add(ADMIN, [library.prepare(STAFF_HANDBOOK_REMOTE_WORK.encode(), "staff-handbook.md")])
    v2 = REMOTE_WORK.replace("up to 2 days", "up to 4 days")
    prepared = library.prepare(v2.encode(), "remote-work.md", doc_id="remote-work")
    conflicts = library.conflicts([prepared], replacing="remote-work")
    assert [c.what for c in conflicts] == ["day 4 vs 3"]  # not against the version it replaces
    result, tickets = gov.replace_document(ADMIN, "remote-work", prepared, confirmed=[conflicts[0].key])
    assert "v1.1" in result.message and len(tickets) == 1
