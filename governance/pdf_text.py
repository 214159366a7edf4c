"""The text of an untrusted PDF (a claim's proof), read with limits in a process that is killed past its budget.

A PDF is a small program: a 1.5 KB file whose four pages each draw one form XObject 400 times
made pypdf run for a minute, and claims queued behind it (issue 27). So a proof's PDF is read:

- in a child process (this file run as a script, with `python -I`: nothing but pypdf and the
  standard library is imported), killed after `BUDGET_S` seconds of wall-clock time; the child
  also caps its own memory and CPU time;
- at most `MAX_PAGES` pages;
- only when those pages' content streams, every form XObject counted each time it is drawn,
  hold at most `MAX_OPERATIONS` operations. They are counted before any text is extracted,
  parsing each stream once, so the cost of the count is the size of the file, not what it expands to.

A PDF over a limit is refused with `PdfRefused`, whose message a person understands; a damaged
one gives no text, as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MAX_PAGES = 20
MAX_OPERATIONS = 100_000
BUDGET_S = 10.0
MAX_MEMORY_BYTES = 1 << 30
_REFUSED = 3  # the child's exit status for a PDF over a limit (its message on stderr)


class PdfRefused(ValueError):
    """The PDF is over a reading limit; the message is safe to show and says what to do."""


def pdf_text(data: bytes, budget_s: float = BUDGET_S) -> str:
    """The text of the first `MAX_PAGES` pages of the PDF `data`; "" for a damaged PDF.

    Raises PdfRefused when the PDF draws more than `MAX_OPERATIONS` operations or cannot be read
    within `budget_s` seconds."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", str(Path(__file__).resolve())],
            input=data,
            capture_output=True,
            timeout=budget_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PdfRefused(
            f"Reading this PDF took longer than {budget_s:.0f} seconds, so it was stopped. Paste the "
            "relevant text as proof instead, or upload a simpler file."
        ) from exc
    if done.returncode == _REFUSED:
        raise PdfRefused(done.stderr.decode("utf-8", "replace").strip())
    if done.returncode != 0:
        return ""  # damaged, or killed for memory: kept as proof without text
    return done.stdout.decode("utf-8", "replace")


# -- the child process --------------------------------------------------------------------------


def _limit_self(budget_s: float) -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the parent's wall-clock budget still holds
        return
    resource.setrlimit(resource.RLIMIT_AS, (MAX_MEMORY_BYTES, MAX_MEMORY_BYTES))
    cpu = int(budget_s) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def _operations(operations: list, resources, reader, counted: dict, drawing: set) -> int:
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
            counted[key] = _operations(inner, form.get("/Resources") or resources, reader, counted, drawing)
            drawing.discard(key)
        total += counted[key]
        if total > MAX_OPERATIONS:
            break
    return total


class _OverLimit(Exception):
    pass


def _read(data: bytes) -> str:
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        return ""
    pages = reader.pages[:MAX_PAGES]
    counted: dict = {}
    total = 0
    for page in pages:
        contents = page.get_contents()
        if contents is not None:
            total += _operations(contents.operations, page.get("/Resources"), reader, counted, set())
        if total > MAX_OPERATIONS:
            raise _OverLimit(
                f"This PDF is too complex to read as proof (more than {MAX_OPERATIONS:,} drawing "
                "operations). Paste the relevant text instead, or upload a simpler file."
            )
    return "\n".join((page.extract_text() or "") for page in pages)


def _main() -> int:
    _limit_self(BUDGET_S)
    data = sys.stdin.buffer.read()
    try:
        text = _read(data)
    except _OverLimit as refused:
        sys.stderr.write(str(refused))
        return _REFUSED
    except Exception as exc:  # damaged: no text
        sys.stderr.write(json.dumps({"damaged": type(exc).__name__}))
        return 1
    sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
