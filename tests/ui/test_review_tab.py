"""The review tab's handlers call the governance service and show refusals as plain messages."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import gradio as gr
import pytest

from governance.identity import Identity, PermissionDenied
from pipeline.ground.config import load_config
from ui.review_tab import audit_rows, build_audit_panel, build_my_claims, build_review_tab, ticket_markdown

USERS = {
    "stu": Identity("local:stu", "stu", "user"),
    "rev": Identity("local:rev", "rev", "reviewer"),
    "adm": Identity("local:adm", "adm", "admin"),
}
CLAIM = "The revaluation fee is now Rs. 800 per course."


def identity_of(request) -> Identity:
    identity = USERS.get(getattr(request, "username", None) or "")
    if identity is None:
        raise PermissionDenied("Please log in first.")
    return identity


@pytest.fixture()
def app(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    service = WarrantService(config, embed_model=embed_model)
    with gr.Blocks() as blocks:
        with gr.Tab("Review"):
            build_review_tab(service, identity_of)
        with gr.Tab("My claims"):
            build_my_claims(service, identity_of)
        build_audit_panel(service, identity_of)
    handlers = {f.api_name: f.fn for f in blocks.fns.values() if f.api_name}
    return service, handlers


def _as(username: str):
    return SimpleNamespace(username=username)


def test_student_files_a_claim_but_cannot_approve_it(app):
    service, fn = app
    note, rows, *_ = fn["file_claim"](CLAIM, "", None, _as("stu"))
    assert note.startswith("Filed as T-") and rows[0][1] == "open"
    ticket_id = rows[0][0]
    refused = fn["review_approve"](ticket_id, "I say so", "open", _as("stu"))
    assert "does not allow" in refused[0]
    assert service.governance.get_ticket(USERS["rev"], ticket_id).status == "open"
    service.governance.file_ticket(USERS["rev"], CLAIM)
    _, queue = fn["review_queue"]("all", _as("stu"))  # a user's queue holds only their own claims
    assert [row[3] for row in queue] == ["stu"]
    assert "does not allow" in fn["audit_verify"](_as("rev"))


def test_reviewer_approves_and_reporter_sees_the_reason(app):
    service, fn = app
    ticket = service.governance.file_ticket(USERS["stu"], CLAIM)
    _, queue = fn["review_queue"]("open", _as("rev"))
    assert queue[0][0] == ticket.ticket_id
    shown = fn["review_ticket"](ticket.ticket_id, _as("rev"))
    assert "Rs. 500" in shown[1] and "Rs. 800" in shown[4]["value"]
    assert "reason" in fn["review_approve"](ticket.ticket_id, "", "open", _as("rev"))[0]
    done = fn["review_approve"](ticket.ticket_id, "circular checked", "open", _as("rev"))
    assert done[0].startswith("Approved")
    _, mine = fn["my_claims"](_as("stu"))
    assert mine[0][1:2] == ["approved"] and mine[0][4] == "circular checked"
    assert fn["audit_verify"](_as("adm")).startswith("OK:")
    assert fn["audit_log"](_as("rev"))[1][0][2] == "ticket_implemented"


def test_bad_upload_is_refused_with_a_clear_message(app, tmp_path, monkeypatch):
    _, fn = app
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "uploads"))
    fake = tmp_path / "uploads" / "abc123" / "circular.pdf"
    fake.parent.mkdir(parents=True)
    fake.write_bytes(b"MZ\x90\x00 not a pdf")
    note = fn["file_claim"](CLAIM, "", str(fake), _as("stu"))[0]
    assert "not a .pdf file" in note
    assert not fake.exists()  # the upload is not kept in Gradio's folder


def test_a_file_outside_the_upload_folder_is_refused(app, tmp_path, monkeypatch):
    """Issue 15, finding 1: a handler never reads a server path a client names."""
    service, fn = app
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "uploads"))
    secret = tmp_path / "secret.txt"
    secret.write_text("the admin password is hunter2", encoding="utf-8")
    note = fn["file_claim"](CLAIM, "", str(secret), _as("stu"))[0]
    assert "not uploaded here" in note and secret.exists()
    assert all("hunter2" not in (t.proof_file or {}).get("text", "") for t in service.governance.tickets.list())


def test_a_markdown_image_in_a_claim_is_shown_as_text(app):
    """Issue 15, finding 8: the reviewer's browser fetches nothing a claimant wrote."""
    from markdown_it import MarkdownIt

    service, _ = app
    ticket = service.governance.file_ticket(
        USERS["stu"],
        CLAIM + " ![x](https://evil.example/pixel.png)",
        proof_text="[click](https://evil.example) <img src=https://evil.example/a>",
    )
    rendered = MarkdownIt().render(ticket_markdown(ticket))
    assert "<img" not in rendered and "<a " not in rendered and "evil.example" in rendered


def test_ticket_markdown_escapes_user_text(app):
    service, _ = app
    ticket = service.governance.file_ticket(USERS["stu"], CLAIM, proof_text="<script>alert(1)</script>")
    assert "<script>" not in ticket_markdown(ticket)
    assert audit_rows(service.audit.records())[0][2] == "contradiction_analysis"


def _rendered_text(markdown: str) -> str:
    """What a reader sees of Markdown: rendered, tags dropped, entities read once (as a browser does)."""
    import html
    import re

    from markdown_it import MarkdownIt

    return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt().render(markdown)))


def test_after_approval_the_new_text_is_current_and_the_decision_buttons_are_disabled(app):
    """Issue 31 item 8: before, the tab kept showing the old text as current with Approve/Reject live."""
    service, fn = app
    ticket = service.governance.file_ticket(USERS["stu"], CLAIM)
    shown = fn["review_ticket"](ticket.ticket_id, _as("rev"))
    approve, reject = shown[6], shown[7]
    assert approve["interactive"] is True and reject["interactive"] is True
    done = fn["review_approve"](ticket.ticket_id, "circular checked", "open", _as("rev"))
    message, _, _, current, previous, diff, approve, reject, save, keep, *_rest = done[:-1]
    assert message.startswith("Approved")
    assert "Rs. 800" in current["value"] and "Rs. 500" not in current["value"] and "v1.1" in current["label"]
    assert "Rs. 500" in previous["value"] and previous["interactive"] is False
    assert "<del class='warrant-del'>500</del>" in diff and "<ins class='warrant-ins'>800</ins>" in diff
    assert approve["interactive"] is False and reject["interactive"] is False
    assert save["interactive"] is False and keep["interactive"] is False
    # opened again later: the same
    again = fn["review_ticket"](ticket.ticket_id, _as("rev"))
    assert "Rs. 800" in again[3]["value"] and again[6]["interactive"] is False


def test_current_and_proposed_text_are_shown_as_a_diff(app):
    service, fn = app
    ticket = service.governance.file_ticket(USERS["stu"], CLAIM)
    (chunk_id,) = ticket.replacements
    shown = fn["review_ticket"](ticket.ticket_id, _as("rev"))
    assert "<del class='warrant-del'>500</del><ins class='warrant-ins'>800</ins>" in shown[5]
    note, diff = fn["review_edit"](ticket.ticket_id, chunk_id, "The fee is <b>Rs. 800</b> per course.", _as("rev"))
    assert note == "Replacement text saved." and "<b>" not in diff and "&lt;b&gt;" in diff


def test_quotes_and_apostrophes_show_as_typed_and_no_link_comes_of_them(app):
    service, _ = app
    claim = 'The student\'s revaluation fee is now Rs. 800 per course, "per the circular".'
    ticket = service.governance.file_ticket(
        USERS["stu"], claim, proof_text='It\'s in "Circular 3" [click](https://evil.example) <img src=x>'
    )
    seen = _rendered_text(ticket_markdown(ticket))
    assert "student's revaluation fee" in seen and '"per the circular"' in seen and 'It\'s in "Circular 3"' in seen
    assert "&#x27;" not in seen and "&quot;" not in seen
    from markdown_it import MarkdownIt

    rendered = MarkdownIt().render(ticket_markdown(ticket))
    assert "<img" not in rendered and "<a " not in rendered


def test_a_claim_that_adds_a_rule_is_approved_as_a_new_section_from_the_tab(app):
    service, fn = app
    ticket = service.governance.file_ticket(USERS["stu"], "Library books can now be renewed online.")
    shown = fn["review_ticket"](ticket.ticket_id, _as("rev"))
    assert ("Library Borrowing Policy", "library") in shown[10]["choices"]
    assert shown[12]["value"] == ticket.statement  # the claim is the draft of the new section's text
    note, details = fn["review_addition"](
        ticket.ticket_id,
        "library",
        "3. Online Renewals",
        "Borrowed books can be renewed online through the library portal for one more loan period.",
        _as("rev"),
    )
    assert note.startswith("New section saved") and "library § 3. Online Renewals" in details
    done = fn["review_approve"](ticket.ticket_id, "portal live", "open", _as("rev"))
    assert done[0].startswith("Approved"), done[0]
    assert "renewed online" in done[3]["value"] and "new section" in done[3]["label"]
