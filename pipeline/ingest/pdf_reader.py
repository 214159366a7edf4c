"""Untrusted PDFs read with limits: what is on each page (words with their position, size and weight,
ruled tables, pictures), and OCR of scanned pages with tesseract where it is installed.

The one owner of opening a PDF someone uploaded. The work is done by `pipeline/ingest/pdf_worker.py`
in a child process (`python -I`, its memory and CPU time capped), which is killed with anything it
started once `budget_s` of wall-clock time have passed; a PDF with more pages or more drawing
operations (form XObjects counted at every draw) than its limits allow is refused before it is laid
out. So a hostile file costs at most its budget, in another process, and no request waits on
another's PDF. Refusals are `PdfRefused`, with a message a person understands.

pdfplumber (MIT, on pdfminer.six, MIT; pages rendered for OCR by pypdfium2, Apache-2.0/BSD) reads
the layout. PyMuPDF reads faster but is AGPL: deployed as a service, Warrant would then have to
offer its whole source to every user; pdfplumber imposes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

_WORKER = Path(__file__).with_name("pdf_worker.py")
_OVER_LIMIT, _ENCRYPTED, _NO_OCR = 3, 4, 5  # pdf_worker's exit statuses
OCR_INSTALL_HINT = (
    "To read scans, install tesseract on the server (Debian/Ubuntu: apt-get install tesseract-ocr) "
    "and upload it again, or run OCR on it first (for example with ocrmypdf)."
)


class PdfRefused(ValueError):
    """The PDF cannot be read within its limits, or is encrypted; the message says why and what to do."""


class PdfUnreadable(PdfRefused):
    """The PDF is damaged or encrypted: no text can be read from it."""


class OcrUnavailable(PdfRefused):
    """The PDF needs OCR and tesseract is not installed (or failed)."""


@dataclass(frozen=True)
class PdfLimits:
    """What reading one PDF may cost, and what to tell the person whose PDF is over a limit."""

    max_pages: int = 300
    first_pages_only: bool = False  # a longer PDF: read its first max_pages (True) or refuse it
    max_chars: int = 0  # stop after the page on which this much text has been read (0: read every page)
    max_operations: int = 3_000_000
    budget_s: float = 180.0  # pdfplumber lays out ~4 pages a second on a busy 2-core machine
    memory_bytes: int = 2 << 30
    # OCR: pages read at most, and the seconds each may take (the budget grows with the pages).
    max_ocr_pages: int = 20
    ocr_page_s: float = 30.0
    ocr_dpi: int = 300
    advice: str = "Save it again from the program that made it (print to PDF), or upload it in parts."


DOCUMENT_LIMITS = PdfLimits()
# A claim's proof: any user may upload one, and the claim waits for it (issue 27).
PROOF_LIMITS = PdfLimits(
    max_pages=20,
    first_pages_only=True,
    max_chars=20_000,  # what a claim keeps of its proof
    max_operations=100_000,
    budget_s=10.0,
    memory_bytes=1 << 30,
    max_ocr_pages=0,
    advice="Paste the relevant text as proof instead, or upload a simpler file.",
)


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool = False
    confidence: float = -1.0  # OCR's, 0-100; -1 for a text layer


@dataclass(frozen=True)
class Table:
    bbox: tuple[float, float, float, float]  # x0, top, x1, bottom
    rows: list[list[str]]
    header_bold: bool = False


@dataclass
class Page:
    number: int
    width: float
    height: float
    words: list[Word] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    images: int = 0
    ocr: bool = False

    @property
    def is_scan(self) -> bool:
        """A picture and no text: what a scanner without OCR makes."""
        return not self.words and not self.tables and self.images > 0


@dataclass
class PdfPages:
    title: str
    pages: list[Page]


def tesseract_available() -> bool:
    return shutil.which("tesseract") is not None


def read_layout(data: bytes, limits: PdfLimits = DOCUMENT_LIMITS) -> PdfPages:
    """Every page's words, tables and pictures; raises PdfRefused (over a limit, encrypted, damaged)."""
    raw = _run(["layout"], data, limits, limits.budget_s)
    pages = [
        Page(
            p["number"],
            p["width"],
            p["height"],
            [_word(w) for w in p["words"]],
            [Table(tuple(t["bbox"]), t["rows"], t["header_bold"]) for t in p["tables"]],
            p["images"],
        )
        for p in raw["pages"]
    ]
    return PdfPages(str(raw.get("title") or "").strip(), pages)


def ocr_scanned_pages(data: bytes, layout: PdfPages, limits: PdfLimits = DOCUMENT_LIMITS) -> list[int]:
    """Read the scanned pages of `layout` with tesseract, in place; returns their numbers (none where
    `limits.max_ocr_pages` is 0).

    Raises OcrUnavailable when tesseract is not installed, PdfRefused when there are more scanned
    pages than `limits.max_ocr_pages` or reading them runs past its budget."""
    scans = [p.number for p in layout.pages if p.is_scan]
    if not scans or limits.max_ocr_pages == 0:
        return []
    if not tesseract_available():
        raise OcrUnavailable(f"OCR is not installed here. {OCR_INSTALL_HINT}")
    if len(scans) > limits.max_ocr_pages:
        raise PdfRefused(
            f"It has {len(scans)} scanned pages; at most {limits.max_ocr_pages} are read by OCR here. "
            "Run OCR on it first (for example with ocrmypdf), or upload it in parts."
        )
    budget = 10.0 + limits.ocr_page_s * len(scans)
    raw = _run(["ocr", "--pages", ",".join(map(str, scans))], data, limits, budget)
    by_number = {p.number: p for p in layout.pages}
    for read in raw["pages"]:
        page = by_number[read["number"]]
        page.words = [_word(w) for w in read["words"]]
        page.ocr = True
    return scans


def _word(raw: list) -> Word:
    """A word as the worker writes it: text, x0, x1, top, bottom, size, bold[, OCR confidence]."""
    confidence = float(raw[7]) if len(raw) > 7 else -1.0
    x0, x1, top, bottom, size = (float(v) for v in raw[1:6])
    return Word(str(raw[0]), x0, x1, top, bottom, size, bold=bool(raw[6]), confidence=confidence)


def _run(args: list[str], data: bytes, limits: PdfLimits, budget_s: float) -> dict:
    command = [
        sys.executable,
        "-I",
        str(_WORKER),
        *args,
        "--max-pages",
        str(limits.max_pages),
        "--max-operations",
        str(limits.max_operations),
        "--memory-bytes",
        str(limits.memory_bytes),
        "--cpu-s",
        str(int(budget_s) + 1),
        "--dpi",
        str(limits.ocr_dpi),
        "--page-timeout-s",
        str(limits.ocr_page_s),
        "--max-chars",
        str(limits.max_chars),
        *(["--first-pages"] if limits.first_pages_only else []),
    ]
    # A session of its own, so that on timeout the worker and the tesseract it runs are killed together.
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(data, timeout=budget_s)
    except subprocess.TimeoutExpired:
        _kill(child)
        raise PdfRefused(
            f"Reading it took longer than {budget_s:.0f} seconds, so it was stopped. {limits.advice}"
        ) from None
    except BaseException:
        _kill(child)
        raise
    message = err.decode("utf-8", "replace").strip()
    if child.returncode == 0:
        return json.loads(out)
    if child.returncode == _OVER_LIMIT:
        raise PdfRefused(f"{message} {limits.advice}")
    if child.returncode == _ENCRYPTED:
        raise PdfUnreadable("It is encrypted (password-protected); upload an unprotected copy.")
    if child.returncode == _NO_OCR:
        raise OcrUnavailable(f"OCR failed ({message[-200:] or 'tesseract did not run'}). {OCR_INSTALL_HINT}")
    if child.returncode < 0 and -child.returncode in (signal.SIGKILL, signal.SIGXCPU):
        raise PdfRefused(f"Reading it needed more memory or time than is allowed. {limits.advice}")
    kind = ""
    try:
        kind = json.loads(message).get("damaged", "")
    except (ValueError, AttributeError):
        pass
    raise PdfUnreadable(f"It is a damaged PDF that cannot be read{f' ({kind})' if kind else ''}.")


def _kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.communicate()
