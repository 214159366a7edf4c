"""Conversion keeps headings (so structural chunking works), reads title/version/date from the file,
refuses what is not a document, and never touches the network."""

from __future__ import annotations

import socket

import pytest

from pipeline.ingest.chunking import without_page_markers
from pipeline.ingest.convert import ConversionRefused, check_file_name, convert
from tests.documents_fixtures import RESEARCH_ETHICS, SPORTS_FACILITIES, make_docx, make_pdf

HTML = b"""<html><head><title>Hostel Rules | Campus</title><script>track()</script><style>p{}</style></head>
<body><nav>Home | About</nav><h1>Hostel Rules</h1><p>Version: 2.0</p><p>Effective date: 2026-08-01</p>
<h2>1. Visitors</h2><p>Visitors may stay in the common room until 8 pm and sign the register at the gate
with a photo identity card every time they enter.</p><h2>2. Quiet Hours</h2><ul><li>Quiet hours run from
10 pm to 6 am.</li><li>Music is not played in corridors.</li></ul></body></html>"""


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("conversion tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_pdf_headings_come_from_larger_type():
    converted = convert(make_pdf(RESEARCH_ETHICS), "research-ethics.pdf")
    assert without_page_markers(converted.markdown).lstrip().startswith("# Research Ethics Policy")
    assert "## 2. Ethics Committee Approval" in converted.markdown
    assert "human participants, their personal data" in converted.markdown  # wrapped lines joined


def test_docx_heading_styles_become_headings():
    converted = convert(make_docx(SPORTS_FACILITIES), "sports.docx")
    assert converted.title == "Sports Facilities Policy"
    assert "## 1. Opening Hours" in converted.markdown and "## 2. Booking Courts" in converted.markdown


def test_html_keeps_headings_and_drops_scripts_and_navigation():
    converted = convert(HTML, "hostel.html")
    assert converted.title == "Hostel Rules"
    assert (converted.version, converted.effective_date) == ("2.0", "2026-08-01")
    assert "## 1. Visitors" in converted.markdown and "- Quiet hours run" in converted.markdown
    assert "track()" not in converted.markdown and "Home | About" not in converted.markdown


def test_markdown_front_matter_is_read():
    raw = (
        b"---\ntitle: Leave Policy\nversion: 3.2\neffective_date: 2026-01-01\n---\n# Leave\n\n"
        + b"Staff may take leave. " * 10
    )
    converted = convert(raw, "leave.md")
    assert (converted.title, converted.version, converted.effective_date) == ("Leave Policy", "3.2", "2026-01-01")


@pytest.mark.parametrize("name", ["../x.md", "a/b.pdf", "c:\\x.docx", ".env", "x\x00.md", "..", "policy"])
def test_path_like_or_extensionless_names_are_refused(name):
    with pytest.raises(ConversionRefused):
        check_file_name(name)


def test_latin1_text_is_refused_with_a_hint():
    with pytest.raises(ConversionRefused, match="UTF-8"):
        convert("Caf\u00e9 policy ".encode("latin-1") * 30, "cafe.txt")


def _docx_table(rows: list[tuple[str, str]], bold_first_row: bool) -> bytes:
    import io

    import docx

    document = docx.Document()
    document.add_paragraph("Limits", style="Title")
    document.add_paragraph("The limits below apply to every trip inside the country. " * 3)
    table = document.add_table(rows=len(rows), cols=2)
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            table.cell(r, c).paragraphs[0].add_run(text).bold = bold_first_row and r == 0
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_html_and_docx_tables_with_a_header_row_become_markdown_tables():
    html = (
        b"<html><body><h1>Limits</h1><p>The limits below apply to every trip inside the country, and claims"
        b" above a limit need the budget holder's approval first.</p><table><tr><th>Expense</th><th>Limit</th></tr>"
        b"<tr><td>Meals</td><td>50 <b>dollars</b></td></tr><tr><td>Hotel<td>200 dollars</table><p>After.</p></body></html>"
    )
    markdown = convert(html, "limits.html").markdown
    assert "| Expense | Limit |\n|---|---|\n| Meals | 50 dollars |\n| Hotel | 200 dollars |" in markdown
    assert "Meals50" not in markdown and markdown.rstrip().endswith("After.")
    rows = [("Expense", "Limit"), ("Meals", "50 dollars"), ("Hotel", "200 dollars")]
    docx_markdown = convert(_docx_table(rows, bold_first_row=True), "limits.docx").markdown
    assert "| Expense | Limit |\n|---|---|\n| Meals | 50 dollars |" in docx_markdown


def test_a_table_without_a_header_row_is_one_line_a_row():
    """Read as headers, a first data row would label every other row with its own values."""
    html = (
        b"<html><body><h1>Limits</h1><p>The limits below apply to every trip inside the country, and claims"
        b" above a limit need the budget holder's approval first.</p><table><tr><td>Meals</td><td>50 dollars</td>"
        b"</tr><tr><td>Hotel</td><td>200 dollars</td></tr></table></body></html>"
    )
    rows = [("Meals", "50 dollars"), ("Hotel", "200 dollars")]
    for markdown in (
        convert(html, "limits.html").markdown,
        convert(_docx_table(rows, bold_first_row=False), "limits.docx").markdown,
    ):
        assert "Meals | 50 dollars\n\nHotel | 200 dollars" in markdown
        assert "---|" not in markdown
