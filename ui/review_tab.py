"""The review tab (queue, ticket, side-by-side replacement with a diff, decide), the audit panel, "My claims".

A ticket lists every statement of the claimed rule in the library, each with its proposed edit,
and the statements that lean on it (flagged); a section can be kept unchanged; a claim that adds a
rule is approved as a new section. Once decided, the version in force is shown as the current
text and nothing is editable.

Handlers are thin: each takes the identity from the request and calls `service.governance`, which
checks the role itself; a hidden tab is presentation, not security. Errors the service raises for
people (PermissionDenied, ValueError) become a plain message, never a stack trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import gradio as gr

from governance.identity import Identity, PermissionDenied
from governance.service import DECIDABLE
from governance.tickets import STATUSES, Ticket
from ui.render import diff_html
from ui.render import md_text as esc
from ui.service import WarrantService
from ui.uploads import uploaded_path

_QUEUE_HEADERS = ["ticket", "status", "trust", "reporter", "filed", "claim"]
_MINE_HEADERS = ["ticket", "status", "filed", "claim", "decision reason"]
_AUDIT_HEADERS = ["seq", "time", "event", "actor", "details"]
_ANY = "all"


def queue_rows(tickets: list[Ticket]) -> list[list]:
    return [[t.ticket_id, t.status, t.trust.get("score", ""), t.reporter_name, t.created_at, t.claim] for t in tickets]


def ticket_markdown(ticket: Ticket) -> str:
    """A ticket for a reviewer: claim, proof, trust reasons, contradictions as pairs of spans.

    Every user-written string is shown as text (`md_text`): a Markdown image or link in a claim
    must not make the reviewer's browser fetch anything.
    """
    lines = [
        f"### {esc(ticket.ticket_id)} · {esc(ticket.status)}",
        f"**Claim** (by {esc(ticket.reporter_name)}, {esc(ticket.reporter_role)}, {esc(ticket.created_at)}): "
        f"{esc(ticket.claim)}",
    ]
    if ticket.proof_text:
        lines.append(f"**Pasted proof:** {esc(ticket.proof_text[:1500])}")
    if ticket.proof_file:
        p = ticket.proof_file
        lines.append(
            f"**Uploaded proof:** {esc(p['original_name'])} ({esc(p['kind'])}, {p['size']:,} bytes, "
            f"stored as {esc(p['stored_name'])})" + (f" - text: {esc(p['text'][:800])}" if p.get("text") else "")
        )
    if not ticket.proof_text and not ticket.proof_file:
        lines.append("**Proof:** none attached")
    lines.append(
        f"**Trust {ticket.trust.get('score', 0):.2f}:** " + "; ".join(esc(r) for r in ticket.trust.get("reasons", []))
    )
    if ticket.kind == "conflict" and ticket.conflict:
        c = ticket.conflict
        lines.append(
            f"**Two documents disagree** ({esc(c.get('what', ''))}), found when a document was added: edit the "
            "section that is wrong (or both) so they agree; the approval checks that they no longer disagree."
        )
    elif ticket.contradictions:
        sections = len({c["chunk_id"] for c in ticket.contradictions})
        lines.append(
            f"**Every statement of the rule in the library** ({sections} section(s); claim ↔ current text), "
            "each with a proposed edit below:"
        )
        lines += [
            f"- {esc(c['kind'])} in {esc(c['section'])}: “{esc(c['claim_span']['text'])}” ↔ "
            f"“{esc(c['chunk_span']['text'][:300])}”"
            for c in ticket.contradictions
        ]
    else:
        lines.append(
            "**Contradictions:** none found against the active chunks. If the claim adds a rule, approve it "
            "as a new section (below)."
        )
    if ticket.dependents:
        lines.append("**Flagged for your edit** (statements that lean on the rule):")
        lines += [
            f"- {'⚠ ' if d.get('no_longer_fits') else ''}{esc(d['title'])}, {esc(d['section'])}: "
            f"“{esc(d['sentence'][:300])}” - {esc(d['reason'])}"
            for d in ticket.dependents
        ]
    if ticket.addition:
        a = ticket.addition
        lines.append(
            f"**New section** (approves the claim as an addition): {esc(a['doc_id'])} § {esc(a['heading'])}: "
            f"{esc(a['text'][:1500])}"
        )
    if ticket.decision_reason:
        lines.append(
            f"**Decision** by {esc(ticket.decided_by)} at {esc(ticket.decided_at)}: {esc(ticket.decision_reason)}"
        )
    if ticket.check:
        lines.append(
            f"**Post-update check:** {'passed' if ticket.check.get('passed') else 'failed'} - "
            f"{esc(ticket.check.get('reason', ''))}"
        )
    lines += [f"*{esc(n)}*" for n in ticket.notes]
    return "\n\n".join(lines)


def _affected_choices(ticket: Ticket) -> list[tuple[str, str]]:
    return [(f"{a['title']} · {a['section']} (v{a['version']})", a["chunk_id"]) for a in ticket.affected]


def is_decidable(ticket: Ticket) -> bool:
    """Open, or an approval that failed its check (it changed nothing): Approve and Reject apply."""
    return ticket.status in DECIDABLE


def review_label(open_tickets: int) -> str:
    """The Review tab's label: the number of claims waiting for a decision."""
    return f"Review ({open_tickets})" if open_tickets else "Review"


def build_review_tab(
    service: WarrantService, identity_of: Callable[[gr.Request], Identity], tab: gr.Tab | None = None
) -> None:
    """Build inside the caller's open `gr.Tab(...)`; every handler re-checks the role on the server.
    `tab`: the queue loads when it is opened, and its label counts the open claims."""
    gov = service.governance
    message = gr.Markdown("", elem_id="warrant-review-status")
    with gr.Row():
        status_filter = gr.Radio([_ANY, *STATUSES], value="open", label="Status")
        refresh = gr.Button("Refresh queue", size="sm")
    queue = gr.Dataframe(headers=_QUEUE_HEADERS, interactive=False, elem_id="warrant-review-queue")
    with gr.Row():
        ticket_id = gr.Textbox(label="Ticket id", placeholder="click a row or paste an id", elem_id="warrant-ticket-id")
        load = gr.Button("Open ticket")
    details = gr.Markdown("", elem_id="warrant-ticket")
    chunk = gr.Dropdown(choices=[], label="Affected section", interactive=True, elem_id="warrant-affected")
    with gr.Row():
        current = gr.Textbox(label="Current text (active)", lines=8, interactive=False, elem_id="warrant-current")
        proposed = gr.Textbox(label="Proposed replacement (editable)", lines=8, elem_id="warrant-replacement")
    diff = gr.HTML("", elem_id="warrant-diff")
    with gr.Row():
        save = gr.Button("Save replacement text", size="sm", elem_id="warrant-save")
        keep = gr.Button("Keep this section unchanged", size="sm", elem_id="warrant-keep")
    with gr.Accordion("Approve as a new section (a claim that adds a rule)", open=False):
        with gr.Row():
            add_doc = gr.Dropdown(choices=[], label="Document", interactive=True, elem_id="warrant-add-doc")
            add_heading = gr.Textbox(label="Heading of the new section", elem_id="warrant-add-heading")
        add_text = gr.Textbox(label="Text of the new section", lines=4, elem_id="warrant-add-text")
        add_save = gr.Button("Save new section", size="sm", elem_id="warrant-add-save")
    reason = gr.Textbox(label="Reason for the decision (required)", elem_id="warrant-reason")
    gr.Markdown(
        "A claim is decided by a reviewer or admin other than the person who filed it.", elem_classes=["warrant-muted"]
    )
    with gr.Row():
        approve = gr.Button("Approve", variant="primary", elem_id="warrant-approve")
        reject = gr.Button("Reject", variant="stop", elem_id="warrant-reject")

    def _queue(identity: Identity, status: str) -> list[list]:
        return queue_rows(gov.list_tickets(identity, None if status == _ANY else status))

    def _texts(identity: Identity, ticket: Ticket, chunk_id: str | None):
        """The current and proposed boxes and the diff between them. Once approved, the version in
        force is the current text (and the previous one is shown beside it), nothing is editable."""
        before = next((a["text"] for a in ticket.affected if a["chunk_id"] == chunk_id), "")
        if ticket.status == "approved":
            now = gov.versions_after(identity, ticket.ticket_id).get(chunk_id or "")
            if now is not None:
                return (
                    gr.update(value=now["text"], label=f"Current text (active, v{now['version']})"),
                    gr.update(value=before, label="Previous text (deprecated, kept)", interactive=False),
                    diff_html(before, now["text"]),
                )
            return (
                gr.update(value=before, label="Current text (active: kept unchanged)"),
                gr.update(value=before, label="Previous text", interactive=False),
                "",
            )
        proposed_text = ticket.replacements.get(chunk_id or "", "")
        editable = is_decidable(ticket)
        return (
            gr.update(value=before, label="Current text (active)"),
            gr.update(
                value=proposed_text,
                label="Proposed replacement (editable)" if editable else "Proposed replacement",
                interactive=editable,
            ),
            diff_html(before, proposed_text) if proposed_text else "",
        )

    def _controls(identity: Identity, ticket: Ticket):
        """Approve, Reject and every edit apply only to a ticket that can still be decided."""
        live = is_decidable(ticket)
        addition = ticket.addition or {}
        documents = gov.documents_for_additions(identity) if live else []
        return (
            gr.update(interactive=live),
            gr.update(interactive=live),
            gr.update(interactive=live and bool(ticket.affected)),
            gr.update(interactive=live and bool(ticket.affected)),
            gr.update(choices=documents, value=addition.get("doc_id"), interactive=live),
            gr.update(value=addition.get("heading", ""), interactive=live),
            gr.update(
                value=addition.get("text", "") or (ticket.statement if not ticket.affected else ""), interactive=live
            ),
            gr.update(interactive=live),
        )

    def _show(identity: Identity, tid: str, note: str = ""):
        ticket = gov.get_ticket(identity, tid)
        choices = _affected_choices(ticket)
        if ticket.status == "approved" and ticket.addition:
            added = next((k for k, v in gov.versions_after(identity, tid).items() if k == v["chunk_id"]), None)
            if added:
                choices.append((f"New section · {ticket.addition['heading']}", added))
        first = choices[0][1] if choices else None
        cur, new, changes = (
            _texts(identity, ticket, first) if ticket.affected else _added_texts(identity, ticket, first)
        )
        return (
            note,
            ticket_markdown(ticket),
            gr.update(choices=choices, value=first),
            cur,
            new,
            changes,
            *_controls(identity, ticket),
        )

    def _added_texts(identity: Identity, ticket: Ticket, chunk_id: str | None):
        now = gov.versions_after(identity, ticket.ticket_id).get(chunk_id or "") if chunk_id else None
        if now is None:
            return gr.update(value="", label="Current text (active)"), gr.update(value=""), ""
        return (
            gr.update(value=now["text"], label=f"Current text (active, new section, v{now['version']})"),
            gr.update(value="", label="Previous text (none: a new section)", interactive=False),
            diff_html("", now["text"]),
        )

    no_change = (gr.update(),) * 12

    def show_queue(status: str, request: gr.Request):
        try:
            return "", _queue(identity_of(request), status)
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update()

    def open_ticket(tid: str, request: gr.Request):
        try:
            return _show(identity_of(request), tid)
        except (PermissionDenied, ValueError) as exc:
            return (str(exc), *no_change)

    def pick_row(rows, event: gr.SelectData, request: gr.Request):
        try:
            row = event.index[0] if isinstance(event.index, (list, tuple)) else event.index
            tid = str(rows.iloc[row, 0]) if hasattr(rows, "iloc") else str(rows[row][0])
            return (tid, *_show(identity_of(request), tid))
        except (PermissionDenied, ValueError, IndexError, KeyError) as exc:
            return (gr.update(), str(exc), *no_change)

    def pick_chunk(tid: str, chunk_id: str, request: gr.Request):
        try:
            identity = identity_of(request)
            ticket = gov.get_ticket(identity, tid)
            if ticket.affected and any(a["chunk_id"] == chunk_id for a in ticket.affected):
                return _texts(identity, ticket, chunk_id)
            return _added_texts(identity, ticket, chunk_id)
        except (PermissionDenied, ValueError):
            return gr.update(), gr.update(), gr.update()

    def save_text(tid: str, chunk_id: str, text: str, request: gr.Request):
        try:
            identity = identity_of(request)
            ticket = gov.edit_replacement(identity, tid, chunk_id, text)
            before = next((a["text"] for a in ticket.affected if a["chunk_id"] == chunk_id), "")
            return "Replacement text saved.", diff_html(before, ticket.replacements[chunk_id])
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update()

    def keep_section(tid: str, chunk_id: str, request: gr.Request):
        try:
            identity = identity_of(request)
            ticket = gov.keep_unchanged(identity, tid, chunk_id)
            return "This section will be left as it is; the approval names it as kept.", *_texts(
                identity, ticket, chunk_id
            )
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update(), gr.update(), gr.update()

    def save_addition(tid: str, doc: str, heading: str, text: str, request: gr.Request):
        try:
            identity = identity_of(request)
            ticket = gov.set_addition(identity, tid, doc, heading, text)
            return "New section saved: approve to add it.", ticket_markdown(ticket)
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update()

    def decide(verdict: str):
        def handler(tid: str, why: str, status: str, request: gr.Request):
            try:
                identity = identity_of(request)
                ticket = gov.decide(identity, tid, verdict, why)
                note = {
                    "approved": "Approved: the new version is live and the old one deprecated.",
                    "rejected": "Rejected: the corpus is unchanged.",
                    "failed": "The change failed its post-update check and was rolled back: "
                    + ticket.check.get("reason", ""),
                }[ticket.status]
                return (*_show(identity, tid, note), _queue(identity, status))
            except (PermissionDenied, ValueError) as exc:
                return (str(exc), *no_change, gr.update())

        return handler

    def open_tab(status: str, request: gr.Request):
        try:
            identity = identity_of(request)
            return "", _queue(identity, status), gr.Tab(label=review_label(service.open_ticket_count(identity)))
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update(), gr.update()

    # The first five outputs are the ticket's text, as the API has always returned them.
    ticket_outputs = [
        message,
        details,
        chunk,
        current,
        proposed,
        diff,
        approve,
        reject,
        save,
        keep,
        add_doc,
        add_heading,
        add_text,
        add_save,
    ]
    refresh.click(show_queue, [status_filter], [message, queue], api_name="review_queue")
    if tab is not None:
        tab.select(open_tab, [status_filter], [message, queue, tab], api_visibility="private")
    status_filter.change(show_queue, [status_filter], [message, queue], api_visibility="private")
    load.click(open_ticket, [ticket_id], ticket_outputs, api_name="review_ticket")
    queue.select(pick_row, [queue], [ticket_id, *ticket_outputs], api_visibility="private")
    chunk.change(pick_chunk, [ticket_id, chunk], [current, proposed, diff], api_visibility="private")
    save.click(save_text, [ticket_id, chunk, proposed], [message, diff], api_name="review_edit")
    keep.click(keep_section, [ticket_id, chunk], [message, current, proposed, diff], api_name="review_keep")
    add_save.click(
        save_addition, [ticket_id, add_doc, add_heading, add_text], [message, details], api_name="review_addition"
    )
    approve.click(
        decide("approve"), [ticket_id, reason, status_filter], [*ticket_outputs, queue], api_name="review_approve"
    )
    reject.click(
        decide("reject"), [ticket_id, reason, status_filter], [*ticket_outputs, queue], api_name="review_reject"
    )


def audit_rows(records: list[dict]) -> list[list]:
    return [
        [r["seq"], r["ts"], r["event"], r["actor"], json.dumps(r["details"], ensure_ascii=False)[:300]]
        for r in reversed(records)
    ]


def build_audit_panel(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """The audit log (reviewers and admins may read it) and a verify button (admins)."""
    gov = service.governance
    with gr.Row():
        show = gr.Button("Show audit log", size="sm")
        verify = gr.Button("Verify chain", size="sm", elem_id="warrant-audit-verify")
    result = gr.Markdown("", elem_id="warrant-audit-result")
    table = gr.Dataframe(headers=_AUDIT_HEADERS, interactive=False, elem_id="warrant-audit-log")

    def show_log(request: gr.Request):
        try:
            return "", audit_rows(gov.audit_records(identity_of(request)))
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update()

    def verify_chain(request: gr.Request):
        try:
            outcome = gov.verify_audit(identity_of(request))
        except (PermissionDenied, ValueError) as exc:
            return str(exc)
        if outcome.ok:
            return f"OK: {outcome.records} records, chain intact."
        return f"BROKEN at line {outcome.broken_line}: {outcome.problem}."

    show.click(show_log, None, [result, table], api_name="audit_log")
    verify.click(verify_chain, None, [result], api_name="audit_verify")


def _discard_upload(upload: str) -> None:
    try:
        uploaded_path(upload).unlink(missing_ok=True)
    except (ValueError, OSError):
        pass


def mine_rows(tickets: list[Ticket]) -> list[list]:
    return [[t.ticket_id, t.status, t.created_at, t.claim, t.decision_reason] for t in tickets]


def build_my_claims(
    service: WarrantService, identity_of: Callable[[gr.Request], Identity], tab: gr.Tab | None = None
) -> gr.Textbox:
    """File a claim (with pasted or uploaded proof) and follow the claims you filed. `tab`: the
    list loads when it is opened. Returns the claim box (the chat's "File a claim" prefills it)."""
    gov = service.governance
    gr.Markdown("### File a policy-change claim\nA reviewer checks it; the answers change only if it is approved.")
    claim = gr.Textbox(
        label="What does the policy now say?",
        placeholder="The late fee is now 60 per day.",
        elem_id="warrant-claim",
    )
    proof_text = gr.Textbox(label="Proof (paste text, optional)", lines=3)
    proof_file = gr.File(
        label="Proof file (optional: .pdf .txt .md .png .jpg, at most 5 MB)",
        type="filepath",
        file_types=[".pdf", ".txt", ".md", ".png", ".jpg", ".jpeg"],
    )
    submit = gr.Button("File claim", elem_id="warrant-file-claim")
    message = gr.Markdown("", elem_id="warrant-claim-status")
    gr.Markdown("### My claims")
    refresh = gr.Button("Refresh", size="sm")
    table = gr.Dataframe(headers=_MINE_HEADERS, interactive=False, elem_id="warrant-my-claims")

    def _mine(identity: Identity) -> list[list]:
        return mine_rows(gov.list_tickets(identity, mine=True))

    def file_claim(text: str, pasted: str, upload: str | None, request: gr.Request):
        try:
            identity = identity_of(request)
            path = uploaded_path(upload) if upload else None
            ticket = gov.file_ticket(
                identity, text, proof_text=pasted or "", proof_file=path, proof_name=path.name if path else ""
            )
            return f"Filed as {ticket.ticket_id} (trust {ticket.trust['score']:.2f}).", _mine(identity), "", "", None
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update(), gr.update(), gr.update(), gr.update()
        finally:
            if upload:  # a kept proof is copied under <home>/proofs; Gradio's copy is not needed
                _discard_upload(upload)

    def show(request: gr.Request):
        try:
            return "", _mine(identity_of(request))
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update()

    submit.click(
        file_claim,
        [claim, proof_text, proof_file],
        [message, table, claim, proof_text, proof_file],
        api_name="file_claim",
    )
    refresh.click(show, None, [message, table], api_name="my_claims")
    if tab is not None:
        tab.select(show, None, [message, table], api_visibility="private")
    return claim
