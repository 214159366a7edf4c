"""A table row in an answer reads as a row: "M.Tech student: 6 items, 21 days".

The chunker writes each row of a document's table after its column headers, so that the row can
be found and judged alone ("Member: M.Tech student; Items: 6 items; Loan period: 21 days",
pipeline.ingest.chunking). Quoted as it is, that reads like a form. In the answer the row's first
cell names it and the other cells follow, each after its header only when the cell needs it: a
cell that states an amount with its unit ("21 days", "50 dollars per day") or already holds the header's word ("6
items") stands alone; "No" under "Receipt needed" keeps its header. A first cell that is a bare
number keeps its header too ("Week 5: Review 1").

The row so written is checked against its chunk like any other answer sentence
(pipeline.answer.verify); if it does not pass, the row is shown as the chunk writes it. Citations
keep the chunk's own words (`as_written`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pipeline.answer.synthesis import CitedSentence
from pipeline.answer.verify import check_sentence
from pipeline.ingest.chunking import table_row_cells
from pipeline.language.stemming import stem
from pipeline.language.text import quantities, tokens


def row_as_read(sentence: str) -> str:
    """The row written label first ("M.Tech student: 6 items, 21 days"), or `sentence` unchanged
    when it is not a table row."""
    cells = table_row_cells(sentence)
    if cells is None:
        return sentence
    (first_header, label), rest = cells[0], cells[1:]
    if first_header and _is_bare_number(label):
        label = f"{first_header} {label}"
    said = [cell if not header or _speaks_for_itself(header, cell) else f"{header}: {cell}" for header, cell in rest]
    return f"{label}: {', '.join(said)}"


def read_rows(
    sentences: list[CitedSentence], chunk_texts: dict[str, str]
) -> tuple[list[CitedSentence], Callable[[list[CitedSentence]], list[CitedSentence]]]:
    """The sentences with each table row as read, where the row so written passes the verifier
    against its chunk; and a function that gives back, for sentences built from these (renumbered,
    reordered), the chunk's own words, for citations."""
    shown: list[CitedSentence] = []
    written: dict[tuple[str, str], str] = {}
    for s in sentences:
        text = row_as_read(s.text)
        if text != s.text and check_sentence(text, chunk_texts.get(s.chunk_id, ""))[0]:
            written[(s.chunk_id, text)] = s.text
            shown.append(CitedSentence(text, s.citation, s.chunk_id))
        else:
            shown.append(s)

    def as_written(cited: list[CitedSentence]) -> list[CitedSentence]:
        return [CitedSentence(written.get((c.chunk_id, c.text), c.text), c.citation, c.chunk_id) for c in cited]

    return shown, as_written


def _is_bare_number(cell: str) -> bool:
    return bool(cell) and all(q.startswith("n:") for q in quantities(cell)) and cell.replace(".", "").isdigit()


def _speaks_for_itself(header: str, cell: str) -> bool:
    """A cell that states an amount with its unit ("21 days", "50 dollars per day", "Rs. 500",
    "75%"), or holds the header's own last word."""
    if any(not q.startswith("n:") for q in quantities(cell)) or re.search(r"\d\s*%|\d\s+[A-Za-z]", cell):
        return True
    header_words = [stem(w) for w in tokens(header)]
    return bool(header_words) and header_words[-1] in {stem(w) for w in tokens(cell)}
