"""The Documents tab's handlers (issue 31 items 4, 6, 7): retiring asks for confirmation and a
reason; an upload with the title of an active document is offered as its replacement; the check
step lists what a file contradicts and the ticked contradictions become tickets on adding."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import gradio as gr
import pytest

from governance.identity import Identity, PermissionDenied
from pipeline.ground.config import load_config
from tests.pipeline.tiny_corpora import REMOTE_WORK, STAFF_HANDBOOK_REMOTE_WORK
from ui.documents_tab import build_documents_tab

USERS = {"adm": Identity("local:adm", "adm", "admin"), "rev": Identity("local:rev", "rev", "reviewer")}


def identity_of(request) -> Identity:
    identity = USERS.get(getattr(request, "username", None) or "")
    if identity is None:
        raise PermissionDenied("Please log in first.")
    return identity


def _as(username: str):
    return SimpleNamespace(username=username)


@pytest.fixture()
def app(tmp_path, tiny_docs_in_rupees, embed_model, monkeypatch):
    from ui.service import WarrantService

    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "uploads"))
    (tiny_docs_in_rupees / "remote-work.md").write_text(REMOTE_WORK, encoding="utf-8")
    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    service = WarrantService(config, embed_model=embed_model)
    with gr.Blocks() as blocks:
        build_documents_tab(service, identity_of)
    handlers = {f.api_name: f.fn for f in blocks.fns.values() if f.api_name}
    private = {f.fn.__name__: f.fn for f in blocks.fns.values()}  # by function name, events without an API too
    return service, handlers, private


def _upload(tmp_path, name: str, text: str) -> str:
    path = tmp_path / "uploads" / "abc" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _status(service, doc_id: str) -> str:
    return next(e.status for e in service.governance.documents.entries(USERS["adm"]) if e.doc_id == doc_id)


def test_retire_asks_for_confirmation_and_a_reason_first(app):
    service, fn, private = app
    message, question, box = private["ask_retire"]("remote-work", _as("adm"))
    assert message == "" and box["visible"] is True
    assert 'Retire "Remote Work Policy"' in question and "kept" in question and "reason" in question
    assert _status(service, "remote-work") == "active"  # the first click changes nothing
    refused, _, box = fn["documents_retire"]("remote-work", "", _as("adm"))
    assert "Nothing changed" in refused and "reason" in refused and box["visible"] is True
    assert _status(service, "remote-work") == "active"
    done, _, box = fn["documents_retire"]("remote-work", "superseded by the staff handbook", _as("adm"))
    assert done.startswith("Retired remote-work") and box["visible"] is False
    assert service.audit.records()[-1]["details"]["reason"] == "superseded by the staff handbook"


def test_an_upload_with_an_active_documents_title_is_offered_as_its_replacement(app, tmp_path):
    service, fn, private = app
    renamed = REMOTE_WORK.replace("doc_id: remote-work\n", "").replace("up to 2 days", "up to 2 days (two)")
    upload = _upload(tmp_path, "remote-work-2027.md", renamed)
    _, offer, *_, _choices, button, offered, _critique, _findings = fn["documents_check"](
        [upload], "", "", "", _as("adm")
    )
    assert '"Remote Work Policy" is already in the library' in offer and "Replace remote-work" in offer
    assert button["visible"] is True and offered == "remote-work"
    message = fn["documents_add"]([upload], "", "", "", "", [], _as("adm"))[0]
    assert message.startswith("**Nothing was added:**")
    status = private["on_offer_replace"]([upload], offered, "", [], _as("adm"))[0]
    assert status.startswith("Replaced remote-work v1.0 by v1.1")
    titles = [e.title for e in service.governance.documents.entries(USERS["adm"])]
    assert titles.count("Remote Work Policy") == 1


def test_the_check_lists_contradictions_and_ticked_ones_become_tickets(app, tmp_path):
    service, fn, _ = app
    upload = _upload(tmp_path, "staff-handbook.md", STAFF_HANDBOOK_REMOTE_WORK)
    preview, status, *_, choices, button, _, critique, _ = fn["documents_check"]([upload], "", "", "", _as("adm"))
    assert status == "" and button["visible"] is False
    assert "contradicts the library in 1 place" in preview
    ((label, key),) = choices["choices"]
    assert choices["value"] == [key] and "up to 3 days" in label and "up to 2 days" in label
    assert "staff-handbook.md" in critique and "sentences flagged" in critique  # the critic's panel too
    assert service.governance.list_tickets(USERS["rev"], "open") == []  # nothing filed by checking
    message = fn["documents_add"]([upload], "", "", "", "hr", [key], _as("adm"))[0]
    assert "Added staff-handbook" in message and "1 conflict ticket(s) filed for reviewers" in message
    assert {e.doc_id: e.audience for e in service.governance.documents.entries(USERS["adm"])}["staff-handbook"] == "hr"
    (ticket,) = service.governance.list_tickets(USERS["rev"], "open")
    assert ticket.kind == "conflict" and "disagree" in ticket.claim
