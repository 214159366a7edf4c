"""The document library on a real index: add, replace, retire, restore; every bad input refused with
a plain message and nothing indexed; a failure halfway leaves the index as it was."""

from __future__ import annotations

import pytest

from governance.audit import AuditLog
from governance.identity import Identity, PermissionDenied
from governance.library import DocumentLibrary
from pipeline.ingest.documents import DocumentError
from tests.documents_fixtures import (
    RESEARCH_ETHICS,
    SPORTS_FACILITIES,
    make_docx,
    make_docx_bomb,
    make_encrypted_pdf,
    make_pdf,
    make_scanned_pdf,
)

ADMIN = Identity("local:admin", "admin", "admin")
STUDENT = Identity("local:stu", "stu", "user")
ETHICS_Q = "How many days before the ethics committee meeting must an application reach the secretary?"


@pytest.fixture()
def library(tiny_engine):
    config = tiny_engine.config
    return DocumentLibrary(tiny_engine, AuditLog(config.audit_path), config)


def _snapshot(library: DocumentLibrary) -> tuple[int, list[str], int]:
    index = library.index
    return index.count(), sorted(index.collection.get(include=[])["ids"]), index.sentence_vectors.count()


def test_adds_a_pdf_and_answers_from_it_with_a_citation(library):
    prepared = library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")
    assert prepared.doc_id == "research-ethics"
    assert prepared.title == "Research Ethics Policy"
    assert len(prepared.chunks) >= 1
    library.add(ADMIN, [prepared])
    answer = library.engine.ask(ETHICS_Q, log=False)
    assert answer.decision == "answer"
    assert any(c.doc_id == "research-ethics" for c in answer.citations)
    assert "21 days" in answer.text
    entry = next(e for e in library.entries(ADMIN) if e.doc_id == "research-ethics")
    assert (entry.status, entry.uploaded_by, entry.version) == ("active", "admin", "1.0")
    events = [r["event"] for r in library.audit.records()]
    assert "document_added" in events and library.audit.verify().ok


def test_docx_headings_become_sections(library):
    prepared = library.prepare(make_docx(SPORTS_FACILITIES), "sports-facilities.docx")
    sections = {c.section for c in prepared.chunks}
    assert any("Opening Hours" in s for s in sections) or len(prepared.chunks) == 1
    assert prepared.title == "Sports Facilities Policy"


def test_retire_makes_the_question_abstain_and_restore_brings_it_back(library):
    library.add(ADMIN, [library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")])
    library.retire(ADMIN, "research-ethics", reason="superseded by the national code")
    assert library.engine.ask(ETHICS_Q, log=False).decision == "abstain"
    entry = next(e for e in library.entries(ADMIN) if e.doc_id == "research-ethics")
    assert entry.status == "retired" and entry.chunks == 0 and entry.total_chunks > 0  # kept
    library.restore(ADMIN, "research-ethics")
    assert library.engine.ask(ETHICS_Q, log=False).decision == "answer"
    assert library.audit.verify().ok


def test_replace_embeds_only_changed_chunks_and_keeps_the_old_version(library):
    library.add(ADMIN, [library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")])
    before = {c["chunk_id"] for c in library.chunks(ADMIN, "research-ethics")}
    changed = [(t.replace("21 days", "30 days"), s) for t, s in RESEARCH_ETHICS]
    result = library.replace(
        ADMIN, "research-ethics", library.prepare(make_pdf(changed), "ethics-v2.pdf", doc_id="research-ethics")
    )
    rows = library.chunks(ADMIN, "research-ethics")
    assert {r["chunk_id"] for r in rows} >= before  # nothing deleted
    assert len(result.created) < len(rows)
    assert all(r["version"] == "1.1" for r in rows if r["status"] == "active")
    assert "30 days" in library.engine.ask(ETHICS_Q, log=False).text


def test_a_student_cannot_change_or_list_the_library(library):
    prepared = library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")
    with pytest.raises(PermissionDenied):
        library.add(STUDENT, [prepared])
    with pytest.raises(PermissionDenied):
        library.entries(STUDENT)
    with pytest.raises(PermissionDenied):
        library.retire(STUDENT, "fees")


@pytest.mark.parametrize(
    "data, name, says",
    [
        (make_encrypted_pdf(), "ethics.pdf", "encrypted"),
        (make_scanned_pdf(), "scan.pdf", "no usable text"),
        (b"", "empty.md", "empty"),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 20, "policy.pdf", "not a real PDF"),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 20, "policy.txt", "not a real TEXT"),
        (b"\x89PNG\r\n\x1a\n" + bytes(200), "policy.docx", "not a real DOCX"),
        (make_docx_bomb(), "bomb.docx", "decompression bomb"),
        (b"# Policy\n\nSome text " * 20, "../../etc/passwd.md", "looks like a path"),
        (b"# Policy\n\nSome text " * 20, "..\\secret.md", "looks like a path"),
        (b"# Policy\n\nSome text " * 20, ".hidden.md", "looks like a path"),
        (b"# Policy\n\nSome text " * 20, "policy.exe", "not accepted"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_indexed(library, data, name, says):
    before = _snapshot(library)
    with pytest.raises(DocumentError) as refused:
        library.add(ADMIN, [library.prepare(data, name)])
    assert says in str(refused.value)
    assert _snapshot(library) == before


def test_a_duplicate_is_refused_naming_the_document(library, tiny_docs):
    before = _snapshot(library)
    # The same text as the ingested fees policy, under another name.
    with pytest.raises(DocumentError, match="duplicate of fees"):
        library.add(ADMIN, [library.prepare((tiny_docs / "fees.md").read_bytes(), "exam-fees-copy.md")])
    library.add(ADMIN, [library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")])
    after_first = _snapshot(library)
    other_text = [(t.replace("7 years", "9 years"), s) for t, s in RESEARCH_ETHICS]
    with pytest.raises(DocumentError, match="id research-ethics is already in the library"):
        library.add(ADMIN, [library.prepare(make_pdf(other_text), "research-ethics.pdf")])
    with pytest.raises(DocumentError, match="duplicate of research-ethics"):
        library.add(ADMIN, [library.prepare(make_pdf(RESEARCH_ETHICS), "ethics-again.pdf")])
    assert _snapshot(library) == after_first and after_first != before


def test_one_bad_file_in_a_batch_adds_none(library):
    before = _snapshot(library)
    good = library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")
    dup = library.prepare(make_pdf(RESEARCH_ETHICS), "copy-of-ethics.pdf")
    with pytest.raises(DocumentError, match="same text"):
        library.add(ADMIN, [good, dup])
    assert _snapshot(library) == before


def test_a_failure_halfway_leaves_the_index_as_it_was(library, monkeypatch):
    library.add(ADMIN, [library.prepare(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")])
    before = _snapshot(library)
    statuses = {c["chunk_id"]: c["status"] for c in library.chunks(ADMIN, "research-ethics")}
    real_add = library.index.add_nodes

    def failing_add(nodes, *args, **kwargs):
        raise OSError("disk full")

    changed = [(t.replace("7 years", "10 years"), s) for t, s in RESEARCH_ETHICS]
    prepared = library.prepare(make_pdf(changed), "ethics-v2.pdf", doc_id="research-ethics")
    monkeypatch.setattr(library.index, "add_nodes", failing_add)
    with pytest.raises(OSError):
        library.replace(ADMIN, "research-ethics", prepared)
    monkeypatch.setattr(library.index, "add_nodes", real_add)
    assert _snapshot(library) == before
    assert {c["chunk_id"]: c["status"] for c in library.chunks(ADMIN, "research-ethics")} == statuses
    assert not library.journal.journal_path.exists()


def test_a_change_left_half_done_by_a_killed_process_is_rolled_back_and_audited(library):
    plan = {"event": "document_added", "doc_id": "gone", "phase": "applying", "old": [], "changes": {}, "new": []}
    library.journal.write_journal(plan)
    assert library.recover() == "rolled_back"
    last = library.audit.records()[-1]
    assert last["event"] == "document_change_rolled_back"
    assert last["details"] == {"doc_id": "gone", "change": "document_added"}
    assert not library.journal.journal_path.exists()
    assert library.recover() == ""


def test_a_pdf_policy_is_indexed_with_its_pages_and_answered_from_its_table(library):
    """Issue 32: a PDF with a table, hyphenated line breaks and numbered sub-headings, added through
    the library into the real index: every chunk has its page, the table's row answers, and the
    hyphenated compound is a word the gate finds."""
    from tests.layout_pdfs import make_loans_policy_pdf

    prepared = library.prepare(make_loans_policy_pdf(), "loans-policy.pdf")
    assert (prepared.version, prepared.effective_date) == ("2.0", "2026-08-01")
    library.add(ADMIN, [prepared])
    nodes = library.index.get_nodes(where={"doc_id": "loans-policy"})
    assert nodes and all(isinstance(n.metadata.get("page"), int) for n in nodes)
    assert {n.metadata["page"] for n in nodes} == {1, 2}
    assert sorted(r["page"] for r in library.chunks(ADMIN, "loans-policy")) == sorted(n.metadata["page"] for n in nodes)
    answer = library.engine.ask("What is the loan period for a postgraduate student?", log=False)
    assert answer.decision == "answer" and "30 days" in answer.text
    cited = library.index.get_nodes([c.chunk_id for c in answer.citations])
    assert any(n.metadata["doc_id"] == "loans-policy" and n.metadata["page"] == 1 for n in cited)
    answer = library.engine.ask("Do I need a no-dues certificate from the library before my degree?", log=False)
    assert answer.decision == "answer" and "no-dues certificate" in answer.text
    assert answer.support is not None and "no-dues" not in answer.support.missing_terms


def test_a_replaced_pdf_chunk_takes_its_new_page(library):
    """Unchanged chunks keep their vectors on replace; their page is the new version's."""
    from pipeline.ingest.chunking import without_page_markers
    from pipeline.ingest.convert import convert
    from tests.layout_pdfs import make_loans_policy_pdf

    library.add(ADMIN, [library.prepare(make_loans_policy_pdf(), "loans-policy.pdf")])
    same_text = without_page_markers(convert(make_loans_policy_pdf(), "loans-policy.pdf").markdown)
    prepared = library.prepare(same_text.encode(), "loans-policy.md", doc_id="loans-policy")
    result = library.replace(ADMIN, "loans-policy", prepared)
    assert result.created == []  # the same text: every vector kept
    active = [r for r in library.chunks(ADMIN, "loans-policy") if r["status"] == "active"]
    assert active and all(r["page"] == 0 for r in active)  # a Markdown file has no pages


def test_a_scan_is_read_by_ocr_and_the_library_says_so(library, ocr_ready):
    from tests.layout_pdfs import make_scanned_policy_pdf

    prepared = library.prepare(make_scanned_policy_pdf(), "parking.pdf")
    assert any(line.strip().startswith("! Text read by OCR (tesseract)") for line in prepared.audit_lines())
    (result,) = library.add(ADMIN, [prepared])
    assert "Text read by OCR" in result.message and "confidence" in result.message
    nodes = library.index.get_nodes(where={"doc_id": "parking"})
    assert nodes and all(n.metadata["text_source"] == "ocr" for n in nodes)
    assert all(80 <= n.metadata["ocr_confidence"] <= 100 for n in nodes)
    answer = library.engine.ask("Where do students park?", log=False)
    assert answer.decision == "answer" and "zone C" in answer.text


TRAVEL = """# Travel Allowance Policy

## 1. Claims

Staff claim travel costs within 30 days of the journey. Mileage in a private car is paid at a flat rate per mile.
Receipts are attached to every claim over a small amount.

## 2. Approval

The line manager approves each claim within ten working days. Claims without receipts are returned to the claimant.
"""


def test_an_upload_checked_for_conflicts_is_not_embedded_again_by_the_critic_or_when_added(
    library, embed_model, encoder_calls
):
    from governance.critic.service import PolicyCritic

    def encoded() -> set[str]:
        return {text for call in encoder_calls for text in call}

    embed_model.memo.clear()
    prepared = library.prepare(TRAVEL.encode(), "travel.md")
    library.conflicts([prepared])  # the Documents tab's check
    scanned = encoded()
    assert "Staff claim travel costs within 30 days of the journey." in scanned
    encoder_calls.clear()
    PolicyCritic(library.index, embed_model).critique_uploads(ADMIN, [(TRAVEL.encode(), "travel.md")])
    assert not scanned & encoded()  # the critic recalls the check's sentence vectors
    encoder_calls.clear()
    library.add(ADMIN, [prepared])
    assert encoded() and not scanned & encoded()  # the chunks are embedded; their sentences are recalled
    assert library.index.sentence_vectors.count() > 0
    assert "travel" in {m.get("doc_id") for m in library.index.collection.get(include=["metadatas"])["metadatas"]}
