"""The "My memory" tab: handlers act only for the request's identity and show refusals plainly."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from governance.identity import Identity, PermissionDenied
from memory.service import MemoryService
from ui.memory_tab import build_memory_tab

USERS = {"ada": Identity("local:ada", "ada"), "grace": Identity("local:grace", "grace")}


def identity_of(request: gr.Request) -> Identity:
    if request.username not in USERS:
        raise PermissionDenied("Please log in first.")
    return USERS[request.username]


@pytest.fixture()
def tab(tmp_path):
    config = SimpleNamespace(query_log_path=tmp_path / "query_log.jsonl")
    memory = MemoryService(tmp_path / "users", config.query_log_path)
    service = SimpleNamespace(
        memory=memory,
        config=config,
        clear_history=memory.clear_history,
        forget_me=lambda identity: {**memory.forget_me(identity), "votes_removed": 0},  # no votes in this test
    )
    with gr.Blocks() as demo:
        with gr.Tab("My memory"):
            build_memory_tab(service, identity_of)
    handlers = {fn.fn.__name__: fn.fn for fn in demo.fns.values()}
    return service, handlers


def _as(username: str) -> gr.Request:
    return gr.Request(username=username)


def test_tab_handlers_edit_only_the_callers_memory(tab):
    service, h = tab
    message, *_ = h["on_save_fact"]("advisor", "Dr. Rao", _as("ada"))
    assert "Dr. Rao" in message
    h["on_save_prefs"]("brief", "bullets", False, "B.Tech", "3", "CSE", _as("ada"))
    _, length, fmt, quotes, programme, _year, _dept, facts, _keys, _counts = h["on_load"](_as("grace"))
    assert (length, fmt, quotes, programme) == ("standard", "prose", True, "")
    assert "Dr. Rao" not in str(facts)
    _, length, fmt, quotes, programme, *_rest = h["on_load"](_as("ada"))
    assert (length, fmt, quotes, programme) == ("brief", "bullets", False, "B.Tech")
    assert h["on_pick_fact"]("advisor", _as("ada")) == "Dr. Rao"
    h["on_delete_fact"]("advisor", _as("ada"))
    assert service.memory.view(USERS["ada"])["facts"] == []


def test_forget_me_needs_confirmation_and_unauthenticated_calls_get_a_plain_message(tab):
    service, h = tab
    h["on_save_fact"]("advisor", "Dr. Rao", _as("ada"))
    message, *_ = h["on_forget"](False, _as("ada"))
    assert "confirm" in message and service.memory.view(USERS["ada"])["facts"]
    message, *_ = h["on_forget"](True, _as("ada"))
    assert message.startswith("Done.") and service.memory.view(USERS["ada"])["facts"] == []
    message, *_ = h["on_load"](_as("mallory"))
    assert message == "Please log in first."
    message, *_ = h["on_save_prefs"]("enormous", "prose", True, "", "", "", _as("ada"))
    assert "length must be one of" in message
