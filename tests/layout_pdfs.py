"""PDFs laid out as people make them, generated with reportlab in the test (no file is checked in):
a running header and footer on every page, a title, "Version:" and "Effective date:" lines, numbered
headings set in bold at the body's size, lines that break at a hyphen, a ruled table with a bold
header row, and a page set in two columns. Also a scan: the same kind of page as a picture only.

Each line is placed by hand (`canvas.drawString`), so where a line breaks is what the test says.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

HEADER = "Central Library - Loans Policy"
FOOTER = "Page {page} of {pages}"
BODY = ("Helvetica", 10.0)
BOLD = ("Helvetica-Bold", 10.0)

# What the first page says, line by line: (text, font) or a gap (None, points).
PAGE_ONE: list[tuple[str | None, tuple[str, float] | float]] = [
    ("Library Loans Policy", ("Helvetica-Bold", 18.0)),
    (None, 6.0),
    ("Version: 2.0", BODY),
    ("Effective date: 2026-08-01", BODY),
    (None, 8.0),
    ("1. Purpose", ("Helvetica-Bold", 13.0)),
    ("This policy sets how long members of the University may keep the books they borrow from the", BODY),
    ("Central Library, how loans are renewed, and what happens when a book is returned late. Every", BODY),
    ("student who leaves the University must obtain a no-", BODY),
    ("dues certificate from the library before the degree is awarded. A student who disputes a fine", BODY),
    ("may apply for re-", BODY),
    ("valuation of the fine to the Chief Librarian within seven days of the notice.", BODY),
    (None, 8.0),
    ("4. Loan Periods", ("Helvetica-Bold", 13.0)),
    ("The loan period and the number of books depend on who borrows them, as the table shows.", BODY),
]
TABLE = [
    ["Borrower", "Books", "Loan period", "Renewals"],
    ["Undergraduate student", "6", "14 days", "2"],
    ["Postgraduate student", "10", "30 days", "3"],
    ["Faculty member", "20", "90 days", "5"],
]
AFTER_TABLE: list[tuple[str | None, tuple[str, float] | float]] = [
    (None, 10.0),
    ("4.1 Renewal of Loans", BOLD),
    ("A loan may be renewed online or at the circulation desk before it is due, unless another", BODY),
    ("member has reserved the book. A renewed loan runs for the full loan period again from the day", BODY),
    ("it is renewed, and a book may be renewed at most the number of times the table allows.", BODY),
]
# The second page: a heading across the page, then two columns.
PAGE_TWO_HEADING = "5. Fines and Returns"
LEFT_COLUMN = [
    "Fines are charged for every day a",
    "book is kept after its due date, at",
    "Rs. 5 per day for an ordinary book",
    "and Rs. 20 per day for a reserved",
    "book. A fine is waived when the",
    "library was closed on the due date.",
    "Borrowing is suspended while a",
    "member owes more than Rs. 200.",
]
RIGHT_COLUMN = [
    "Books are returned at the drop box",
    "beside the main entrance at any",
    "hour, or at the circulation desk",
    "during opening hours. A returned",
    "book is checked in on the next",
    "working day, and the member is",
    "sent a receipt by e-mail once the",
    "return has been recorded.",
]


def _canvas(pages: int) -> tuple[io.BytesIO, Any, Callable[[Any, int], None]]:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    pdf.setTitle("")
    width, height = A4

    def furniture(c, page: int) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(72, height - 40, HEADER)
        c.drawRightString(width - 72, 30, FOOTER.format(page=page, pages=pages))

    return out, pdf, furniture


def _lines(pdf, y: float, lines) -> float:
    for text, style in lines:
        if text is None:
            y -= style
            continue
        font, size = style
        y -= size * 1.45
        pdf.setFont(font, size)
        pdf.drawString(72, y, text)
    return y


def make_loans_policy_pdf() -> bytes:
    """Two A4 pages: the policy above, with the table on page one and two columns on page two."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import Table, TableStyle

    width, height = A4
    out, pdf, furniture = _canvas(pages=2)
    furniture(pdf, 1)
    y = _lines(pdf, height - 72, PAGE_ONE)
    table = Table(TABLE, colWidths=[170, 60, 100, 80])
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 10),
                ("FONT", (0, 1), (-1, -1), "Helvetica", 10),
            ]
        )
    )
    _, table_height = table.wrapOn(pdf, width, height)
    y -= 10 + table_height
    table.drawOn(pdf, 72, y)
    _lines(pdf, y, AFTER_TABLE)
    pdf.showPage()

    furniture(pdf, 2)
    y = _lines(pdf, height - 72, [(PAGE_TWO_HEADING, ("Helvetica-Bold", 13.0)), (None, 4.0)])
    # Drawn across the page, a line of each column in turn (as many writers emit them): reading
    # in drawing order would interleave the columns.
    pdf.setFont(*BODY)
    for left, right in zip(LEFT_COLUMN, RIGHT_COLUMN, strict=True):
        y -= 14.5
        pdf.drawString(72, y, left)
        pdf.drawString(width / 2 + 10, y, right)
    pdf.showPage()
    pdf.save()
    return out.getvalue()


SCANNED_LINES = [
    ("Parking Permit Policy", 30),
    ("", 0),
    ("Staff park in zone A and students", 22),
    ("park in zone C after buying a", 22),
    ("permit at the security office.", 22),
    ("A permit costs 40 dollars a year", 22),
    ("and is shown on the windscreen.", 22),
    ("Visitors park in zone B for free.", 22),
]


def make_scanned_policy_pdf(lines=SCANNED_LINES, text_page: list[str] | None = None) -> bytes:
    """A one-page PDF holding only a picture of printed text, as a scanner without OCR makes it;
    with `text_page`, a page of those lines (a text layer) comes first."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    dpi = 200
    width, height = A4
    image = Image.new("L", (int(width / 72 * dpi), int(height / 72 * dpi)), 255)
    draw = ImageDraw.Draw(image)
    y = 200
    for text, points in lines:
        if not text:
            y += 40
            continue
        font = ImageFont.load_default(size=points * dpi / 72)
        draw.text((160, y), text, fill=0, font=font)
        y += int(points * dpi / 72 * 1.5)
    picture = io.BytesIO()
    image.save(picture, format="PNG")
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    if text_page:
        _lines(pdf, height - 72, [(text, BODY) for text in text_page])
        pdf.showPage()
    pdf.drawImage(ImageReader(io.BytesIO(picture.getvalue())), 0, 0, width=width, height=height)
    pdf.showPage()
    pdf.save()
    return out.getvalue()


def make_long_table_pdf(rows: int = 70, running_header: str = "") -> bytes:
    """A table of `rows` rows that runs over a page break, its header row repeated on the next page
    (reportlab's platypus, as a report writer lays it out), with a running footer and, if given, a
    running header at the top right of every page."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    styles = getSampleStyleSheet()
    data = [["Grade", "Daily allowance", "Hotel limit"]]
    data += [[f"Grade {n}", f"{20 + n} dollars", f"{100 + 5 * n} dollars"] for n in range(1, rows + 1)]
    table = Table(data, repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 10),
            ]
        )
    )

    def footer(canvas, document) -> None:
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, 30, f"Travel Allowances - page {document.page}")
        if running_header:
            canvas.drawRightString(A4[0] - 72, A4[1] - 36, running_header)

    out = io.BytesIO()
    story = [
        Paragraph("Travel Allowances", styles["Title"]),
        Paragraph("1. Allowances by Grade", styles["Heading2"]),
        Paragraph(
            "Each grade is paid the daily allowance below and may claim a hotel up to its limit.", styles["BodyText"]
        ),
        table,
    ]
    SimpleDocTemplate(out, pagesize=A4).build(story, onFirstPage=footer, onLaterPages=footer)
    return out.getvalue()


def make_dense_pdf(pages: int = 20) -> bytes:
    """`pages` pages of body text, about 3,500 characters each, every paragraph naming its page
    ("... (page 7, paragraph 3)") and no two pages starting with the same words."""
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    body = getSampleStyleSheet()["BodyText"]
    sentences = [
        "The revaluation fee is 800 rupees per course.",
        "Applications go to the Controller of Examinations within fifteen days of the result.",
        "A student may ask for a photocopy of the answer book before applying.",
        "Marks that change by less than five are not revised.",
        "The result of revaluation is final and no further review is allowed.",
        "Fees paid for revaluation are refunded when the grade improves.",
        "Late applications are not accepted, whatever the reason.",
    ]
    story: list = []
    for page in range(1, pages + 1):
        for n in range(1, 12):
            start = (page * 3 + n) % len(sentences)
            text = " ".join((sentences[start:] + sentences[:start])[:4])
            story.append(Paragraph(f"{text} (page {page}, paragraph {n})", body))
        story.append(PageBreak())
    out = io.BytesIO()
    SimpleDocTemplate(out).build(story)
    return out.getvalue()


LOANS_HTML = """<html><head><title>Library Loans Policy</title><style>
body {{ font-family: sans-serif; font-size: 11pt }} table {{ border-collapse: collapse }}
td, th {{ border: 1px solid #444; padding: 4px }}</style></head><body>
<h1>Library Loans Policy</h1><p>Version: 2.0<br>Effective date: 2026-08-01</p>
<h2>4. Loan Periods</h2><p>The loan period and the number of books depend on who borrows them.</p>
<table><tr><th>Borrower</th><th>Books</th><th>Loan period</th></tr>
<tr><td>Undergraduate student</td><td>6</td><td>14 days</td></tr>
<tr><td>Postgraduate student</td><td>10</td><td>30 days</td></tr></table>
<h3>4.1 Renewal of Loans</h3><p>A loan may be renewed online or at the circulation desk before it
is due, unless another member has reserved the book.</p>
<h2 style="break-before: page">5. Fines</h2>{fines}</body></html>"""
FINES = "<p>A fine of Rs. 5 per day is charged for each day a book is kept after its due date.</p>"


def print_to_pdf(browser, html: str) -> bytes:
    """`html` printed to PDF by chromium (Playwright's page.pdf: the browser's print-to-PDF), with
    the browser's own running header (date, title) and footer (address, page n/N)."""
    page = browser.new_page()
    try:
        page.set_content(html)
        return page.pdf(display_header_footer=True, format="A4", margin={"top": "2cm", "bottom": "2cm"})
    finally:
        page.close()
