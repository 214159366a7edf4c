"""The Documents tab (admins): upload and convert, check the chunk audit, what the file contradicts
in the library and the critique of the text (ui/critique_panel.py), add; the library with each
document's chunks and audience, and the critique of every active document; replace with a new
version (offered when an upload has the title of an active document); retire (confirmed, with a
reason) and restore; who may read it. Each contradiction the admin leaves ticked becomes a ticket
for reviewers.

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
from governance.library import SameTitle, read_upload_bytes
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
_CHUNK_HEADERS = ["chunk id", "section", "page", "version", "status", "origin", "words"]
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


def _conflict_box(elem_id: str) -> gr.CheckboxGroup:
    """Where a check lists what a file contradicts in the library, one box per contradiction."""
    return gr.CheckboxGroup(
        choices=[],
        value=[],
        label="Contradictions with the library (ticked ones become tickets for reviewers when you confirm)",
        visible=False,
        elem_id=elem_id,
    )


def _tickets_note(tickets) -> str:
    if not tickets:
        return ""
    return (
        f"\n\n{len(tickets)} conflict ticket(s) filed for reviewers: " + ", ".join(t.ticket_id for t in tickets) + "."
    )


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
    conflicts = _conflict_box("warrant-doc-conflicts")
    with gr.Row():
        check = gr.Button("Check files", elem_id="warrant-doc-check")
        add = gr.Button("Add to library", variant="primary", elem_id="warrant-doc-add")
        # shown when an upload has the title of an active document: a new version, not a second copy
        offer_replace = gr.Button("Replace it with this file", visible=False, elem_id="warrant-doc-offer-replace")
    offered = gr.State("")  # the doc_id the offer would replace (this browser session's)
    status = gr.Markdown("", elem_id="warrant-doc-status")
    critique_note, critique_table = build_critique_panel()

    gr.Markdown("### Library")
    table = gr.Dataframe(headers=_LIBRARY_HEADERS, interactive=False, elem_id="warrant-doc-library")
    with gr.Row():
        doc_id = gr.Textbox(label="Document id", placeholder="click a row or type a doc_id", elem_id="warrant-doc-id")
        reason = gr.Textbox(label="Reason (required to retire)", elem_id="warrant-doc-reason")
    with gr.Row():
        open_doc = gr.Button("Show chunks", size="sm", elem_id="warrant-doc-open")
        retire = gr.Button("Retire…", size="sm", variant="stop", elem_id="warrant-doc-retire")
        restore = gr.Button("Restore", size="sm", elem_id="warrant-doc-restore")
        refresh = gr.Button("Refresh", size="sm", elem_id="warrant-doc-refresh")
        critique_all = gr.Button("Critique the library", size="sm", elem_id="warrant-doc-critique-library")
    with gr.Group(visible=False, elem_id="warrant-doc-retire-confirm-box") as retire_box:
        retire_question = gr.Markdown("", elem_id="warrant-doc-retire-question")
        with gr.Row():
            retire_confirm = gr.Button(
                "Confirm retire", variant="stop", size="sm", elem_id="warrant-doc-retire-confirm"
            )
            retire_cancel = gr.Button("Cancel", size="sm", elem_id="warrant-doc-retire-cancel")
    with gr.Row():
        readers = gr.Textbox(label="Who may read it", placeholder=_AUDIENCE_HINT, elem_id="warrant-doc-readers")
        set_readers = gr.Button("Set audience", size="sm", elem_id="warrant-doc-set-audience")
    new_version = gr.File(
        label="New version of this document (replace)",
        type="filepath",
        file_types=sorted(SUFFIXES),
        elem_id="warrant-doc-new-version",
    )
    with gr.Row():
        replace = gr.Button("Check new version", size="sm", elem_id="warrant-doc-replace")
        replace_confirm = gr.Button(
            "Confirm replace", size="sm", variant="primary", visible=False, elem_id="warrant-doc-replace-confirm"
        )
    replace_preview = gr.Markdown("", elem_id="warrant-doc-replace-preview")
    replace_conflicts = _conflict_box("warrant-doc-replace-conflicts")
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

    def _conflict_choices(found) -> dict:
        """The contradictions as ticked boxes (all ticked: the admin unticks what is not one)."""
        return gr.update(choices=[(c.label(), c.key) for c in found], value=[c.key for c in found], visible=bool(found))

    def _audit(prepared, found) -> str:
        lines = [line for p in prepared for line in p.audit_lines()]
        note = "Chunk audit (flags are warnings; nothing is indexed until you confirm):\n\n" + code_block(
            "\n".join(lines)
        )
        if found:
            note += (
                f"\n\n**This text contradicts the library in {len(found)} place(s)**, listed below. Each ticked "
                "one becomes a ticket for reviewers when you confirm."
            )
        return note

    def on_check(value, t: str, v: str, d: str, request: gr.Request):
        hidden = gr.update(visible=False)
        try:
            identity = identity_of(request)
            prepared = _prepared(identity, value, t, v, d)
            first = prepared[0] if len(prepared) == 1 else None
            fields = (first.title if first else t, first.version if first else v, first.effective_date if first else d)
            try:
                for p in prepared:
                    library.check_new(p)
            except SameTitle as same:
                if first is None:
                    raise
                # One file with the title of an active document: offer it as that document's new version.
                entry = same.entry
                as_version = library.preview(identity, *_files(value)[0], doc_id=entry.doc_id)
                found = library.conflicts([as_version], replacing=entry.doc_id)
                offer = (
                    f'**"{md_text(entry.title)}" is already in the library** ({md_text(entry.doc_id)}, v{md_text(entry.version)}). '
                    f"Replace {entry.doc_id} with this file (a new version; the old one is kept), rather than "
                    "add a second document with the same title."
                )
                return (
                    _audit([as_version], found),
                    offer,
                    *fields,
                    _conflict_choices(found),
                    gr.update(visible=True, value=f"Replace {entry.doc_id} with this file"),
                    entry.doc_id,
                    *critique_uploads(service.governance.critic, identity, _files(value)),
                )
            found = library.conflicts(prepared)
            critique = critique_uploads(service.governance.critic, identity, _files(value))
            return _audit(prepared, found), "", *fields, _conflict_choices(found), hidden, "", *critique
        except (PermissionDenied, ValueError, OSError) as exc:
            failed = f"**Not accepted:** {md_text(exc)}"
            return "", failed, gr.update(), gr.update(), gr.update(), hidden, hidden, "", "", []

    def on_add(
        value, t: str, v: str, d: str, a: str, confirmed: list[str], request: gr.Request, progress=gr.Progress()
    ):
        try:
            identity = identity_of(request)
            prepared = _prepared(identity, value, t, v, d, a=a)
            results, tickets = service.governance.add_documents(
                identity, prepared, confirmed or [], progress=lambda f, m: progress(f, desc=m)
            )
            note = "\n\n".join(md_text(r.message) for r in results) + _tickets_note(tickets)
            return note, _rows(identity), None, gr.update(value=[], choices=[], visible=False)
        except SameTitle as same:
            return (
                f"**Nothing was added:** {md_text(same)} Check the file to be offered the replacement.",
                gr.update(),
                gr.update(),
                gr.update(),
            )
        except (PermissionDenied, ValueError, OSError) as exc:
            return f"**Nothing was added:** {md_text(exc)}", gr.update(), gr.update(), gr.update()

    def on_offer_replace(value, doc: str, a: str, confirmed: list[str], request: gr.Request, progress=gr.Progress()):
        hidden = gr.update(visible=False)
        try:
            identity = identity_of(request)
            if not doc:
                raise ValueError("Check the file first.")
            ((data, name),) = _files(value)
            prepared = library.preview(identity, data, name, doc_id=doc, audience=a)  # no audience: as before
            result, tickets = service.governance.replace_document(
                identity, doc, prepared, confirmed or [], progress=lambda f, m: progress(f, desc=m)
            )
            return md_text(result.message) + _tickets_note(tickets), _rows(identity), None, hidden, hidden, ""
        except (PermissionDenied, ValueError, OSError) as exc:
            return f"**Nothing changed:** {md_text(exc)}", gr.update(), gr.update(), gr.update(), gr.update(), doc

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
            return "", [
                [r["chunk_id"], r["section"], r["page"], r["version"], r["status"], r["origin"], r["words"]]
                for r in rows
            ]
        except (PermissionDenied, ValueError) as exc:
            return md_text(exc), gr.update()

    def _change(action: Callable[[Identity], str], request: gr.Request):
        try:
            identity = identity_of(request)
            return md_text(action(identity)), _rows(identity)
        except (PermissionDenied, ValueError, OSError) as exc:
            return f"**Nothing changed:** {md_text(exc)}", gr.update()

    def ask_retire(doc: str, request: gr.Request):
        """The first click: what retiring would do, and a confirmation that needs a reason."""
        try:
            identity = identity_of(request)
            doc = str(doc or "").strip()
            entry = next((e for e in library.entries(identity) if e.doc_id == doc and e.status == "active"), None)
            if entry is None:
                return f"No active document {md_text(doc)!r} to retire.", "", gr.update(visible=False)
            question = (
                f'**Retire "{md_text(entry.title)}"** ({md_text(entry.doc_id)}, v{md_text(entry.version)})? Its '
                f"{entry.chunks} active chunks stop being used for answers; they are kept, and Restore brings "
                "them back. Write the reason above (the audit log keeps it), then confirm."
            )
            return "", question, gr.update(visible=True)
        except (PermissionDenied, ValueError) as exc:
            return md_text(exc), "", gr.update(visible=False)

    def on_retire(doc: str, why: str, request: gr.Request):
        message, rows = _change(lambda i: library.retire(i, doc, reason=why).message, request)
        done = str(message).startswith("Retired")
        return message, rows, gr.update(visible=not done)

    def on_restore(doc: str, request: gr.Request):
        return _change(lambda i: library.restore(i, doc).message, request)

    def on_set_audience(doc: str, who: str, request: gr.Request):
        return _change(lambda i: library.set_audience(i, doc, who).message, request)

    def on_replace_check(doc: str, value, request: gr.Request):
        """The first click of a replacement: the new version's chunk audit and contradictions."""
        hidden = gr.update(visible=False)
        try:
            identity = identity_of(request)
            ((data, name),) = _files(value)
            prepared = library.preview(identity, data, name, doc_id=doc)
            found = library.conflicts([prepared], replacing=str(doc or "").strip())
            return _audit([prepared], found), _conflict_choices(found), gr.update(visible=True), ""
        except (PermissionDenied, ValueError, OSError) as exc:
            return "", hidden, hidden, f"**Nothing changed:** {md_text(exc)}"

    def on_replace(doc: str, value, confirmed: list[str], request: gr.Request, progress=gr.Progress()):
        def act(identity: Identity) -> str:
            ((data, name),) = _files(value)
            prepared = library.preview(identity, data, name, doc_id=doc)
            result, tickets = service.governance.replace_document(
                identity, doc, prepared, confirmed or [], progress=lambda f, m: progress(f, desc=m)
            )
            return result.message + _tickets_note(tickets)

        message, rows = _change(act, request)
        return message, rows, gr.update(visible=False), gr.update(visible=False, value=[], choices=[])

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
        [preview, status, title, version, effective, conflicts, offer_replace, offered, critique_note, critique_table],
        api_name="documents_check",
        **slow,
    )
    add.click(
        on_add,
        [files, title, version, effective, audience, conflicts],
        [status, table, files, conflicts],
        api_name="documents_add",
        **slow,
    )
    offer_replace.click(
        on_offer_replace,
        [files, offered, audience, conflicts],
        [status, table, files, conflicts, offer_replace, offered],
        api_visibility="private",
        **slow,
    )
    refresh.click(on_list, None, [status, table], api_name="documents_list")
    critique_all.click(
        on_critique_library, None, [status, critique_note, critique_table], api_name="documents_critique", **slow
    )
    open_doc.click(on_chunks, [doc_id], [status, chunks], api_name="documents_chunks")
    # Retiring is two steps: the first click says what it does and asks for the reason; the
    # server refuses a retirement without one whatever calls it.
    retire.click(ask_retire, [doc_id], [status, retire_question, retire_box], api_visibility="private")
    retire_cancel.click(lambda: gr.update(visible=False), None, [retire_box], api_visibility="private")
    retire_confirm.click(on_retire, [doc_id, reason], [status, table, retire_box], api_name="documents_retire", **slow)
    restore.click(on_restore, [doc_id], [status, table], api_name="documents_restore", **slow)
    set_readers.click(on_set_audience, [doc_id, readers], [status, table], api_name="documents_audience", **slow)
    replace.click(
        on_replace_check,
        [doc_id, new_version],
        [replace_preview, replace_conflicts, replace_confirm, status],
        api_name="documents_replace_check",
        **slow,
    )
    replace_confirm.click(
        on_replace,
        [doc_id, new_version, replace_conflicts],
        [status, table, replace_confirm, replace_conflicts],
        api_name="documents_replace",
        **slow,
    )
    table.select(on_select, [table], [doc_id], api_visibility="private")

    def on_load(request: gr.Request):
        try:
            return _rows(identity_of(request))
        except (PermissionDenied, ValueError):
            return gr.update()

    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(on_load, None, [table], api_visibility="private")
