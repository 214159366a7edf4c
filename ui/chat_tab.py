"""The chat tab: a Chatbot, the sources panel and the support meter of the latest reply.

The conversation shown is always re-derived from the caller's own stored history, keyed by the
identity of the request; the only per-browser state is the current session id, and the memory
service looks that id up inside the caller's own file, so a forged id finds nothing. The Chatbot
is an output only: no turn takes the conversation from the browser, so a client cannot slip a
file (a `FileData` naming a server path) into it.

A line under the message box tells users that unanswered questions are read, without their
names, to improve the policies (the Insights tab's knowledge gaps).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypedDict, TypeVar

import gradio as gr
from gradio.context import Context

from governance.identity import Identity, PermissionDenied
from pipeline.language import glossary
from ui.render import answer_bubble, history_messages, sources_html, streaming_bubble, support_html, user_bubble
from ui.service import WarrantService

_LOG = logging.getLogger("warrant.ui")
_GENERIC_ERROR = "Something went wrong while answering; please try again. The error was logged."
_DONE = object()
STREAM_UPDATE_S = 0.1  # at most ten partial updates a second go to the browser
# What happens to a question: said where it is asked (the Insights tab's knowledge gaps show
# reviewers unanswered questions, without names and with obvious personal data taken out).
PRIVACY_NOTICE = (
    "Questions the policies cannot answer are read, without your name, by the people who keep the "
    "policies, to improve them. Please leave personal details (ID numbers, phone, e-mail) out of your questions."
)
_R = TypeVar("_R")


class _Concurrency(TypedDict):
    """The keyword arguments that put a Gradio event in a concurrency group."""

    concurrency_limit: int
    concurrency_id: str


def _turn_with_stream(run: Callable[[Callable[[str], None]], _R]) -> Iterator[tuple[str, str | _R | Exception]]:
    """Run one chat turn in a worker thread; yield ("partial", text so far) while an LLM writes,
    then ("result", TurnResult) or ("error", exception). Partial texts are coalesced."""
    updates: queue.Queue = queue.Queue()
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["result"] = run(updates.put)
        except Exception as exc:  # handed to the Gradio handler, which decides what the user sees
            outcome["error"] = exc
        finally:
            updates.put(_DONE)

    threading.Thread(target=work, name="chat-turn", daemon=True).start()
    while True:
        item = updates.get()
        if item is _DONE:
            break
        time.sleep(STREAM_UPDATE_S)
        while not updates.empty():
            latest = updates.get_nowait()
            if latest is _DONE:
                updates.put(_DONE)
                break
            item = latest
        yield "partial", item
    yield ("error", outcome["error"]) if "error" in outcome else ("result", outcome["result"])


def build_chat_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """Build the tab inside an open `gr.Tab`; page load restores the caller's latest conversation."""
    session_id = gr.State("")
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Warrant", height=520, sanitize_html=True, elem_id="warrant-chat")
            message = gr.Textbox(
                label="Your question",
                placeholder=f"Ask a question about {glossary.active().subject}",
                lines=1,
                max_lines=4,
                elem_id="warrant-message",
                autofocus=True,
            )
            with gr.Row():
                send = gr.Button("Ask", variant="primary", elem_id="warrant-send")
                new = gr.Button("New conversation", elem_id="warrant-new")
            gr.Markdown(PRIVACY_NOTICE, elem_id="warrant-privacy-note", elem_classes=["warrant-muted"])
        with gr.Column(scale=2):
            support = gr.HTML(support_html(None), elem_id="warrant-support")
            sources = gr.HTML(sources_html(None), elem_id="warrant-sources")

    def ask(text: str, sid: str, request: gr.Request):
        """A generator: an LLM-written answer streams in as it is written (marked as unchecked),
        and the verified answer replaces it at the end; an extractive answer comes in one step.
        The conversation shown is the caller's stored one for `sid`, plus this turn."""
        asked = [{"role": "user", "content": user_bubble(text)}]

        def reply(content: str) -> tuple:
            return [*asked, {"role": "assistant", "content": content}], "", sid, gr.update(), gr.update()

        try:
            identity = identity_of(request)
            asked = [*history_messages(service.conversation(identity, sid)), *asked]
        except PermissionDenied as exc:
            yield reply(user_bubble(str(exc)))
            return
        # ("partial", text so far)*, then ("result", TurnResult) or ("error", exception): told apart by type.
        for _kind, value in _turn_with_stream(lambda on_token: service.chat(identity, text, sid or None, on_token)):
            if isinstance(value, str):
                yield reply(streaming_bubble(value))
            elif isinstance(value, (PermissionDenied, ValueError)):
                yield reply(user_bubble(str(value)))
            elif isinstance(value, Exception):  # never a stack trace in the browser; the server log keeps it
                _LOG.error("chat turn failed", exc_info=value)
                yield reply(_GENERIC_ERROR)
            else:
                answer = value.answer.to_dict()
                yield (
                    [*asked, {"role": "assistant", "content": answer_bubble(answer, value.notes)}],
                    "",
                    value.session_id,
                    support_html(answer),
                    sources_html(answer),
                )

    def start_new(request: gr.Request):
        try:
            sid = service.new_session(identity_of(request))
        except PermissionDenied as exc:
            return [{"role": "assistant", "content": user_bubble(str(exc))}], "", support_html(None), sources_html(None)
        return [], sid, support_html(None), sources_html(None)

    outputs = [chatbot, message, session_id, support, sources]
    # Both triggers share one limit: the Ask button and Enter are the same kind of turn.
    limit: _Concurrency = {"concurrency_limit": service.config.chat_concurrency, "concurrency_id": "chat-turn"}
    send.click(ask, [message, session_id], outputs, api_name="ask", **limit)
    message.submit(ask, [message, session_id], outputs, api_visibility="private", **limit)
    new.click(start_new, None, [chatbot, session_id, support, sources], api_name="new_conversation")

    def restore(request: gr.Request):
        """Page load: the caller's latest conversation, and the panels for its last reply."""
        try:
            sid, turns = service.latest_session(identity_of(request))
        except PermissionDenied as exc:
            return [{"role": "assistant", "content": user_bubble(str(exc))}], "", support_html(None), sources_html(None)
        last = turns[-1].get("answer") if turns else None
        return history_messages(turns), sid, support_html(last), sources_html(last)

    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(restore, None, [chatbot, session_id, support, sources], api_visibility="private")
