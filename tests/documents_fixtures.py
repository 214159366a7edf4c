"""Real files made in the test: a text PDF (hand-written PDF syntax, Helvetica, headings set larger),
a DOCX (python-docx), an encrypted PDF and a scanned-like PDF without text (pypdf), a DOCX bomb."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

RESEARCH_ETHICS = [
    ("Research Ethics Policy", 20),
    ("1. Scope", 15),
    ("This policy applies to every research project at the Institute that involves human participants,", 11),
    ("their personal data or their tissue samples, whether funded or unfunded.", 11),
    ("2. Ethics Committee Approval", 15),
    ("A project involving human participants must be approved by the Institutional Ethics Committee", 11),
    ("before any participant is recruited. The committee meets on the first Tuesday of every month,", 11),
    ("and an application must reach the committee secretary at least 21 days before the meeting.", 11),
    ("3. Consent Records", 15),
    ("Signed consent forms are kept by the principal investigator for 7 years after the project ends,", 11),
    ("in a locked cabinet or an encrypted drive approved by the committee.", 11),
]

SPORTS_FACILITIES = [
    ("Sports Facilities Policy", "Title"),
    ("1. Opening Hours", "Heading 1"),
    (
        "The sports complex is open from 6 am to 9 pm on weekdays and from 7 am to 6 pm on weekends. "
        "It is closed on national holidays and during the end-semester examination week.",
        None,
    ),
    ("2. Booking Courts", "Heading 1"),
    (
        "Badminton and squash courts are booked through the sports office portal up to 3 days ahead. "
        "A booking that is not used within 15 minutes of its start is released to students waiting.",
        None,
    ),
]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(lines: Sequence[tuple[str, float]], title: str = "") -> bytes:
    """A one-page PDF with each (text, font size) on its own line, Helvetica, no compression."""
    y, ops = 800.0, []
    for text, size in lines:
        y -= size * 1.6
        ops.append(f"BT /F1 {size} Tf 50 {y:.0f} Td ({_escape(text)}) Tj ET")
    stream = "\n".join(ops).encode("latin-1")
    info = f"<< /Title ({_escape(title)}) >>".encode("latin-1") if title else b"<< >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        info,
    ]
    return _pdf_file(objects, b" /Info 6 0 R")


def _pdf_file(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of numbered `objects` (the first is the catalogue) with its cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R".encode()
        + trailer
        + f" >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def make_docx(paragraphs: list[tuple[str, str | None]], title: str = "") -> bytes:
    import docx

    document = docx.Document()
    for text, style in paragraphs:
        document.add_paragraph(text, style=style) if style else document.add_paragraph(text)
    if title:
        document.core_properties.title = title
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(make_pdf(RESEARCH_ETHICS))))
    writer.encrypt(user_password="secret-pw", owner_password="owner-pw", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_scanned_pdf() -> bytes:
    """A page with no text layer, as a scanner without OCR makes (here: blank)."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx_bomb() -> bytes:
    """A zip named .docx whose document.xml expands ~1000-fold to ~200 MB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            chunk = b"<w:t>" + b"A" * (1024 * 1024) + b"</w:t>"
            for _ in range(200):
                member.write(chunk)
    return out.getvalue()


def make_xobject_bomb(
    pages: int = 4, draws: int = 400, ops: int = 2000, form: bytes = b"", form_xobjects: bytes = b""
) -> bytes:
    """A small PDF that is costly to read: each of `pages` pages draws one form XObject `draws`
    times, and the form holds `ops` text operations (all streams Flate-compressed): what a reader
    that expands every draw does pages × draws × ops times (issue 27, finding 3). `form` replaces
    the form's content, `form_xobjects` adds to its resources (a form that draws itself)."""
    import zlib

    def stream(data: bytes, extra: bytes = b"") -> bytes:
        packed = zlib.compress(data, 9)
        return (
            b"<< /Length "
            + str(len(packed)).encode()
            + b" /Filter /FlateDecode "
            + extra
            + b">>\nstream\n"
            + packed
            + b"\nendstream"
        )

    form = form or b"BT /F1 12 Tf 10 10 Td " + b"(Circular: the fee is Rs. 800.) Tj " * ops + b"ET"
    page_content = b"q /X0 Do Q\n" * draws
    kids = " ".join(f"{5 + i} 0 R" for i in range(pages)).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count " + str(pages).encode() + b" >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        stream(
            form,
            b"/Type /XObject /Subtype /Form /BBox [0 0 612 842] /Resources << /Font << /F1 3 0 R >> "
            + form_xobjects
            + b" >> ",
        ),
    ]
    contents = 5 + pages
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /XObject << /X0 4 0 R >> >> "
        b"/Contents " + str(contents).encode() + b" 0 R >>"
        for _ in range(pages)
    ]
    objects.append(stream(page_content))
    return _pdf_file(objects)
