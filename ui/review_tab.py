"""The review tab (queue, ticket, side-by-side replacement, decide), the audit panel, "My claims".

Handlers are thin: each takes the identity from the request and calls `service.governance`, which
checks the role itself; a hidden tab is presentation, not security. Errors the service raises for
people (PermissionDenied, ValueError) become a plain message, never a stack trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import gradio as gr

from governance.identity import Identity, PermissionDenied
from governance.tickets import STATUSES, Ticket
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
    if ticket.contradictions:
        lines.append("**Contradictions** (claim ↔ current text):")
        lines += [
            f"- {esc(c['kind'])} in {esc(c['section'])}: “{esc(c['claim_span']['text'])}” ↔ "
            f"“{esc(c['chunk_span']['text'][:300])}”"
            for c in ticket.contradictions
        ]
    else:
        lines.append("**Contradictions:** none found against the active chunks")
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
    chunk = gr.Dropdown(choices=[], label="Affected chunk", interactive=True)
    with gr.Row():
        current = gr.Textbox(label="Current text (active)", lines=8, interactive=False)
        proposed = gr.Textbox(label="Proposed replacement (editable)", lines=8, elem_id="warrant-replacement")
    save = gr.Button("Save replacement text", size="sm")
    reason = gr.Textbox(label="Reason for the decision (required)", elem_id="warrant-reason")
    gr.Markdown(
        "A claim is decided by a reviewer or admin other than the person who filed it.", elem_classes=["warrant-muted"]
    )
    with gr.Row():
        approve = gr.Button("Approve", variant="primary", elem_id="warrant-approve")
        reject = gr.Button("Reject", variant="stop", elem_id="warrant-reject")

    def _queue(identity: Identity, status: str) -> list[list]:
        return queue_rows(gov.list_tickets(identity, None if status == _ANY else status))

    def _chunk_texts(ticket: Ticket, chunk_id: str | None) -> tuple[str, str]:
        current_text = next((a["text"] for a in ticket.affected if a["chunk_id"] == chunk_id), "")
        return current_text, ticket.replacements.get(chunk_id or "", "")

    def _show(identity: Identity, tid: str, note: str = ""):
        ticket = gov.get_ticket(identity, tid)
        choices = _affected_choices(ticket)
        first = choices[0][1] if choices else None
        cur, new = _chunk_texts(ticket, first)
        return note, ticket_markdown(ticket), gr.update(choices=choices, value=first), cur, new

    no_change = (gr.update(), gr.update(), gr.update(), gr.update())

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
            return _chunk_texts(gov.get_ticket(identity_of(request), tid), chunk_id)
        except (PermissionDenied, ValueError):
            return gr.update(), gr.update()

    def save_text(tid: str, chunk_id: str, text: str, request: gr.Request):
        try:
            gov.edit_replacement(identity_of(request), tid, chunk_id, text)
            return "Replacement text saved."
        except (PermissionDenied, ValueError) as exc:
            return str(exc)

    def decide(verdict: str):
        def handler(tid: str, why: str, status: str, request: gr.Request):
            try:
                identity = identity_of(request)
                ticket = gov.decide(identity, tid, verdict, why)
                note = {
                    "approved": "Approved: the new version is live and the old one deprecated.",
                    "rejected": "Rejected: the corpus is unchanged.",
                    "failed": "The change failed its post-update check and was rolled back.",
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

    ticket_outputs = [message, details, chunk, current, proposed]
    refresh.click(show_queue, [status_filter], [message, queue], api_name="review_queue")
    if tab is not None:
        tab.select(open_tab, [status_filter], [message, queue, tab], api_visibility="private")
    status_filter.change(show_queue, [status_filter], [message, queue], api_visibility="private")
    load.click(open_ticket, [ticket_id], ticket_outputs, api_name="review_ticket")
    queue.select(pick_row, [queue], [ticket_id, *ticket_outputs], api_visibility="private")
    chunk.change(pick_chunk, [ticket_id, chunk], [current, proposed], api_visibility="private")
    save.click(save_text, [ticket_id, chunk, proposed], [message], api_name="review_edit")
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
