"""A PDF policy read as people wrote it (issue 32): its table as a table, words broken at line-end
hyphens joined, numbered sub-headings kept as headings, its Version and Effective date lines as
metadata, each chunk's page, two columns read one after the other, and the running header and
footer out of every chunk. On PDFs generated in the test (tests/layout_pdfs.py), through the real
conversion (a child process reading with pdfplumber) and the real chunker."""

from __future__ import annotations

import re

import pytest

from pipeline.ingest.chunking import chunk_document
from pipeline.ingest.convert import convert
from pipeline.ingest.documents import document_from_text
from tests.layout_pdfs import (
    FINES,
    FOOTER,
    HEADER,
    LEFT_COLUMN,
    LOANS_HTML,
    RIGHT_COLUMN,
    make_loans_policy_pdf,
    make_long_table_pdf,
    print_to_pdf,
)


@pytest.fixture(scope="module")
def loans():
    converted = convert(make_loans_policy_pdf(), "loans-policy.pdf")
    document = document_from_text(
        converted.markdown,
        converted.name,
        converted.kind,
        title=converted.title,
        version=converted.version,
        effective_date=converted.effective_date,
    )
    return converted, chunk_document(document)


def _chunk_with(chunks, words: str):
    return next(c for c in chunks if words in c.text)


def test_a_ruled_table_is_read_row_by_row_with_its_headers(loans):
    _, chunks = loans
    table = _chunk_with(chunks, "Postgraduate student")
    assert "- Borrower: Postgraduate student; Books: 10; Loan period: 30 days; Renewals: 3" in table.text
    assert "- Borrower: Faculty member; Books: 20; Loan period: 90 days; Renewals: 5" in table.text
    assert "Borrower Books Loan period" not in table.text  # not the header run into the rows


def test_words_broken_at_a_line_end_hyphen_are_joined_as_written(loans):
    converted, _ = loans
    text = converted.markdown
    assert "obtain a no-dues certificate" in text  # a compound keeps its hyphen
    assert "apply for revaluation of the fine" in text  # a word broken by the typesetter is whole
    assert not re.search(r"\w- \w", text)


def test_a_numbered_sub_heading_stays_a_heading(loans):
    converted, chunks = loans
    assert "### 4.1 Renewal of Loans" in converted.markdown
    renewal = _chunk_with(chunks, "A loan may be renewed online")
    assert "4.1" in renewal.section_numbers.split(",")
    assert "Renewal of Loans A loan" not in renewal.text
    assert renewal.text.startswith("A loan may be renewed") or "4.1 Renewal of Loans\nA loan" in renewal.text


def test_version_and_effective_date_lines_are_the_documents_metadata(loans):
    converted, chunks = loans
    assert (converted.title, converted.version, converted.effective_date) == (
        "Library Loans Policy",
        "2.0",
        "2026-08-01",
    )
    assert {(c.version, c.effective_date) for c in chunks} == {("2.0", "2026-08-01")}


def test_every_chunk_keeps_the_page_it_begins_on(loans):
    from pipeline.ingest.index import chunk_to_node

    _, chunks = loans
    assert all(c.page in (1, 2) for c in chunks)
    assert _chunk_with(chunks, "Postgraduate student").page == 1
    assert _chunk_with(chunks, "Fines are charged").page == 2
    metadata = chunk_to_node(_chunk_with(chunks, "Fines are charged")).metadata
    assert metadata["page"] == 2 and isinstance(metadata["page"], int)


def test_two_columns_are_read_one_after_the_other(loans):
    _, chunks = loans
    text = " ".join(_chunk_with(chunks, "Fines are charged").text.split())
    left, right = " ".join(LEFT_COLUMN), " ".join(RIGHT_COLUMN)
    assert left in text and right in text
    assert text.index(left) < text.index(right)


def test_a_running_header_and_footer_stay_out_of_the_chunks(loans):
    converted, chunks = loans
    for chunk in chunks:
        assert HEADER not in chunk.text and "Central Library - Loans" not in chunk.text
        assert not re.search(r"Page \d of \d", chunk.text)
    assert FOOTER.format(page=1, pages=2) not in converted.markdown


def test_a_table_running_over_a_page_break_is_read_as_one():
    converted = convert(make_long_table_pdf(rows=70, running_header="Version: 3.1"), "travel.pdf")
    assert converted.markdown.count("| Grade | Daily allowance | Hotel limit |") == 1  # the repeat dropped
    assert converted.markdown.count("<!-- page 2 -->") == 0  # nothing else begins on page 2
    chunks = chunk_document(document_from_text(converted.markdown, converted.name, converted.kind))
    rows = [line for c in chunks for line in c.text.splitlines() if line.startswith("- Grade:")]
    assert len(rows) == 70 and rows[-1] == "- Grade: Grade 70; Daily allowance: 90 dollars; Hotel limit: 450 dollars"
    assert all("Travel Allowances - page" not in c.text for c in chunks)
    assert converted.version == "3.1"  # read from the running header, which is left out of the text
    assert "Version: 3.1" not in converted.markdown


def test_a_markdown_file_gets_no_page():
    converted = convert(
        b"# Leave Policy\n\n## 1. Annual Leave\n\n" + b"Staff take annual leave by agreement. " * 8, "leave.md"
    )
    chunks = chunk_document(document_from_text(converted.markdown, converted.name, converted.kind))
    assert chunks and all(c.page == 0 for c in chunks)


@pytest.mark.browser
def test_a_policy_printed_to_pdf_by_a_browser_reads_as_its_web_page_does(browser):
    """The issue's case: a browser's print-to-PDF of a policy page. Its chunks say what the page's
    own HTML conversion says, page by page, without the browser's header and footer."""
    html = LOANS_HTML.format(fines=FINES)
    pdf = convert(print_to_pdf(browser, html), "loans-policy.pdf")
    web = convert(html.encode(), "loans-policy.html")
    assert (pdf.version, pdf.effective_date) == (web.version, web.effective_date) == ("2.0", "2026-08-01")

    def chunks(converted):
        return chunk_document(document_from_text(converted.markdown, converted.name, converted.kind))

    printed, page = chunks(pdf), chunks(web)
    assert [(c.section, c.text) for c in printed] == [(c.section, c.text) for c in page]
    assert "- Borrower: Postgraduate student; Books: 10; Loan period: 30 days" in _chunk_with(printed, "30 days").text
    assert [c.page for c in printed] == [1] * (len(printed) - 1) + [2]  # "5. Fines" begins page 2
