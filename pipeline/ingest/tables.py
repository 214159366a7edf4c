"""A table's rows as Markdown, the same for every kind of file (Word, HTML, PDF)."""

from __future__ import annotations


def markdown_table(rows: list[list[str]], header: bool) -> list[str]:
    """A table's rows as a Markdown table when its first row is a header (the chunker writes each
    row out after the headers: pipeline.ingest.chunking); else, and for a one-column (layout) table, one
    line a row: a first data row read as headers would label every row with its values."""
    rows = [[" ".join(cell.replace("|", "/").split()) for cell in row] for row in rows]
    rows = [row for row in rows if any(row)]
    width = max((len(row) for row in rows), default=0)
    if not header or width < 2 or len(rows) < 2:
        return [line for row in rows for line in (" | ".join(c for c in row if c), "")]
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return ["", *lines, ""]
