"""Structural chunking: one chunk per heading section, tiny sections merged, long ones split.

A FAQ written as paragraphs (a question on a line of its own, its answer after it) is chunked one
entry a chunk, under its question, as if each question were a heading: otherwise short entries
are merged until a chunk has 40 words, and one chunk holds one entry's answer and the next one's
question, so the answer is cited under the wrong question and cannot be removed on its own.

A Markdown table (in a Markdown or a plain-text document) is written out one list item a row, each
cell after its column's header ("- Work week: 4 days; Billable time: 25.5 hours"): run together, a
table is one "sentence" of pipes that every consumer (the synthesiser, σ's sentence similarity,
the verifier, claims) reads whole, and an answer would quote all of it; a row without its headers
says nothing. `table_row_cells` reads such a row back (pipeline.answer.table_rows shows it).

A chunk id is `doc_id::section-slug::content-hash`, so it is stable across runs and changes only
when the chunk's own text (or its heading) changes.

A converted PDF marks where each page begins with a line `<!-- page N -->` (PAGE_MARKER, written by
pipeline.ingest.pdf_layout); a chunk's `page` is the page its first paragraph begins on (0 where
the text has no markers). The markers are not part of any chunk's text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from pipeline.ground.records import Chunk
from pipeline.ingest.documents import Document
from pipeline.language.text import LIST_MARKER, slugify, split_sentences

PAGE_MARKER = "<!-- page {} -->"
_PAGE_MARKER = re.compile(r"^<!-- page (\d+) -->$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SECTION_NUMBER = re.compile(r"^(?:section\s+)?(\d+(?:\.\d+)*)[.)]?\s", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(rf"^\s*{LIST_MARKER}")
_QUESTION_LABEL = re.compile(r"^(?:q|question)\s*\d*\s*[:.)]\s+", re.IGNORECASE)
_ANSWER_LABEL = re.compile(r"^\**(?:a|answer)\s*:\**\s+", re.IGNORECASE)
# A document is read as a FAQ when at least this many questions stand on a line of their own,
# each followed by an answer; one or two such lines are rhetorical questions in running text.
FAQ_MIN_ENTRIES = 3
FAQ_MAX_QUESTION_WORDS = 30


@dataclass
class _Block:
    heading: str  # "" for text before any heading
    level: int
    paragraphs: list[str]
    pages: list[int] = field(default_factory=list)  # the page each paragraph begins on, where known

    @property
    def words(self) -> int:
        return sum(len(p.split()) for p in self.paragraphs)

    def page_of(self, i: int) -> int:
        return self.pages[i] if i < len(self.pages) else 0

    def part(self, paragraphs: list[str], pages: list[int]) -> _Block:
        return _Block(self.heading, self.level, paragraphs, pages)


@dataclass(frozen=True)
class ChunkIssue:
    chunk_id: str
    problem: str  # "too short" | "too long" | "no heading"


def without_page_markers(markdown: str) -> str:
    """The text with its page markers left out."""
    return "\n".join(line for line in markdown.splitlines() if not _PAGE_MARKER.match(line.strip()))


def section_number(heading: str) -> str:
    m = _SECTION_NUMBER.match(heading.strip() + " ")
    return m.group(1) if m else ""


def _markdown_blocks(body: str) -> list[_Block]:
    blocks: list[_Block] = []
    current = _Block("", 0, [])
    paragraph: list[str] = []
    page = 0

    def flush_paragraph() -> None:
        if paragraph:
            current.paragraphs.append(_tables_as_rows("\n".join(paragraph).strip()))
            current.pages.append(page)
            paragraph.clear()

    for line in body.splitlines():
        marker = _PAGE_MARKER.match(line.strip())
        if marker:
            flush_paragraph()
            page = int(marker.group(1))
            continue
        m = _HEADING.match(line)
        if m:
            flush_paragraph()
            if current.paragraphs or current.heading:
                blocks.append(current)
            level, text = len(m.group(1)), m.group(2).strip()
            current = _Block(text if level > 1 else "", level, [])
            if level == 1:
                current.level = 1
            continue
        if not line.strip():
            flush_paragraph()
        else:
            paragraph.append(line.rstrip())
    flush_paragraph()
    if current.paragraphs or current.heading:
        blocks.append(current)
    # The document title (level 1) carries no section; drop empty heading-only blocks that have
    # sub-headings after them, but keep their heading as context for merging.
    return [b for b in blocks if b.paragraphs]


def _table_cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") else line
    return [cell.strip().strip("*_").strip() for cell in line.split("|")]


_ROW_SEPARATOR = "; "
_ROW_CELL = re.compile(r"^([^:;]{1,60}):\s+(.+)$")


def table_row_cells(sentence: str) -> list[tuple[str, str]] | None:
    """A table row as `_tables_as_rows` writes it, read back: [(header, cell), …] ("" for a cell
    written without its header); None for a sentence that is not such a row. A row has at least
    two cells, two of them after their headers."""
    cells = []
    for segment in sentence.strip().split(_ROW_SEPARATOR):
        match = _ROW_CELL.match(segment.strip())
        cells.append((match.group(1).strip(), match.group(2).strip()) if match else ("", segment.strip()))
    if len(cells) < 2 or sum(1 for header, _ in cells if header) < 2:
        return None
    return cells


def _tables_as_rows(paragraph: str) -> str:
    """A paragraph's Markdown table (a header line, a |---| rule, rows) as one list item a row,
    each cell after its header; the lines before the table are kept. Other paragraphs unchanged."""
    lines = paragraph.splitlines()
    start = next(
        (
            i
            for i in range(len(lines) - 1)
            if "|" in lines[i] and _TABLE_RULE.match(lines[i + 1]) and "|" in lines[i + 1]
        ),
        None,
    )
    if start is None:
        return paragraph
    headers = _table_cells(lines[start])
    rows = []
    for line in lines[start + 2 :]:
        cells = _table_cells(line)
        said = [
            f"{header}: {cell}" if header and header.lower() != cell.lower() else cell
            for header, cell in zip(headers + [""] * len(cells), cells, strict=False)
            if cell
        ]
        if said:
            rows.append("- " + _ROW_SEPARATOR.join(said))
    return "\n".join(lines[:start] + rows)


def _text_blocks(body: str, min_words: int, max_words: int) -> list[_Block]:
    paragraphs = [_tables_as_rows(p.strip()) for p in re.split(r"\n\s*\n", body) if p.strip()]
    return [_Block("", 0, [piece]) for p in paragraphs for piece in _paragraph_pieces(p, min_words, max_words)]


def _paragraph_pieces(paragraph: str, min_words: int, max_words: int) -> list[str]:
    """A paragraph longer than max_words, cut so that each piece fits.

    A text written one paragraph a line, with no blank line between (a common export), is one
    "paragraph" to a blank-line split: a whole article became one chunk, embedded from its first
    ~200 words only. When its lines are of paragraph length (the median at least min_words;
    hard-wrapped lines are a dozen words) each line is a paragraph; otherwise, and for a line still
    too long, the text is cut between sentences into pieces of at most max_words. A list (a table
    written one item a row) is cut between items, each piece still a list."""
    if len(paragraph.split()) <= max_words:
        return [paragraph]
    lines = [line for line in paragraph.splitlines() if line.strip()]
    if len(lines) > 1 and all(_LIST_ITEM.match(line) for line in lines):
        return ["\n".join(run) for run in _packed(lines, max_words)]
    sizes = sorted(len(line.split()) for line in lines)
    units = lines if len(lines) > 1 and sizes[len(sizes) // 2] >= min_words else [paragraph]
    pieces: list[str] = []
    for unit in units:
        if len(unit.split()) <= max_words:
            pieces.append(unit)
        else:
            pieces.extend(" ".join(run) for run in _packed(split_sentences(unit), max_words))
    return pieces


def _packed(units: list[str], max_words: int) -> list[list[str]]:
    """Consecutive units (paragraphs, sentences) grouped into runs of at most max_words (a longer
    unit alone)."""
    runs: list[list[str]] = []
    current: list[str] = []
    count = 0
    for unit in units:
        words = len(unit.split())
        if current and count + words > max_words:
            runs.append(current)
            current, count = [], 0
        current.append(unit)
        count += words
    if current:
        runs.append(current)
    return runs


def _question_line(line: str) -> str:
    """The question a line asks, as a FAQ entry's heading ("**Q: How do I…?**" or "3. How do I…?"
    → "How do I…?"); "" when the line is not a lone question."""
    line = _LIST_ITEM.sub("", line, count=1).strip().strip("*_").strip()
    text = _QUESTION_LABEL.sub("", line)
    words = len(text.split())
    shortest = 1 if text != line else 2  # "Q: When?" is an entry; a lone "Why?" in prose is not
    return text if text.endswith("?") and shortest <= words <= FAQ_MAX_QUESTION_WORDS else ""


def _faq_entry(paragraphs: list[str], i: int) -> tuple[str, str] | None:
    """(question, the rest of its paragraph) when paragraph i opens a FAQ entry: a question line
    followed by its answer, in the same paragraph or in the next one. A question followed by
    another question is a list of questions ("1. What was exposed?\n2. For how long?"), not a FAQ."""
    first, _, rest = paragraphs[i].partition("\n")
    question = _question_line(first)
    if not question:
        return None
    if rest.strip():
        return None if _question_line(rest.strip().partition("\n")[0]) else (question, rest.strip())
    answer_follows = i + 1 < len(paragraphs) and not _question_line(paragraphs[i + 1].partition("\n")[0])
    return (question, "") if answer_follows else None


def _faq_entries(blocks: list[_Block]) -> list[_Block] | None:
    """Each FAQ entry as a block of its own under its question; None when it is not a FAQ."""
    read = [[_faq_entry(b.paragraphs, i) for i in range(len(b.paragraphs))] for b in blocks]
    if sum(entry is not None for per_block in read for entry in per_block) < FAQ_MIN_ENTRIES:
        return None
    entries: list[_Block] = []
    for block, per_block in zip(blocks, read, strict=True):
        current = _Block(block.heading, block.level, [])
        for i, (paragraph, entry) in enumerate(zip(block.paragraphs, per_block, strict=True)):
            if entry is None:
                opens_answer = current.level > block.level and not current.paragraphs
                current.paragraphs.append(_ANSWER_LABEL.sub("", paragraph) if opens_answer else paragraph)
                current.pages.append(block.page_of(i))
                continue
            if current.paragraphs:
                entries.append(current)
            answer = _ANSWER_LABEL.sub("", entry[1])
            current = _Block(
                entry[0], block.level + 1, [answer] if answer else [], [block.page_of(i)] if answer else []
            )
        if current.paragraphs:
            entries.append(current)
    return entries


def _split_long(block: _Block, max_words: int) -> list[_Block]:
    if block.words <= max_words:
        return [block]
    parts, start = [], 0
    for run in _packed(block.paragraphs, max_words):
        parts.append(block.part(run, block.pages[start : start + len(run)]))
        start += len(run)
    return parts


def _merge_small(blocks: list[_Block], min_words: int, max_words: int) -> list[list[_Block]]:
    """Group consecutive blocks so each group has at least min_words (when neighbours allow)."""
    groups: list[list[_Block]] = []
    for block in blocks:
        if groups:
            last = groups[-1]
            last_words = sum(b.words for b in last)
            same_family = _family(last[-1].heading) == _family(block.heading)
            if (
                (last_words < min_words or block.words < min_words)
                and same_family
                and (last_words + block.words <= max_words)
            ):
                last.append(block)
                continue
        groups.append([block])
    return groups


def _family(heading: str) -> str:
    number = section_number(heading)
    return number.split(".")[0] if number else heading


def chunk_document(doc: Document, min_words: int = 40, max_words: int = 320) -> list[Chunk]:
    if doc.kind == "markdown":
        blocks = _markdown_blocks(doc.body)
        for block in blocks:
            pieces = [
                (piece, block.page_of(i))
                for i, p in enumerate(block.paragraphs)
                for piece in _paragraph_pieces(p, min_words, max_words)
            ]
            block.paragraphs = [piece for piece, _ in pieces]
            block.pages = [page for _, page in pieces]
    else:
        blocks = _text_blocks(doc.body, min_words, max_words)
    # A text file's paragraphs are blocks of one; its FAQ entries are read across them.
    faq = _faq_entries([_Block("", 0, [p for b in blocks for p in b.paragraphs])] if doc.kind == "text" else blocks)
    if faq is None and doc.kind == "text":
        groups = _group_paragraphs(blocks, min_words, max_words)
    else:
        split: list[_Block] = []
        for block in faq or blocks:
            split.extend(_split_long(block, max_words))
        groups = _merge_small(split, min_words, max_words)
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for position, group in enumerate(groups):
        headings = [b.heading for b in group if b.heading]
        heading = headings[0] if headings else (f"Part {position + 1}" if doc.kind == "text" else "")
        numbers = ",".join(dict.fromkeys(n for n in (section_number(h) for h in headings) if n))
        text = "\n\n".join(_render(b, i > 0 and b.heading != group[i - 1].heading) for i, b in enumerate(group))
        content_hash = hashlib.sha256(f"{heading}\n{text}".encode()).hexdigest()[:12]
        slug = slugify(heading or "preamble")
        chunk_id = f"{doc.doc_id}::{slug}::{content_hash}"
        if chunk_id in seen:  # identical text under one heading twice: keep ids unique and stable
            seen[chunk_id] += 1
            chunk_id = f"{chunk_id}-{seen[chunk_id]}"
        else:
            seen[chunk_id] = 0
        chunks.append(
            Chunk(
                chunk_id=chunk_id,
                doc_id=doc.doc_id,
                title=doc.title,
                section=heading,
                section_numbers=numbers,
                text=text,
                version=doc.version,
                effective_date=doc.effective_date,
                owner=doc.owner,
                source=doc.source,
                position=position,
                content_hash=content_hash,
                page=group[0].page_of(0),
                audience=doc.audience,
            )
        )
    return chunks


def _render(block: _Block, with_heading: bool) -> str:
    body = "\n\n".join(block.paragraphs)
    return f"{block.heading}\n{body}" if with_heading else body


def _group_paragraphs(blocks: list[_Block], min_words: int, max_words: int) -> list[list[_Block]]:
    groups: list[list[_Block]] = []
    for block in blocks:
        if (
            groups
            and sum(b.words for b in groups[-1]) < min_words
            and (sum(b.words for b in groups[-1]) + block.words <= max_words)
        ):
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def audit_chunks(chunks: list[Chunk], min_words: int = 40, max_words: int = 320) -> list[ChunkIssue]:
    """Flags for the ingest report: a chunk too short, too long, or with no heading."""
    issues = []
    for c in chunks:
        words = len(c.text.split())
        if words < min_words:
            issues.append(ChunkIssue(c.chunk_id, f"too short ({words} words)"))
        if words > max_words:
            issues.append(ChunkIssue(c.chunk_id, f"too long ({words} words)"))
        if not c.section or c.section.startswith("Part "):
            issues.append(ChunkIssue(c.chunk_id, "no heading"))
    return issues
