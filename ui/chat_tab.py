"""The chat tab: a Chatbot, the sources panel and the support meter of the latest reply.

The conversation shown is always re-derived from the caller's own stored history, keyed by the
identity of the request; the only per-browser state is the current session id, and the memory
service looks that id up inside the caller's own file, so a forged id finds nothing.
"""

from __future__ import annotations

import logging
from typing import Callable

import gradio as gr
from gradio.context import Context

from governance.identity import Identity, PermissionDenied
from ui.render import answer_bubble, history_messages, sources_html, support_html, user_bubble
from ui.service import WarrantService

_LOG = logging.getLogger("warrant.ui")
_GENERIC_ERROR = "Something went wrong while answering; please try again. The error was logged."


def build_chat_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """Build the tab inside an open `gr.Tab`; page load restores the caller's latest conversation."""
    session_id = gr.State("")
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Warrant", height=520, sanitize_html=True, elem_id="warrant-chat")
            message = gr.Textbox(label="Your question", placeholder="e.g. What is the revaluation fee?",
                                 lines=1, max_lines=4, elem_id="warrant-message", autofocus=True)
            with gr.Row():
                send = gr.Button("Ask", variant="primary", elem_id="warrant-send")
                new = gr.Button("New conversation", elem_id="warrant-new")
        with gr.Column(scale=2):
            support = gr.HTML(support_html(None), elem_id="warrant-support")
            sources = gr.HTML(sources_html(None), elem_id="warrant-sources")

    def ask(text: str, history: list, sid: str, request: gr.Request):
        history = list(history or [])
        try:
            identity = identity_of(request)
            result = service.chat(identity, text, sid or None)
        except (PermissionDenied, ValueError) as exc:
            history += [{"role": "user", "content": user_bubble(text)},
                        {"role": "assistant", "content": user_bubble(str(exc))}]
            return history, "", sid, gr.update(), gr.update()
        except Exception:  # never a stack trace in the browser; the server log keeps it
            _LOG.exception("chat turn failed")
            history += [{"role": "user", "content": user_bubble(text)},
                        {"role": "assistant", "content": _GENERIC_ERROR}]
            return history, "", sid, gr.update(), gr.update()
        answer = result.answer.to_dict()
        history += [{"role": "user", "content": user_bubble(text)},
                    {"role": "assistant", "content": answer_bubble(answer, result.notes)}]
        return history, "", result.session_id, support_html(answer), sources_html(answer)

    def start_new(request: gr.Request):
        try:
            sid = service.new_session(identity_of(request))
        except PermissionDenied as exc:
            return [{"role": "assistant", "content": user_bubble(str(exc))}], "", support_html(None), sources_html(None)
        return [], sid, support_html(None), sources_html(None)

    outputs = [chatbot, message, session_id, support, sources]
    # Both triggers share one limit: the Ask button and Enter are the same kind of turn.
    limit = {"concurrency_limit": service.config.chat_concurrency, "concurrency_id": "chat-turn"}
    send.click(ask, [message, chatbot, session_id], outputs, api_name="ask", **limit)
    message.submit(ask, [message, chatbot, session_id], outputs, api_name=False, **limit)
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
        Context.root_block.load(restore, None, [chatbot, session_id, support, sources], api_name=False)
