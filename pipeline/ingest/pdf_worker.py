"""The child process that opens an untrusted PDF: run as a script by `pipeline.ingest.pdf_reader`, never
imported by the app.

It runs with `python -I` (nothing but the standard library and installed packages: pdfplumber,
pypdf, Pillow), caps its own memory and CPU time, and its parent kills it (and the tesseract it may
start) past a wall-clock budget. A PDF is a small program: a 1.5 KB file whose pages draw one form
XObject hundreds of times made a reader run for minutes (issue 27). So before anything is laid out
the pages' content streams are counted, every form XObject counted each time it is drawn and each
stream parsed once, and a PDF over `--max-operations` is refused.

    python -I pdf_worker.py layout --max-pages N [--first-pages] [--max-chars N] --max-operations N --memory-bytes N --cpu-s N < file.pdf
    python -I pdf_worker.py ocr --pages 1,3 --dpi 300 --page-timeout-s 60 ... < file.pdf

`layout` writes JSON: the document's title and page count, and for each page its size, its words
(text, x0, x1, top, bottom, font size, bold) and its ruled tables (bounding box, rows, whether the
first row is set in bold), and how many pictures it holds. `ocr` renders the named pages and reads
them with tesseract (`tesseract stdin stdout tsv`: no file is written), writing the same words with
each word's confidence. Exit status: 0 done, 3 over a limit (the reason on stderr), 4 encrypted,
5 tesseract missing or failing, 1 damaged.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

OVER_LIMIT, ENCRYPTED, NO_OCR = 3, 4, 5
_BOLD = re.compile(r"bold|black|heavy|demi", re.IGNORECASE)


class _OverLimit(Exception):
    pass


def _limit_self(memory_bytes: int, cpu_s: int) -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the parent's wall-clock budget still holds
        return
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))


# -- the cost of a PDF, counted before it is read -------------------------------------------------
def _operations(operations: list, resources, reader, counted: dict, drawing: set, limit: int) -> int:
    """How many `operations` (a content stream's) run, each form XObject drawn counted at every draw."""
    from pypdf.generic import ContentStream

    total = 0
    named = resources.get("/XObject") if resources else None
    xobjects = named.get_object() if named is not None else None
    for operands, operator in operations:
        total += 1
        if operator != b"Do" or not operands or xobjects is None or operands[0] not in xobjects:
            continue
        ref = xobjects.raw_get(operands[0])
        key = getattr(ref, "idnum", id(ref))
        form = ref.get_object()
        if form.get("/Subtype") != "/Form":
            continue
        if key in drawing:
            raise _OverLimit("This PDF draws a picture inside itself without end, so it cannot be read.")
        if key not in counted:
            drawing.add(key)
            inner = ContentStream(form, reader).operations
            counted[key] = _operations(inner, form.get("/Resources") or resources, reader, counted, drawing, limit)
            drawing.discard(key)
        total += counted[key]
        if total > limit:
            break
    return total


def _check_cost(data: bytes, max_pages: int, max_operations: int, first_pages: bool) -> None:
    """Raise _OverLimit for too many pages (unless only the `first_pages` are read) or operations on
    the pages read; exit for encryption."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        sys.exit(ENCRYPTED)
    pages = len(reader.pages)
    if pages > max_pages and not first_pages:
        raise _OverLimit(f"This PDF has {pages} pages; at most {max_pages} are read.")
    counted: dict = {}
    total = 0
    for page in reader.pages[:max_pages]:
        contents = page.get_contents()
        if contents is not None:
            total += _operations(contents.operations, page.get("/Resources"), reader, counted, set(), max_operations)
        if total > max_operations:
            raise _OverLimit(f"This PDF is too complex to read (more than {max_operations:,} drawing operations).")


# -- layout: words and tables ---------------------------------------------------------------------
def _word(w: dict) -> list:
    return [
        w["text"],
        round(w["x0"], 1),
        round(w["x1"], 1),
        round(w["top"], 1),
        round(w["bottom"], 1),
        round(float(w.get("size") or 0.0), 1),
        1 if _BOLD.search(str(w.get("fontname", "")).split("+")[-1]) else 0,
    ]


def _first_row_bold(page, table) -> bool:
    if not table.rows:
        return False
    x0, top, x1, bottom = table.rows[0].bbox
    chars = [
        c
        for c in page.chars
        if c["text"].strip()
        and x0 <= c["x0"]
        and c["x1"] <= x1 + 0.5
        and top <= c["top"]
        and c["bottom"] <= bottom + 0.5
    ]
    return bool(chars) and all(_BOLD.search(str(c.get("fontname", "")).split("+")[-1]) for c in chars)


def _layout(data: bytes, max_pages: int, max_chars: int) -> dict:
    """The first `max_pages` pages, stopping after the page on which `max_chars` of text (0: no
    limit) have been read."""
    import pdfplumber

    out: dict = {"title": "", "pages": []}
    chars = 0
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        title = (pdf.metadata or {}).get("Title", "")
        out["title"] = title if isinstance(title, str) else ""
        for page in pdf.pages[:max_pages]:
            tables = []
            for table in page.find_tables({"vertical_strategy": "lines", "horizontal_strategy": "lines"}):
                rows = [[(cell or "").strip() for cell in row] for row in table.extract()]
                if rows:
                    tables.append(
                        {
                            "bbox": [round(v, 1) for v in table.bbox],
                            "rows": rows,
                            "header_bold": _first_row_bold(page, table),
                        }
                    )
            words = page.extract_words(extra_attrs=["size", "fontname"], keep_blank_chars=False)
            out["pages"].append(
                {
                    "number": page.page_number,
                    "width": round(float(page.width), 1),
                    "height": round(float(page.height), 1),
                    "words": [_word(w) for w in words if w["text"].strip()],
                    "tables": tables,
                    "images": len(page.images),
                }
            )
            chars += sum(len(w["text"]) + 1 for w in words)
            if max_chars and chars >= max_chars:
                break
    return out


# -- OCR: tesseract on rendered pages -------------------------------------------------------------
MAX_RENDER_PIXELS = 40_000_000  # an A4 page at 300 dpi is 8.7 million; a poster-sized page is rendered coarser


def _ocr_page(page, dpi: int, timeout_s: float) -> dict:
    area_in2 = float(page.width) * float(page.height) / 72.0**2
    dpi = int(min(dpi, (MAX_RENDER_PIXELS / max(area_in2, 1e-6)) ** 0.5))
    image = page.to_image(resolution=dpi).original.convert("L")
    png = io.BytesIO()
    image.save(png, format="PNG")
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "--psm", "3", "tsv"],
            input=png.getvalue(),
            capture_output=True,
            timeout=timeout_s,
            check=False,
            env=env,
        )
    except FileNotFoundError:
        sys.exit(NO_OCR)
    except subprocess.TimeoutExpired as exc:
        raise _OverLimit(f"Reading page {page.page_number} of this scan took over {timeout_s:.0f} seconds.") from exc
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode("utf-8", "replace")[-500:])
        sys.exit(NO_OCR)
    scale = 72.0 / dpi
    rows = list(
        csv.DictReader(io.StringIO(done.stdout.decode("utf-8", "replace")), delimiter="\t", quoting=csv.QUOTE_NONE)
    )
    line_heights: dict[tuple, float] = {}
    for row in rows:
        if row.get("level") == "4":
            line_heights[(row["block_num"], row["par_num"], row["line_num"])] = float(row["height"]) * scale
    words = []
    for row in rows:
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text or float(row.get("conf") or -1) < 0:
            continue
        left, top = float(row["left"]) * scale, float(row["top"]) * scale
        width, height = float(row["width"]) * scale, float(row["height"]) * scale
        line = line_heights.get((row["block_num"], row["par_num"], row["line_num"]), height)
        # A line's box runs from ascender to descender, about 1.2 times the type's size.
        words.append([text, round(left, 1), round(left + width, 1), round(top, 1), round(top + height, 1),
                      round(line / 1.2, 1), 0, round(float(row["conf"]), 1)])  # fmt: skip
    return {"number": page.page_number, "words": words}


def _ocr(data: bytes, pages: list[int], dpi: int, timeout_s: float) -> dict:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return {"pages": [_ocr_page(pdf.pages[n - 1], dpi, timeout_s) for n in pages if 0 < n <= len(pdf.pages)]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["layout", "ocr"])
    parser.add_argument("--max-pages", type=int, required=True)
    parser.add_argument("--max-operations", type=int, required=True)
    parser.add_argument("--memory-bytes", type=int, required=True)
    parser.add_argument("--cpu-s", type=int, required=True)
    parser.add_argument("--pages", default="")
    parser.add_argument("--dpi", type=int, default=300)
    parser.add_argument("--page-timeout-s", type=float, default=60.0)
    parser.add_argument("--max-chars", type=int, default=0, help="stop after the page where this much text was read")
    parser.add_argument("--first-pages", action="store_true", help="read the first --max-pages pages of a longer PDF")
    args = parser.parse_args(argv)
    _limit_self(args.memory_bytes, args.cpu_s)
    data = sys.stdin.buffer.read()
    try:
        _check_cost(data, args.max_pages, args.max_operations, args.first_pages)
        if args.mode == "layout":
            result = _layout(data, args.max_pages, args.max_chars)
        else:
            wanted = [int(n) for n in args.pages.split(",") if n.strip()]
            result = _ocr(data, wanted, args.dpi, args.page_timeout_s)
    except _OverLimit as refused:
        sys.stderr.write(str(refused))
        return OVER_LIMIT
    except MemoryError:
        sys.stderr.write("This PDF needs more memory to read than is allowed.")
        return OVER_LIMIT
    except Exception as exc:  # damaged (pypdf, pdfminer and pdfium raise many kinds): no text
        sys.stderr.write(json.dumps({"damaged": type(exc).__name__}))
        return 1
    sys.stdout.write(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
