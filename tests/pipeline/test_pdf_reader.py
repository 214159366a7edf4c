"""Untrusted PDFs are read with limits, in a child process that is killed past its budget, and
scans are read by OCR where tesseract is installed (issue 32) or refused with how to enable it."""

from __future__ import annotations

import time
from dataclasses import replace

import psutil
import pytest

from pipeline.ingest.convert import ConversionRefused, convert
from tests.documents_fixtures import make_xobject_bomb
from tests.layout_pdfs import (
    make_dense_pdf,
    make_loans_policy_pdf,
    make_long_table_pdf,
    make_scanned_policy_pdf,
)


def _workers() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if "pdf_worker" in " ".join(p.cmdline())]


def test_a_document_pdf_too_costly_to_read_is_refused_at_once():
    """A few KB whose pages draw one form XObject 400 times each: 3.2 million text operations that a
    reader expanding every draw would run (minutes); counted first, refused."""
    bomb = make_xobject_bomb(pages=4, draws=400, ops=2000)
    assert len(bomb) < 10_000
    started = time.monotonic()
    with pytest.raises(ConversionRefused, match="too complex to read"):
        convert(bomb, "circular.pdf")
    assert time.monotonic() - started < 30
    assert not _workers()


def test_reading_past_the_budget_is_stopped_and_the_reader_killed():
    from pipeline.ingest.pdf_reader import PdfLimits, PdfRefused, read_layout

    with pytest.raises(PdfRefused, match="took longer than"):
        read_layout(make_long_table_pdf(rows=200), PdfLimits(budget_s=0.3))
    assert not _workers()


def test_a_pdf_with_more_pages_than_the_limit_is_refused():
    from pipeline.ingest.pdf_reader import PdfLimits, PdfRefused, read_layout

    with pytest.raises(PdfRefused, match="has 2 pages; at most 1"):
        read_layout(make_loans_policy_pdf(), PdfLimits(max_pages=1))


def test_a_scan_is_read_by_ocr_and_says_so(ocr_ready):
    converted = convert(make_scanned_policy_pdf(), "parking.pdf")
    assert "park in zone C after buying a permit" in converted.markdown
    assert "40 dollars a year" in converted.markdown
    assert converted.title == "Parking Permit Policy"
    assert 80 <= converted.ocr_confidence <= 100
    assert converted.notes and converted.notes[0].startswith("Text read by OCR (tesseract) from page 1")
    assert "confidence" in converted.notes[0]


def test_a_scan_is_refused_with_how_to_enable_ocr_where_tesseract_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on this PATH
    with pytest.raises(ConversionRefused) as refused:
        convert(make_scanned_policy_pdf(), "parking.pdf")
    message = str(refused.value)
    assert message.startswith("parking.pdf is a scan (no text layer): OCR is not installed here.")
    assert "apt-get install tesseract-ocr" in message


def test_scanned_pages_of_a_pdf_with_text_are_named_where_tesseract_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    text = ["Parking Permit Policy", "Permits are sold at the security office on weekdays from 9 am to 4 pm,"]
    text += ["and a lost permit is replaced for a fee of 5 dollars on showing a receipt."]
    converted = convert(make_scanned_policy_pdf(text_page=text), "parking.pdf")
    assert "a lost permit is replaced for a fee of 5 dollars" in converted.markdown
    assert "Staff park in zone A" not in converted.markdown
    assert converted.notes[0].startswith("Page 2 is a scan and was not read: OCR is not installed here.")
    assert "apt-get install tesseract-ocr" in converted.notes[0] and converted.ocr_confidence == -1


def test_a_proofs_text_is_read_by_layout_within_the_proof_limits():
    """A claim's proof (any user's upload): its first 20 pages within 10 seconds, read as documents
    are; "" for a damaged file; refused, with advice for a claimant, when too costly."""
    from pipeline.ingest.pdf_layout import pdf_text
    from pipeline.ingest.pdf_reader import PROOF_LIMITS, PdfRefused

    text = pdf_text(make_loans_policy_pdf())
    assert "obtain a no-dues certificate" in text and "Borrower | Books | Loan period" in text
    assert "<!--" not in text and "Central Library - Loans Policy" not in text
    # About 25 pages: the first 20 are read (all their text; the budget is no part of this check,
    # which a loaded two-core machine would otherwise decide).
    long = pdf_text(make_long_table_pdf(rows=1200), replace(PROOF_LIMITS, max_chars=0, budget_s=300))
    assert "Grade 1 |" in long and "Grade 1200 |" not in long and len(long) > 25_000
    assert pdf_text(b"%PDF-1.4\n" + bytes(range(256)) * 4) == ""
    started = time.monotonic()
    with pytest.raises(PdfRefused, match=r"too complex to read.*Paste the relevant text"):
        pdf_text(make_xobject_bomb(pages=4, draws=400, ops=1000))
    assert time.monotonic() - started < 10


def test_a_long_proof_is_read_until_what_a_claim_keeps_of_it():
    """A proof of 20 full pages (70,000 characters) was laid out page by page past its 10 seconds and
    refused; a claim keeps 20,000 characters of it, so reading stops after the page that reaches them."""
    from pipeline.ingest.pdf_layout import pdf_text
    from pipeline.ingest.pdf_reader import PROOF_LIMITS

    text = pdf_text(make_dense_pdf(pages=20), replace(PROOF_LIMITS, budget_s=300))  # 1.1 s unloaded
    assert "(page 1, paragraph 1)" in text and "(page 5, paragraph 11)" in text and len(text) >= 15_000
    assert "(page 10," not in text and "(page 20," not in text
