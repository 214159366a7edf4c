"""A PDF's pages (words with their place, size and weight; ruled tables) read as a person reads them,
written as Markdown for the chunker.

- **Running headers and footers**: a line in the top or bottom eighth of the page that recurs on at
  least half the pages (digits aside: "Page 2 of 9") is page furniture, as is a lone page number
  there; it is left out of the text (and handed back, for the metadata it may carry).
- **Columns**: where a band of white runs down the page between text on both sides, the text beside
  it is read column by column, left first; a line that crosses the band (a title, a paragraph set
  across the page) ends the columns.
- **Paragraphs**: a line continues the previous one unless a gap, a list marker, a heading or the
  end of a sentence on a short line says a new one begins; "Key: value" lines ("Version: 2.0")
  stand alone. A word broken at a line-end hyphen is joined as written
  (pipeline.language.hyphenation). A paragraph runs on across a page or column break until its
  sentence ends.
- **Headings**: lines set larger than the body text, or in bold at its size, short and not wrapped;
  each style (size, weight) a level, largest first; the largest is the title (`#`) only when it
  occurs once. A document with no such styles has its numbered lines ("4.1 Renewal of Loans")
  as headings, one level per number part.
- **Tables** (ruled ones: pdfplumber finds them from their lines) become Markdown tables when their
  first row is in bold, as Word tables do (pipeline.ingest.tables); a table going on over a page
  break is read as one, its repeated header row dropped. A line whose words stand in cells apart
  ("Meals     50 dollars") is one line, its cells joined by " | ".
- **Pages**: `<!-- page N -->` (pipeline.ingest.chunking.PAGE_MARKER) stands before the first block
  that begins on page N, so each chunk knows its page.

`pdf_text` is the same reading as plain text, for a PDF that is not a policy (a claim's proof).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from pipeline.ingest.chunking import PAGE_MARKER, without_page_markers
from pipeline.ingest.pdf_reader import PROOF_LIMITS, Page, PdfLimits, PdfPages, PdfUnreadable, Table, Word, read_layout
from pipeline.ingest.tables import markdown_table
from pipeline.language.hyphenation import HYPHENS, join_line_break

FURNITURE_BAND = 0.125  # of the page's height, at the top and at the bottom
CELL_GAP = 1.5  # a gap wider than this many times the type size parts two cells of a line
GUTTER = 0.9  # a gap at least this wide (times the type size) may be a gutter between columns
PARAGRAPH_GAP = 0.8  # white above a line, in type sizes, that begins a new paragraph
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?#+(?:\s*(?:of|/)\s*#+)?$|^[-–— ]*#+[-–— ]*$")
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+[A-Z][^.!?]{1,80}$")
_LIST_START = re.compile(r"^(?:[•◦▪‣●○■□–\-*]|\d+[.)]|\(?[a-z0-9]{1,3}\))\s")
_BULLET = re.compile(r"^[•◦▪‣●○■□–]\s*")
_KEY_VALUE = re.compile(r"^[A-Z][\w ]{0,30}:\s+\S")
_SENTENCE_END = (".", "!", "?", ":", ";")


@dataclass
class _Line:
    words: list[Word]
    page: int
    left: float = 0.0  # its column's (or the page's) left and right edges: a line reaching
    right: float = 0.0  # the right edge was wrapped there

    @cached_property
    def cells(self) -> list[str]:
        """The line's words, split where a gap says they stand in different cells."""
        cells: list[list[str]] = [[]]
        for before, word in zip([None, *self.words], self.words, strict=False):
            if before is not None and word.x0 - before.x1 > CELL_GAP * max(word.size, before.size, 1.0):
                cells.append([])
            cells[-1].append(word.text)
        return [" ".join(cell) for cell in cells]

    @property
    def text(self) -> str:
        return " | ".join(self.cells)

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        return max(w.size for w in self.words)

    @property
    def bold(self) -> bool:
        return all(w.bold for w in self.words)

    @property
    def wrapped(self) -> bool:
        """The line runs to its column's right edge: its paragraph goes on in the next line."""
        return self.x1 >= self.right - 0.1 * max(self.right - self.left, 1.0)


@dataclass
class _Table:
    rows: list[list[str]]
    header: bool
    page: int
    top: float


@dataclass
class PdfText:
    """The Markdown lines of a PDF, and the running headers and footers left out of them."""

    lines: list[str]
    furniture: list[str] = field(default_factory=list)


# -- lines and furniture ------------------------------------------------------------------------------
def _lines(words: list[Word], page: int) -> list[_Line]:
    """Words grouped into lines: a word whose middle lies within the current line's height joins it."""
    lines: list[_Line] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        middle = (word.top + word.bottom) / 2
        if lines and lines[-1].top <= middle <= lines[-1].bottom:
            lines[-1].words.append(word)
            lines[-1].__dict__.pop("cells", None)
        else:
            lines.append(_Line([word], page))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return lines


def _furniture_key(line: _Line) -> str:
    return re.sub(r"\d+", "#", " ".join(line.text.lower().split()))


def _in_band(line: _Line, page: Page) -> str:
    if line.bottom <= page.height * FURNITURE_BAND:
        return "top"
    if line.top >= page.height * (1 - FURNITURE_BAND):
        return "bottom"
    return ""


def _split_furniture(pages: list[Page], lines: dict[int, list[_Line]]) -> list[str]:
    """Remove running headers, footers and page numbers from `lines` (in place); returns their texts."""
    seen: Counter[tuple[str, str]] = Counter()
    for page in pages:
        keys = {(_in_band(line, page), _furniture_key(line)) for line in lines[page.number]}
        seen.update(key for key in keys if key[0])
    recurring = max(2, (len(pages) + 1) // 2)
    removed: list[str] = []
    for page in pages:
        kept = []
        for line in lines[page.number]:
            band, key = _in_band(line, page), _furniture_key(line)
            if band and (_PAGE_NUMBER.match(key) or (len(pages) > 1 and seen[(band, key)] >= recurring)):
                removed.append(line.text)
            else:
                kept.append(line)
        lines[page.number] = kept
    return removed


# -- reading order: columns ---------------------------------------------------------------------------
def _gap_at(line: _Line, x: float) -> float | None:
    """The width of the white around `x` in this line; 0 inside a word, None when `x` is beside the line."""
    if x <= line.x0 or x >= line.x1:
        return None
    for before, after in zip(line.words, line.words[1:], strict=False):
        if before.x1 <= x <= after.x0:
            return after.x0 - before.x1
    return 0.0


def _parts(line: _Line, x: float) -> tuple[_Line | None, _Line | None]:
    left = [w for w in line.words if w.x1 <= x]
    right = [w for w in line.words if w.x0 >= x]
    return (_Line(left, line.page) if left else None, _Line(right, line.page) if right else None)


def _fills(lines: list[_Line]) -> bool:
    """Lines of running text: most reach near the edge of the column they stand in."""
    left, right = min(line.x0 for line in lines), max(line.x1 for line in lines)
    return statistics.median(line.x1 - line.x0 for line in lines) >= 0.6 * (right - left)


def _gutter(lines: list[_Line]) -> float | None:
    """The x of a white band running between text on both sides of at least three lines."""
    if len(lines) < 6:
        return None
    left, right = min(line.x0 for line in lines), max(line.x1 for line in lines)
    candidates = {
        round((b.x1 + a.x0) / 2)
        for line in lines
        for b, a in zip(line.words, line.words[1:], strict=False)
        if a.x0 - b.x1 >= GUTTER * line.size and left + 0.25 * (right - left) <= (b.x1 + a.x0) / 2
        if (b.x1 + a.x0) / 2 <= left + 0.75 * (right - left)
    }
    best, best_count = None, 2
    for x in sorted(candidates):
        gaps = [_gap_at(line, x) for line in lines]
        count = sum(1 for line, gap in zip(lines, gaps, strict=True) if gap is not None and gap >= GUTTER * line.size)
        if count > best_count:
            best, best_count = float(x), count
    return best


def _edges(lines: list[_Line]) -> tuple[float, float]:
    return min(line.x0 for line in lines), max(line.x1 for line in lines)


def _reading_order(lines: list[_Line], edges: tuple[float, float], depth: int = 0) -> list[_Line]:
    """Lines (in top-down order) in the order a person reads them, each knowing its column's edges."""
    x = _gutter(lines) if depth < 2 else None
    if x is None:
        for line in lines:
            line.left, line.right = edges
        return lines
    out: list[_Line] = []
    run: list[_Line] = []
    for line in lines:
        gap = _gap_at(line, x)
        if gap is not None and gap < GUTTER * line.size:  # crosses the band: any columns end above it
            out.extend(_columns(run, x, edges, depth))
            run = []
            line.left, line.right = edges
            out.append(line)
        else:
            run.append(line)
    out.extend(_columns(run, x, edges, depth))
    return out


def _columns(run: list[_Line], x: float, edges: tuple[float, float], depth: int) -> list[_Line]:
    """A run of lines none of which crosses `x`, read column by column where it holds two columns of
    running text. The columns end at their last line side by side, or below it where a line is set
    off from the one above it on its side (a heading after the columns)."""
    split = [i for i, line in enumerate(run) if (gap := _gap_at(line, x)) and gap >= GUTTER * line.size]
    if len(split) < 3:
        return _reading_order(run, edges, 2) if run else []
    end = split[-1] + 1
    last: dict[bool, _Line] = {}
    for line in run[:end]:
        left, right = _parts(line, x)
        last.update({side: part for side, part in ((True, left), (False, right)) if part is not None})
    while end < len(run):
        line = run[end]
        side = line.x1 <= x
        above = last.get(side)
        if above is None or line.top - above.bottom > PARAGRAPH_GAP * line.size:
            break
        last[side] = line
        end += 1
    sides = [[part for line in run[:end] if (part := _parts(line, x)[i]) is not None] for i in (0, 1)]
    if min(len(side) for side in sides) < 3 or not all(_fills(side) for side in sides):
        return _reading_order(run, edges, 2)
    out = [line for side in sides for line in _reading_order(side, _edges(side), depth + 1)]
    return out + _reading_order(run[end:], edges, 2)


# -- headings -----------------------------------------------------------------------------------------
def _style(line: _Line, body: float) -> tuple[float, bool] | None:
    """(size, bold) when the line is set as a heading; None for body text."""
    text = line.text
    if len(line.cells) > 1 or not re.search(r"[A-Za-z]", text) or text.endswith(","):
        return None
    words = len(text.split())
    size = round(line.size * 2) / 2
    if size >= body * 1.15 and words <= 20:
        return (size, line.bold)
    if line.bold and size >= body * 0.95 and words <= 14 and not line.wrapped and not text.endswith((".", ";")):
        return (size, True)
    return None


def _numbered_level(line: _Line) -> int:
    m = _NUMBERED.match(line.text)
    if not m or len(line.text.split()) > 12 or line.wrapped:
        return 0
    return min(2 + m.group(1).count("."), 4)


def _heading_levels(lines: list[_Line], body: float) -> dict[int, int]:
    """Heading level by line (its id): each style a level, largest first; `#` only for a style used once."""
    styles = {id(line): style for line in lines if (style := _style(line, body))}
    if not styles:
        return {id(line): level for line in lines if (level := _numbered_level(line))}
    used = Counter(styles.values())
    ranked = sorted(used, key=lambda s: (-s[0], not s[1]))
    first = 1 if used[ranked[0]] == 1 else 2
    level_of = {style: min(first + rank, 4) for rank, style in enumerate(ranked)}
    return {key: level_of[style] for key, style in styles.items()}


# -- paragraphs ---------------------------------------------------------------------------------------
def _joined(previous: str, line: str) -> str:
    if previous.endswith(HYPHENS) and len(previous) > 1 and previous[-2].isalpha() and line[:1].islower():
        head, _, last = previous.rpartition(" ")
        first, _, rest = line.partition(" ")
        word = join_line_break(last, first)
        return " ".join(part for part in (head, word, rest) if part)
    return f"{previous} {line}"


def _continues(previous: _Line | None, line: _Line) -> bool:
    """Whether `line` goes on with the paragraph `previous` ended."""
    if previous is None or _LIST_START.match(line.text) or len(line.cells) > 1 or len(previous.cells) > 1:
        return False
    if not previous.wrapped and any(_KEY_VALUE.match(t) and len(t.split()) <= 8 for t in (previous.text, line.text)):
        return False  # "Version: 2.0" then "Effective date: ...": each a line of its own
    ended = previous.text.endswith(_SENTENCE_END)
    if line.page != previous.page or line.top < previous.top or line.left != previous.left:
        return not ended  # a page or column break: on only mid-sentence
    if line.top - previous.bottom > PARAGRAPH_GAP * max(line.size, previous.size):
        return False
    return not (ended and not previous.wrapped)


def _cell_text(cell: str) -> str:
    lines = [part.strip() for part in cell.splitlines() if part.strip()]
    text = lines[0] if lines else ""
    for line in lines[1:]:
        text = _joined(text, line)
    return text


class _Writer:
    """Markdown lines, with a page marker before the first block that begins on each page."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.page = 0
        self.paragraph: _Line | None = None  # the last line of the paragraph being written
        self.table: _Table | None = None  # the table being written, while nothing follows it

    def begin(self, page: int) -> None:
        self.end()
        if page != self.page:
            self.lines.extend(["", PAGE_MARKER.format(page), ""])
            self.page = page

    def end(self) -> None:
        if self.table is not None:
            self.lines.extend(markdown_table(self.table.rows, self.table.header))
            self.table = None
        if self.paragraph is not None:
            self.lines.append("")
            self.paragraph = None

    def heading(self, line: _Line, level: int) -> None:
        self.begin(line.page)
        self.lines.extend(["#" * level + " " + line.text, ""])

    def text(self, line: _Line) -> None:
        if self.table is None and _continues(self.paragraph, line):
            self.lines[-1] = _joined(self.lines[-1], line.text)
        else:
            self.begin(line.page)
            self.lines.append(_BULLET.sub("- ", line.text))
            if len(line.cells) > 1:  # a row of cells stands alone
                self.lines.append("")
                self.paragraph = None
                return
        self.paragraph = line

    def add_table(self, table: _Table) -> None:
        previous = self.table
        if (
            previous is not None
            and previous.page < table.page
            and len(previous.rows[0]) == len(table.rows[0])
            and (table.rows[0] == previous.rows[0] or not table.header)
        ):
            # the same table, going on over a page break (its header row repeated, or no header)
            rows = table.rows[1:] if table.rows[0] == previous.rows[0] else table.rows
            previous.rows.extend(rows)
            return
        self.begin(table.page)
        self.table = table


def pdf_markdown(pdf: PdfPages) -> PdfText:
    """The document's Markdown lines (headings, paragraphs, tables, page markers)."""
    lines: dict[int, list[_Line]] = {}
    tables: dict[int, list[_Table]] = {}
    for page in pdf.pages:
        inside = [t.bbox for t in page.tables]
        words = [w for w in page.words if not any(_within(w, box) for box in inside)]
        lines[page.number] = _lines(words, page.number)
        tables[page.number] = [_table(t, page.number) for t in page.tables if any(any(r) for r in t.rows)]
    furniture = _split_furniture(pdf.pages, lines)
    sizes: Counter[float] = Counter()
    for page_lines in lines.values():
        for line in page_lines:
            sizes[round(line.size * 2) / 2] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    ordered: list[_Line | _Table] = []
    for page in pdf.pages:
        ordered.extend(_page_order(lines[page.number], tables[page.number]))
    levels = _heading_levels([item for item in ordered if isinstance(item, _Line)], body)
    writer = _Writer()
    for item in ordered:
        if isinstance(item, _Table):
            writer.add_table(item)
        elif id(item) in levels:
            writer.heading(item, levels[id(item)])
        else:
            writer.text(item)
    writer.end()
    return PdfText(writer.lines, furniture)


def _within(word: Word, box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return x0 <= (word.x0 + word.x1) / 2 <= x1 and top <= (word.top + word.bottom) / 2 <= bottom


def _table(table: Table, page: int) -> _Table:
    rows = [[_cell_text(cell) for cell in row] for row in table.rows]
    return _Table(rows, table.header_bold, page, table.bbox[1])


def _page_order(lines: list[_Line], tables: list[_Table]) -> list[_Line | _Table]:
    """A page's lines in reading order, each table where it stands (the text between two tables is
    ordered on its own: a table ends any columns above it)."""
    out: list[_Line | _Table] = []
    remaining = sorted(lines, key=lambda line: line.top)
    edges = _edges(lines) if lines else (0.0, 0.0)
    for table in sorted(tables, key=lambda t: t.top):
        above = [line for line in remaining if line.top < table.top]
        remaining = [line for line in remaining if line.top >= table.top]
        out.extend(_reading_order(above, edges))
        out.append(table)
    out.extend(_reading_order(remaining, edges))
    return out


def pdf_text(data: bytes, limits: PdfLimits = PROOF_LIMITS) -> str:
    """The text of an untrusted PDF, read by layout within `limits` (by default a claim's proof's:
    its first 20 pages, up to the page where 20,000 characters are read, in 10 seconds); "" for a
    damaged or encrypted one. Raises PdfRefused when it is over a limit, with a message that says
    what to do."""
    try:
        pages = read_layout(data, limits)
    except PdfUnreadable:
        return ""
    lines = without_page_markers("\n".join(pdf_markdown(pages).lines)).splitlines()
    return "\n".join(line.lstrip("#").strip() for line in lines).strip()
