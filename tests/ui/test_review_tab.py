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
    assert "Rs. 500" in shown[1] and "Rs. 800" in shown[4]
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
