"""Uploaded files to Markdown: PDF (pdfplumber, by layout: pipeline.ingest.pdf_layout), DOCX
(python-docx), HTML (the standard library's parser), Markdown and plain text. Headings are kept as
`#` lines so that structural chunking still works; a PDF's pages are marked for the chunker.

Everything is checked before anything is indexed, and refused with a message that says what to do:
a name that is not a plain file name, an empty or oversize file, bytes that are not what the name
says (a renamed binary), a PDF that is encrypted, over its reading limits, or a scan where OCR
(tesseract) is not installed, a DOCX whose archive would expand to far more than it holds (a
decompression bomb). Nothing here touches the network or writes to disk; a PDF is opened only in a
child process with limits (pipeline.ingest.pdf_reader).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, replace
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import PurePosixPath

from pipeline.ingest.chunking import without_page_markers
from pipeline.ingest.documents import DocumentError, parse_front_matter
from pipeline.ingest.pdf_layout import pdf_markdown
from pipeline.ingest.pdf_reader import (
    OcrUnavailable,
    PdfPages,
    PdfRefused,
    ocr_scanned_pages,
    read_layout,
    tesseract_available,
)
from pipeline.ingest.tables import markdown_table
from pipeline.language.text import normalise_text

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
SUFFIXES = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
}
# A DOCX is a zip archive; these bound what opening one may cost.
MAX_DOCX_UNCOMPRESSED = 50 * 1024 * 1024
MAX_DOCX_RATIO = 100  # uncompressed / compressed, for any member over 1 MB uncompressed
MAX_DOCX_MEMBERS = 2000
MIN_TEXT_WORDS = 20
_META_LINE = re.compile(r"^\s*(version|effective(?:\s+date)?|effective from)\s*[:\-]\s*(.+?)\s*$", re.I)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
LOW_OCR_CONFIDENCE = 80.0  # below this mean word confidence (%), the Documents tab says to check the text


class ConversionRefused(DocumentError):
    """The file cannot become a policy document; the message is safe to show and says why."""


@dataclass(frozen=True)
class Converted:
    """A file as Markdown, with what the file itself says about its title, version and date."""

    name: str
    kind: str  # pdf | docx | html | markdown | text
    markdown: str
    title: str = ""
    version: str = ""
    effective_date: str = ""
    notes: tuple[str, ...] = ()  # what the admin should know about how it was read (OCR, skipped pages)
    ocr_confidence: float = -1.0  # OCR's mean word confidence (0-100); -1 when no page was read by OCR


def check_file_name(name: str) -> str:
    """The kind of a plain upload name; raises ConversionRefused for path-like or unsupported names."""
    name = (name or "").strip()
    if not name:
        raise ConversionRefused("The file has no name.")
    if (
        any(ch in name for ch in "/\\:")
        or any(ord(ch) < 32 for ch in name)
        or name.startswith(".")
        or ".." in name
        or name != PurePosixPath(name).name
    ):
        raise ConversionRefused(
            f"The name {name[:80]!r} looks like a path; use a plain file name such as ethics-policy.pdf."
        )
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in SUFFIXES:
        raise ConversionRefused(
            f"{name}: {suffix or 'a file without an extension'} is not accepted; upload "
            "PDF, DOCX, HTML, Markdown (.md) or text (.txt)."
        )
    return SUFFIXES[suffix]


def sniff(data: bytes) -> str:
    """What the bytes are: pdf, zip, text or binary (extension aside)."""
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        return "zip"
    head = data[:65536]
    if b"\x00" in head:
        return "binary"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the 64 KB boundary
            # Text in another encoding (refused later with a hint) or binary data?
            control = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
            return "binary" if control > len(head) // 100 else "text"
    return "text"


def convert(data: bytes, name: str) -> Converted:
    """Check and convert one file's bytes; raises ConversionRefused with a plain reason."""
    kind = check_file_name(name)
    if not data:
        raise ConversionRefused(f"{name} is empty (0 bytes).")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ConversionRefused(
            f"{name} is {len(data) / 1048576:.1f} MB; the limit is {MAX_UPLOAD_BYTES // 1048576} MB per file."
        )
    found = sniff(data)
    expected = {"pdf": "pdf", "docx": "zip"}.get(kind, "text")
    if found != expected:
        raise ConversionRefused(
            f"{name} is not a real {kind.upper() if kind != 'markdown' else 'Markdown'} "
            f"file (its content looks like {_describe(found)}); upload the document itself."
        )
    converter = {"pdf": _from_pdf, "docx": _from_docx, "html": _from_html}.get(kind, _from_text)
    converted = converter(data, name, kind)
    words = len(re.findall(r"\w+", without_page_markers(converted.markdown)))
    if words < MIN_TEXT_WORDS:
        hint = " If it is a scan, run OCR on it first." if kind == "pdf" else ""
        raise ConversionRefused(f"{name} has no usable text ({words} words found).{hint}")
    return converted


def _describe(found: str) -> str:
    return {"pdf": "a PDF", "zip": "a zip archive", "text": "plain text"}.get(found, "binary data")


# -- plain text and Markdown ------------------------------------------------------------------------
def _decode(data: bytes, name: str) -> str:
    try:
        return normalise_text(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConversionRefused(f"{name} is not UTF-8 text; save it as UTF-8 and upload it again.") from exc


def _from_text(data: bytes, name: str, kind: str) -> Converted:
    raw = _decode(data, name)
    fields, body = parse_front_matter(raw + "\n")
    meta = _metadata_lines(body)
    title = fields.get("title") or _first_heading(body)
    if kind == "text" and not body.lstrip().startswith("#"):
        lines = body.strip().splitlines()
        # A plain text policy's first short line is usually its title.
        if lines and len(lines[0]) < 120 and not lines[0].rstrip().endswith("."):
            title = title or lines[0].strip()
    return Converted(
        name,
        kind,
        raw,
        title,
        fields.get("version") or meta.get("version", ""),
        fields.get("effective_date") or meta.get("effective_date", ""),
    )


def _first_heading(body: str) -> str:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _metadata_lines(text: str) -> dict[str, str]:
    """ "Version: 2.1" and "Effective date: 2026-07-01" lines near the top of a document."""
    found: dict[str, str] = {}
    for line in text.splitlines()[:40]:
        m = _META_LINE.match(line.strip("*_ "))
        if not m:
            continue
        if m.group(1).lower() == "version":
            found.setdefault("version", m.group(2).split()[0].lstrip("vV"))
        else:
            date = _DATE.search(m.group(2))
            if date:
                found.setdefault("effective_date", date.group(1))
    return found


def _assemble(name: str, kind: str, lines: list[str], title: str) -> Converted:
    markdown = normalise_text("\n".join(lines))
    if title and not markdown.lstrip().startswith("# "):
        markdown = f"# {title}\n\n{markdown}"
    title = title or _first_heading(markdown)
    meta = _metadata_lines(markdown)
    return Converted(name, kind, markdown, title, meta.get("version", ""), meta.get("effective_date", ""))


# -- PDF ----------------------------------------------------------------------------------------------
def _from_pdf(data: bytes, name: str, kind: str) -> Converted:
    """A PDF read by layout (pipeline.ingest.pdf_layout) in a child process with limits
    (pipeline.ingest.pdf_reader); scanned pages are read by OCR where tesseract is installed.

    The last few readings are kept: the Documents tab converts a file when it is checked and again
    when it is added, and a long PDF or a scan takes seconds to minutes to read."""
    return _read_pdf(data, name, kind, tesseract_available())


@lru_cache(maxsize=4)
def _read_pdf(data: bytes, name: str, kind: str, ocr_installed: bool) -> Converted:
    notes: list[str] = []
    try:
        pdf = read_layout(data)
        scans = [p.number for p in pdf.pages if p.is_scan]
        try:
            ocr_scanned_pages(data, pdf)
        except OcrUnavailable as missing:
            if len(scans) == len(pdf.pages):
                raise ConversionRefused(f"{name} is a scan (no text layer): {missing}") from missing
            one = len(scans) == 1
            pages = f"Page {scans[0]} is a scan and was" if one else f"Pages {_page_list(scans)} are scans and were"
            notes.append(f"{pages} not read: {missing}")
    except PdfRefused as refused:
        raise ConversionRefused(f"{name}: {refused}") from refused
    text = pdf_markdown(pdf)
    title = pdf.title if len(pdf.title) > 3 else ""
    if any(line.startswith("# ") for line in text.lines):
        title = ""  # the document's own title, set as one, comes first
    converted = _assemble(name, kind, text.lines, title)
    # A running header or footer ("Version 2.0 | Effective 2026-08-01") may carry the metadata.
    furniture = _metadata_lines("\n".join(cell for line in text.furniture for cell in line.split(" | ")))
    confidence = _ocr_confidence(pdf)
    if confidence >= 0:
        read = [p.number for p in pdf.pages if p.ocr]
        notes.insert(
            0,
            f"Text read by OCR (tesseract) from {'page' if len(read) == 1 else 'pages'} {_page_list(read)}: "
            f"mean word confidence {confidence:.0f}%."
            + (
                " Some words may be misread; check the chunks before adding." if confidence < LOW_OCR_CONFIDENCE else ""
            ),
        )
    return replace(
        converted,
        version=converted.version or furniture.get("version", ""),
        effective_date=converted.effective_date or furniture.get("effective_date", ""),
        notes=tuple(notes),
        ocr_confidence=confidence,
    )


def _ocr_confidence(pdf: PdfPages) -> float:
    """OCR's mean word confidence (0-100, weighted by word length); -1 when no page was read by OCR."""
    words = [w for p in pdf.pages if p.ocr for w in p.words]
    letters = sum(len(w.text) for w in words)
    return sum(w.confidence * len(w.text) for w in words) / letters if letters else -1.0


def _page_list(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


# -- DOCX -------------------------------------------------------------------------------------------
def _check_docx_archive(data: bytes, name: str) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ConversionRefused(f"{name} is not a valid DOCX file (damaged archive).") from exc
    members = archive.infolist()
    if len(members) > MAX_DOCX_MEMBERS:
        raise ConversionRefused(f"{name} holds {len(members)} parts; a Word document has far fewer. Refused.")
    total = sum(m.file_size for m in members)
    if total > MAX_DOCX_UNCOMPRESSED:
        raise ConversionRefused(
            f"{name} would expand to {total / 1048576:.0f} MB (a decompression bomb?); "
            f"the limit is {MAX_DOCX_UNCOMPRESSED // 1048576} MB. Refused."
        )
    for m in members:
        if m.file_size > 1024 * 1024 and m.file_size > MAX_DOCX_RATIO * max(m.compress_size, 1):
            raise ConversionRefused(
                f"{name} expands {m.file_size // max(m.compress_size, 1)}-fold in "
                f"{m.filename} (a decompression bomb?). Refused."
            )
    if "word/document.xml" not in {m.filename for m in members}:
        raise ConversionRefused(f"{name} is a zip archive but not a Word document.")


def _docx_header_row(table) -> bool:
    """Word marks a header row as repeating on each page (w:tblHeader); many authors only set it in
    bold. Either makes the first row the table's header."""
    from docx.oxml.ns import qn

    if not table.rows:
        return False
    row = table.rows[0]
    if row._tr.trPr is not None and row._tr.trPr.find(qn("w:tblHeader")) is not None:
        return True
    runs = [run for cell in row.cells for paragraph in cell.paragraphs for run in paragraph.runs if run.text.strip()]
    return bool(runs) and all(run.bold for run in runs)


def _from_docx(data: bytes, name: str, kind: str) -> Converted:
    _check_docx_archive(data, name)
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several types for damaged parts
        raise ConversionRefused(f"{name} cannot be read as a Word document ({type(exc).__name__}).") from exc
    lines: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            # a merged cell is repeated in each column it spans: kept once
            rows = [list(dict.fromkeys(c.text.strip() for c in row.cells)) for row in block.rows]
            lines.extend(markdown_table(rows, header=_docx_header_row(block)))
            continue
        text = block.text.strip()
        if not text:
            continue
        style = (block.style.name if block.style is not None else "") or ""
        level = _docx_heading_level(style)
        if level:
            lines.extend(["", "#" * level + " " + text, ""])
        elif style.lower().startswith("list"):
            lines.append("- " + text)
        else:
            lines.extend([text, ""])
    title = (document.core_properties.title or "").strip()
    return _assemble(name, kind, lines, title)


def _docx_heading_level(style: str) -> int:
    if style == "Title":
        return 1
    m = re.match(r"Heading (\d)", style)
    return min(int(m.group(1)) + 1, 6) if m else 0


# -- HTML -------------------------------------------------------------------------------------------
class _HTMLToMarkdown(HTMLParser):
    """Headings to `#` lines, paragraphs and list items to lines; scripts, styles and page chrome dropped."""

    _SKIP = {"script", "style", "nav", "header", "footer", "noscript", "template", "svg", "head"}
    _BLOCK = {"p", "div", "li", "br", "section", "article", "ul", "ol", "dd", "dt", "blockquote"}
    _CELL = {"td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.title = ""
        self._buffer: list[str] = []
        self._skip = 0
        self._heading = 0
        self._in_title = False
        # A table's rows of cell texts, written out as a Markdown table when it closes; a table
        # inside a cell is read as that cell's text.
        self._tables = 0
        self._rows: list[list[str]] = []
        self._row: list[str] | None = None
        self._header = False  # the first row's cells are all <th>

    def _end_cell(self) -> None:
        if self._row is not None:
            self._row.append(re.sub(r"\s+", " ", "".join(self._buffer)).strip())
        self._buffer = []

    def _end_row(self) -> None:
        if self._row is not None and self._buffer and "".join(self._buffer).strip():
            self._end_cell()
        if self._row:
            self._rows.append(self._row)
        self._row = None

    def _table_tag(self, tag: str, start: bool) -> bool:
        """Table structure and what lies in its cells; False when `tag` is outside any table."""
        if tag == "table":
            if start and self._tables == 0:
                self._flush()
                self._rows = []
                self._header = True
            self._tables += 1 if start else -1
            if not start and self._tables == 0:
                self._end_row()
                self.lines.extend(markdown_table(self._rows, header=self._header))
                self._buffer = []
            self._tables = max(self._tables, 0)
            return True
        if self._tables == 0 or self._tables > 1:
            if self._tables > 1 and (tag in self._CELL or tag in self._BLOCK):
                self._buffer.append(" ")
            return self._tables > 1
        if tag == "tr":
            self._end_row()
            self._row = [] if start else None
        elif tag in self._CELL:
            if start:
                if self._row is None:
                    self._row = []
                if not self._rows and tag == "td":
                    self._header = False
                if "".join(self._buffer).strip():
                    self._end_cell()
                self._buffer = []
            else:
                self._end_cell()
        elif tag in self._BLOCK or re.fullmatch(r"h[1-6]", tag):
            self._buffer.append(" ")
        return True

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self._in_title = True
        if tag in self._SKIP:
            self._skip += 1
        elif self._table_tag(tag, start=True):
            pass
        elif re.fullmatch(r"h[1-6]", tag):
            self._flush()
            self._heading = int(tag[1])
        elif tag in self._BLOCK:
            self._flush()
            if tag == "li":
                self._buffer.append("- ")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif self._table_tag(tag, start=False):
            pass
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCK:
            self._flush()

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        elif not self._skip:
            self._buffer.append(data)

    def _flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self._buffer)).strip()
        self._buffer = []
        if text and text != "-":
            if self._heading:
                self.lines.extend(["", "#" * self._heading + " " + text, ""])
            else:
                self.lines.extend([text, ""])
        self._heading = 0


def _from_html(data: bytes, name: str, kind: str) -> Converted:
    parser = _HTMLToMarkdown()
    parser.feed(_decode(data, name))
    parser.close()
    parser._flush()
    title = re.sub(r"\s+", " ", parser.title).strip()
    if any(line.startswith("# ") for line in parser.lines):
        title = ""  # the page's own h1 is the document title
    return _assemble(name, kind, parser.lines, title)
