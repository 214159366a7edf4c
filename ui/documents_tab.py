"""The Documents tab (admins): upload and convert, check the chunk audit and the critique of the text
(ui/critique_panel.py), add; the library with each document's chunks and audience, and the critique
of every active document; replace with a new version; retire and restore; who may read it.

Hidden from other roles, which is presentation only: every handler takes the identity from the
request and the library checks the `ingest` permission itself. Every file path a request names
must be an upload (`ui.uploads.uploaded_path`). What a file says of itself (its title, its name)
is shown as text: in a code block no line of it can close, or escaped (`ui.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

import gradio as gr
from gradio.context import Context

from governance.identity import Identity, PermissionDenied
from governance.library import read_upload_bytes
from pipeline.ingest.convert import MAX_UPLOAD_BYTES, SUFFIXES
from ui.critique_panel import build_critique_panel, critique_library, critique_uploads
from ui.render import code_block, md_text
from ui.service import WarrantService
from ui.uploads import uploaded_path

_LIBRARY_HEADERS = [
    "doc_id",
    "title",
    "version",
    "effective date",
    "chunks",
    "status",
    "uploaded by",
    "uploaded at",
    "audience",
]
_AUDIENCE_HINT = "everyone, or the groups that may read it: hr, finance"
_CHUNK_HEADERS = ["chunk id", "section", "version", "status", "origin", "words"]
_LIMIT_MB = MAX_UPLOAD_BYTES // 1048576


class _Concurrency(TypedDict):
    """The keyword arguments that put a Gradio event in a concurrency group."""

    concurrency_limit: int
    concurrency_id: str


def _files(value) -> list[tuple[bytes, str]]:
    values = value if isinstance(value, list) else [value] if value else []
    if not values:
        raise ValueError("Choose one or more files first.")
    out = []
    for v in values:
        path = uploaded_path(v)
        out.append((read_upload_bytes(path, MAX_UPLOAD_BYTES), path.name))
    return out


def build_documents_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """Build inside the caller's open `gr.Tab(...)`."""
    library = service.governance.documents
    gr.Markdown(
        f"### Add documents\nPDF, Word (.docx), HTML, Markdown or plain text, at most {_LIMIT_MB} MB per "
        "file. Headings become sections. Title, version and effective date are read from the file; "
        "change them here for a single file. Check the chunk audit, then add."
    )
    files = gr.File(
        label=f"Documents (at most {_LIMIT_MB} MB each)",
        file_count="multiple",
        type="filepath",
        file_types=sorted(SUFFIXES),
        elem_id="warrant-doc-files",
    )
    with gr.Row():
        title = gr.Textbox(label="Title", elem_id="warrant-doc-title")
        version = gr.Textbox(label="Version", elem_id="warrant-doc-version")
        effective = gr.Textbox(label="Effective date", placeholder="YYYY-MM-DD", elem_id="warrant-doc-date")
        audience = gr.Textbox(label="Audience", placeholder=_AUDIENCE_HINT, elem_id="warrant-doc-audience")
    preview = gr.Markdown("", elem_id="warrant-doc-preview")
    with gr.Row():
        check = gr.Button("Check files", elem_id="warrant-doc-check")
        add = gr.Button("Add to library", variant="primary", elem_id="warrant-doc-add")
    status = gr.Markdown("", elem_id="warrant-doc-status")
    critique_note, critique_table = build_critique_panel()

    gr.Markdown("### Library")
    table = gr.Dataframe(headers=_LIBRARY_HEADERS, interactive=False, elem_id="warrant-doc-library")
    with gr.Row():
        doc_id = gr.Textbox(label="Document id", placeholder="click a row or type a doc_id", elem_id="warrant-doc-id")
        reason = gr.Textbox(label="Reason (for retire)", elem_id="warrant-doc-reason")
    with gr.Row():
        open_doc = gr.Button("Show chunks", size="sm", elem_id="warrant-doc-open")
        retire = gr.Button("Retire", size="sm", variant="stop", elem_id="warrant-doc-retire")
        restore = gr.Button("Restore", size="sm", elem_id="warrant-doc-restore")
        refresh = gr.Button("Refresh", size="sm", elem_id="warrant-doc-refresh")
        critique_all = gr.Button("Critique the library", size="sm", elem_id="warrant-doc-critique-library")
    with gr.Row():
        readers = gr.Textbox(label="Who may read it", placeholder=_AUDIENCE_HINT, elem_id="warrant-doc-readers")
        set_readers = gr.Button("Set audience", size="sm", elem_id="warrant-doc-set-audience")
    new_version = gr.File(
        label="New version of this document (replace)",
        type="filepath",
        file_types=sorted(SUFFIXES),
        elem_id="warrant-doc-new-version",
    )
    replace = gr.Button("Replace with new version", size="sm", elem_id="warrant-doc-replace")
    chunks = gr.Dataframe(headers=_CHUNK_HEADERS, interactive=False, elem_id="warrant-doc-chunks")

    def _rows(identity: Identity) -> list[list]:
        return [
            [
                e.doc_id,
                e.title,
                e.version,
                e.effective_date,
                f"{e.chunks}/{e.total_chunks}",
                e.status,
                e.uploaded_by,
                e.uploaded_at,
                e.audience,
            ]
            for e in library.entries(identity)
        ]

    def _prepared(identity: Identity, value, t: str, v: str, d: str, doc: str = "", a: str = ""):
        contents = _files(value)
        single = len(contents) == 1
        return [
            library.preview(
                identity,
                data,
                name,
                title=t if single else "",
                version=v if single else "",
                effective_date=d if single else "",
                doc_id=doc,
                audience=a,
            )
            for data, name in contents
        ]

    def on_check(value, t: str, v: str, d: str, request: gr.Request):
        try:
            identity = identity_of(request)
            prepared = _prepared(identity, value, t, v, d)
            for p in prepared:
                library.check_new(p)
            lines = [line for p in prepared for line in p.audit_lines()]
            first = prepared[0] if len(prepared) == 1 else None
            note = "Chunk audit (flags are warnings; nothing is indexed until you add):"
            critique = critique_uploads(service.governance.critic, identity, _files(value))
            return (
                note + "\n\n" + code_block("\n".join(lines)),
                "",
                first.title if first else t,
                first.version if first else v,
                first.effective_date if first else d,
                *critique,
            )
        except (PermissionDenied, ValueError, OSError) as exc:
            return "", f"**Not accepted:** {md_text(exc)}", gr.update(), gr.update(), gr.update(), "", []

    def on_add(value, t: str, v: str, d: str, a: str, request: gr.Request, progress=gr.Progress()):
        try:
            identity = identity_of(request)
            prepared = _prepared(identity, value, t, v, d, a=a)
            results = library.add(identity, prepared, progress=lambda f, m: progress(f, desc=m))
            return "\n\n".join(md_text(r.message) for r in results), _rows(identity), None
        except (PermissionDenied, ValueError, OSError) as exc:
            return f"**Nothing was added:** {md_text(exc)}", gr.update(), gr.update()

    def on_list(request: gr.Request):
        try:
            return "", _rows(identity_of(request))
        except (PermissionDenied, ValueError) as exc:
            return md_text(exc), gr.update()

    def on_critique_library(request: gr.Request):
        try:
            return "", *critique_library(service.governance.critic, identity_of(request))
        except (PermissionDenied, ValueError) as exc:
            return md_text(exc), gr.update(), gr.update()

    def on_chunks(doc: str, request: gr.Request):
        try:
            rows = library.chunks(identity_of(request), doc)
            if not rows:
                return md_text(f"No document {doc!r}."), []
            return "", [[r["chunk_id"], r["section"], r["version"], r["status"], r["origin"], r["words"]] for r in rows]
        except (PermissionDenied, ValueError) as exc:
            return md_text(exc), gr.update()

    def _change(action: Callable[[Identity], str], request: gr.Request):
        try:
            identity = identity_of(request)
            return md_text(action(identity)), _rows(identity)
        except (PermissionDenied, ValueError, OSError) as exc:
            return f"**Nothing changed:** {md_text(exc)}", gr.update()

    def on_retire(doc: str, why: str, request: gr.Request):
        return _change(lambda i: library.retire(i, doc, reason=why).message, request)

    def on_restore(doc: str, request: gr.Request):
        return _change(lambda i: library.restore(i, doc).message, request)

    def on_set_audience(doc: str, who: str, request: gr.Request):
        return _change(lambda i: library.set_audience(i, doc, who).message, request)

    def on_replace(doc: str, value, request: gr.Request, progress=gr.Progress()):
        def act(identity: Identity) -> str:
            ((data, name),) = _files(value)
            prepared = library.preview(identity, data, name, doc_id=doc)
            return library.replace(identity, doc, prepared, progress=lambda f, m: progress(f, desc=m)).message

        return _change(act, request)

    def on_select(evt: gr.SelectData, rows):
        try:
            return rows.iloc[evt.index[0], 0] if hasattr(rows, "iloc") else rows[evt.index[0]][0]
        except (IndexError, KeyError, TypeError):
            return gr.update()

    # Indexing runs beside chat turns (its own concurrency group), and releases the model between
    # slices of texts, so other users keep getting answers while a large upload is embedded.
    slow: _Concurrency = {"concurrency_limit": 1, "concurrency_id": "documents"}
    check.click(
        on_check,
        [files, title, version, effective],
        [preview, status, title, version, effective, critique_note, critique_table],
        api_name="documents_check",
        **slow,
    )
    add.click(
        on_add, [files, title, version, effective, audience], [status, table, files], api_name="documents_add", **slow
    )
    refresh.click(on_list, None, [status, table], api_name="documents_list")
    critique_all.click(
        on_critique_library, None, [status, critique_note, critique_table], api_name="documents_critique", **slow
    )
    open_doc.click(on_chunks, [doc_id], [status, chunks], api_name="documents_chunks")
    retire.click(on_retire, [doc_id, reason], [status, table], api_name="documents_retire", **slow)
    restore.click(on_restore, [doc_id], [status, table], api_name="documents_restore", **slow)
    set_readers.click(on_set_audience, [doc_id, readers], [status, table], api_name="documents_audience", **slow)
    replace.click(on_replace, [doc_id, new_version], [status, table], api_name="documents_replace", **slow)
    table.select(on_select, [table], [doc_id], api_visibility="private")

    def on_load(request: gr.Request):
        try:
            return _rows(identity_of(request))
        except (PermissionDenied, ValueError):
            return gr.update()

    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(on_load, None, [table], api_visibility="private")
