"""The document view: `GET /document?chunk=<id>` opens a cited chunk's document at that passage.

A citation marker `[n]` and each source card link here (a new tab, so the conversation stays as
it was). The page shows the document's title, the cited section's path and, where the chunk's
metadata has one, its page; then the document's current text in order, the cited passage
highlighted and scrolled to (`#passage`). A passage replaced or retired since it was cited is
shown on top, marked as no longer in force, above the current text.

The route is a plain FastAPI route registered before Gradio is mounted. It answers only a valid
session of an existing account (else it redirects to /login) and reads through
`WarrantService.passage`, which checks the caller's role; every string from a document is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from governance.identity import Identity, PermissionDenied
from pipeline.retrieve.passages import DocumentView, Passage
from ui.render import esc

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Warrant</title>
<style>
body {{font-family: system-ui, sans-serif; max-width: 52rem; margin: 0 auto; padding: 1rem 1.2rem 4rem; color:#1f2328;
  line-height: 1.5;}}
header {{position: sticky; top: 0; background: #fff; border-bottom: 1px solid #d0d7de; padding: 0.6rem 0 0.5rem;}}
header h1 {{font-size: 1.3em; margin: 0.3rem 0 0.1rem;}}
nav {{font-size: 0.9em; color:#57606a;}} nav a {{color:inherit;}}
.path {{color:#57606a;}}
.meta {{font-size: 0.85em; color:#57606a;}}
section {{border-left: 3px solid transparent; padding: 0.2rem 0.8rem; margin: 0.6rem 0;}}
section h3 {{font-size: 1em; margin: 0.3rem 0;}}
section.cited {{background: #fff8c5; border-left-color: #d4a72c; scroll-margin-top: 9rem;}}
.replaced {{background: #ffebe9; border-left-color: #cf222e;}}
.label {{font-size: 0.8em; font-weight: 600; color:#9a6700;}}
</style></head><body>
<header><nav><a href="/">← Back to the chat</a></nav>{header}</header>
{body}
</body></html>"""

_HEADING = re.compile(r"^#{1,6}\s+")


def _text_html(text: str) -> str:
    """A chunk's Markdown-like text as escaped paragraphs: headings bold, line breaks kept."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        if _HEADING.match(block):
            blocks.append(f"<p><b>{esc(_HEADING.sub('', block))}</b></p>")
        else:
            blocks.append("<p>" + "<br>".join(esc(line) for line in block.splitlines()) + "</p>")
    return "".join(blocks)


def _section_html(passage: Passage, css: str = "", label: str = "") -> str:
    anchor = " id='passage'" if "cited" in css else ""
    page = f" <span class='meta'>(page {esc(passage.page)})</span>" if passage.page else ""
    label_html = f"<div class='label'>{esc(label)}</div>" if label else ""
    return (
        f"<section class='{css}'{anchor}>{label_html}<h3>{esc(passage.section)}{page}</h3>"
        f"{_text_html(passage.text)}</section>"
    )


def document_page(view: DocumentView) -> str:
    """The whole page for one cited chunk's document."""
    path = " › ".join(esc(part) for part in view.section_path)
    facts = [
        f"version {view.version}" if view.version else "",
        f"in force from {view.effective_date}" if view.effective_date else "",
        f"owner: {view.owner}" if view.owner else "",
    ]
    header = (
        f"<h1>{esc(view.title)}</h1><div class='path' id='section-path'>{path}</div>"
        f"<div class='meta'>{esc(' · '.join(f for f in facts if f))}</div>"
    )
    parts = []
    if not view.in_force:
        parts.append(
            _section_html(
                view.cited,
                "cited replaced",
                "The passage cited: it has since been replaced or retired. The current text follows.",
            )
        )
    parts += [_section_html(p, "cited" if p.cited and view.in_force else "") for p in view.passages]
    return _PAGE.format(title=esc(view.title), header=header, body="".join(parts))


def _message_page(message: str, status: int) -> HTMLResponse:
    header = "<h1>Document not available</h1>"
    return HTMLResponse(
        _PAGE.format(title="Document", header=header, body=f"<p>{esc(message)}</p>"), status_code=status
    )


def add_document_route(app: FastAPI, service, identity_of: Callable[[Request], Identity]) -> None:
    """GET /document?chunk=<chunk id>: the document view (login required)."""

    @app.get("/document", response_class=HTMLResponse)
    def document(request: Request, chunk: str = ""):
        try:
            identity = identity_of(request)
        except PermissionDenied:
            return RedirectResponse("/login", status_code=303)
        try:
            view = service.passage(identity, chunk[:500])
        except PermissionDenied as exc:
            return _message_page(str(exc), 403)
        if view is None:
            return _message_page("That passage was not found in the documents.", 404)
        return HTMLResponse(document_page(view))
