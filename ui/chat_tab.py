"""The chat tab: the caller's conversations, the Chatbot, and the evidence of the latest reply.

The conversation shown is always re-derived from the caller's own stored history, keyed by the
identity of the request; the only per-browser state is the current conversation id, and the
memory service looks that id up inside the caller's own file, so a forged id finds nothing. No
turn takes the conversation from the browser: the Chatbot is an output only (no handler's input),
so a client cannot slip a file (a `FileData` naming a server path) into it, and the reply shows
the stored conversation.

What the tab offers, each handler a thin call into `ui.service.WarrantService`:
- a list of the caller's conversations (title from the first question, date) to reopen, "New
  conversation" (which a page reload keeps), and deletion after a confirmation, from the button
  under the list or the Chatbot's own trash icon;
- the message box, "Ask" and "New conversation" take input only once the page load has set the
  conversation the page shows (a turn sent before went to a conversation of its own);
- in the empty chat, a welcome line and example questions drawn from the documents (clickable);
- a clarifying question's options as buttons, and a reply that picks one continues the question;
- thumbs up/down on every reply, with an optional comment, changeable;
- beside the chat, the verdict in plain words (σ behind a toggle) and the sources, each opening
  its document at the passage; "Copy answer with citations"; "File a claim" when the reply
  names a conflict with what the user said (wired to the My claims tab by `ui.app`).

A line under the message box tells users that unanswered questions are read, without their
names, to improve the policies (the Insights tab's knowledge gaps).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

import gradio as gr
from gradio.context import Context

from governance.identity import Identity, PermissionDenied
from pipeline.language import glossary
from ui.render import (
    answer_as_text,
    answer_bubble,
    clarify_options,
    feedback_values,
    history_messages,
    sources_html,
    streaming_bubble,
    support_html,
    user_bubble,
)
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
_VOTES = {True: "up", False: "down"}
# Asked in the browser before anything is deleted; the handler deletes only when it says yes.
_CONFIRM_DELETE = (
    "(sid, _ok) => [sid, window.confirm('Delete this conversation and its votes? This cannot be undone.')]"
)


# The message box's autofocus is lost while it is disabled (until the page load); given back here.
_FOCUS_MESSAGE = "() => { document.querySelector('#warrant-message textarea')?.focus(); }"

# The clipboard API needs a secure context (https or localhost); elsewhere the older copy command.
_COPY = """(text) => {
  if (navigator.clipboard && window.isSecureContext) { return navigator.clipboard.writeText(text); }
  const area = document.createElement('textarea');
  area.value = text; document.body.appendChild(area); area.select();
  document.execCommand('copy'); area.remove();
}"""


class _Concurrency(TypedDict):
    """The keyword arguments that put a Gradio event in a concurrency group."""

    concurrency_limit: int
    concurrency_id: str


@dataclass
class ChatTab:
    """What `ui.app` wires across tabs: the current conversation and the "File a claim" button."""

    session_id: gr.State
    file_claim: gr.Button


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


def welcome_line(words: glossary.Glossary | None = None) -> str:
    """The empty chat's welcome (Markdown): what to ask about, and what Warrant promises."""
    subject = (words or glossary.active()).subject
    return (
        f"**Welcome!** Ask a question about {subject}. Every answer cites the passage it comes from; "
        "when the documents do not say, Warrant says so instead of guessing. Try one of these:"
    )


def _conversation_choices(conversations: list[dict]) -> list[tuple[str, str]]:
    return [(f"{c['title']} · {c['started'][:10]}", c["session_id"]) for c in conversations]


def build_chat_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> ChatTab:
    """Build the tab inside an open `gr.Tab`; page load restores the caller's current conversation."""
    session_id = gr.State("")
    feedback_turn = gr.State(-1)
    feedback_vote = gr.State("")
    with gr.Row(equal_height=False, elem_id="warrant-chat-row"):
        with gr.Column(scale=1, min_width=200, elem_id="warrant-conversations-col"):
            # Off until the page load has set which conversation this page shows (see `restore`).
            new = gr.Button("New conversation", interactive=False, elem_id="warrant-new")
            conversations = gr.Radio(
                choices=[],
                value=None,
                label="Your conversations",
                info="Click one to reopen it.",
                elem_id="warrant-conversations",
            )
            delete = gr.Button("Delete this conversation", size="sm", variant="stop", elem_id="warrant-delete")
            confirmed = gr.Checkbox(value=False, visible=False)
            status = gr.Markdown("", elem_id="warrant-chat-status")
        with gr.Column(scale=4, min_width=320):
            chatbot = gr.Chatbot(
                label="Warrant",
                height=520,
                sanitize_html=True,
                elem_id="warrant-chat",
                placeholder=welcome_line(),
                feedback_options=("Like", "Dislike"),
                buttons=[],  # no share (it posts to Hugging Face); "Copy answer with citations" copies
            )
            with gr.Row(visible=False, elem_id="warrant-feedback-row") as feedback_row:
                comment = gr.Textbox(
                    label="Thank you. Anything to add? (optional)",
                    placeholder="What was wrong or missing?",
                    max_length=1000,
                    scale=4,
                    elem_id="warrant-feedback-comment",
                )
                send_comment = gr.Button("Send comment", scale=1, elem_id="warrant-feedback-send")
            message = gr.Textbox(
                label="Your question",
                placeholder=f"Ask a question about {glossary.active().subject}",
                lines=1,
                max_lines=4,
                elem_id="warrant-message",
                autofocus=True,
                interactive=False,  # until the page load has set the conversation (see `restore`)
            )
            with gr.Row():
                send = gr.Button("Ask", variant="primary", interactive=False, elem_id="warrant-send")
                file_claim = gr.Button("File a claim", visible=False, elem_id="warrant-file-claim-from-chat")
            gr.Markdown(PRIVACY_NOTICE, elem_id="warrant-privacy-note", elem_classes=["warrant-muted"])
        with gr.Column(scale=2, min_width=260):
            support = gr.HTML(support_html(None), elem_id="warrant-support")
            sources = gr.HTML(sources_html(None), elem_id="warrant-sources")
            copy = gr.Button("Copy answer with citations", size="sm", visible=False, elem_id="warrant-copy")
            copy_text = gr.Textbox(visible=False)

    side = [conversations, file_claim, copy, copy_text, feedback_row]

    def side_view(identity: Identity, sid: str, turns: list[dict]) -> dict[Any, Any]:
        """The parts around the Chatbot, for the conversation `sid` whose turns are `turns`."""
        last = (turns[-1].get("answer") or {}) if turns else {}
        claim = last.get("policy_claim") or {}
        text = answer_as_text(last) if last.get("decision") == "answer" else ""
        listed = service.conversations(identity)
        return {
            conversations: gr.Radio(
                choices=_conversation_choices(listed),
                value=sid if any(c["session_id"] == sid for c in listed) else None,
            ),
            file_claim: gr.Button(visible=bool(claim.get("offer_ticket")) and identity.can("file_claim")),
            copy: gr.Button(visible=bool(text)),
            copy_text: text,
            feedback_row: gr.Row(visible=False),
        }

    def full_view(identity: Identity, sid: str, turns: list[dict], note: str = "") -> dict[Any, Any]:
        last = (turns[-1].get("answer") or {}) if turns else None
        messages: list[Any] = history_messages(turns)
        return {
            chatbot: gr.Chatbot(
                value=messages,
                feedback_value=feedback_values(turns),
                examples=[{"text": q} for q in service.example_questions()] if not turns else None,
            ),
            session_id: sid,
            support: support_html(last),
            sources: sources_html(last),
            status: note,
            **side_view(identity, sid, turns),
        }

    def refused(exc: Exception) -> dict[Any, Any]:
        return {chatbot: [{"role": "assistant", "content": user_bubble(str(exc))}], status: ""}

    every = [chatbot, session_id, support, sources, status, *side]

    # -- asking ------------------------------------------------------------------------------------
    def ask(text: str, sid: str, request: gr.Request):
        """A generator: an LLM-written answer streams in as it is written (marked as unchecked),
        and the verified answer replaces it at the end; an extractive answer comes in one step.
        The conversation shown is the caller's stored one for `sid`, plus this turn."""
        asked = [{"role": "user", "content": user_bubble(text)}]

        def reply(content: str) -> tuple:
            return [*asked, {"role": "assistant", "content": content}], "", sid, gr.update(), gr.update()

        try:
            identity = identity_of(request)
            stored = service.conversation(identity, sid)
            asked = [*history_messages(stored), *asked]
        except PermissionDenied as exc:
            yield reply(user_bubble(str(exc)))
            return
        for _asked in asked[:-1]:
            _asked.pop("options", None)  # an earlier clarification's buttons go once it is answered
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
                turns = service.conversation(identity, value.session_id)
                messages: list[Any] = history_messages(turns)
                if len(turns) <= len(stored):  # not a turn that is kept ("please type a question")
                    messages = [*asked, {"role": "assistant", "content": answer_bubble(answer)}]
                # This turn's one-line confirmations ("Noted: …") are shown with it.
                messages[-1]["content"] = answer_bubble(answer, value.notes)
                if clarify_options(answer):
                    messages[-1]["options"] = clarify_options(answer)
                yield (
                    messages,  # the plain messages: the `ask` API returns them as they are
                    "",
                    value.session_id,
                    support_html(answer),
                    sources_html(answer),
                )

    def after_turn(sid: str, request: gr.Request):
        try:
            identity = identity_of(request)
            return side_view(identity, sid, service.conversation(identity, sid))
        except PermissionDenied:
            return {}

    def pick_option(sid: str, event: gr.SelectData, request: gr.Request):
        """A click on a clarifying question's option: sent as the reply that picks it."""
        yield from ask(str(event.value or ""), sid, request)

    def pick_example(sid: str, event: gr.SelectData, request: gr.Request):
        value = event.value if isinstance(event.value, dict) else {"text": str(event.value or "")}
        yield from ask(str(value.get("text") or ""), sid, request)

    outputs = [chatbot, message, session_id, support, sources]
    # Every way of sending a turn shares one limit: they are the same kind of work.
    limit: _Concurrency = {"concurrency_limit": service.config.chat_concurrency, "concurrency_id": "chat-turn"}
    send.click(ask, [message, session_id], outputs, api_name="ask", **limit).then(
        after_turn, [session_id], side, api_visibility="private"
    )
    message.submit(ask, [message, session_id], outputs, api_visibility="private", **limit).then(
        after_turn, [session_id], side, api_visibility="private"
    )
    chatbot.option_select(pick_option, [session_id], outputs, api_visibility="private", **limit).then(
        after_turn, [session_id], side, api_visibility="private"
    )
    chatbot.example_select(pick_example, [session_id], outputs, api_visibility="private", **limit).then(
        after_turn, [session_id], side, api_visibility="private"
    )

    # -- conversations -------------------------------------------------------------------------------
    def start_new(request: gr.Request):
        try:
            identity = identity_of(request)
            sid = service.new_session(identity)
            return full_view(identity, sid, [])
        except PermissionDenied as exc:
            return refused(exc)

    def open_conversation(picked: str, request: gr.Request):
        try:
            identity = identity_of(request)
            turns = service.open_conversation(identity, picked or "")
            return full_view(identity, picked, turns)
        except (PermissionDenied, ValueError) as exc:
            return {status: str(exc)}

    def delete_conversation(sid: str, ok: bool, request: gr.Request):
        """Delete the shown conversation when the browser's confirmation said yes; otherwise
        show it again (the Chatbot's trash icon empties the display before asking)."""
        try:
            identity = identity_of(request)
            turns = service.conversation(identity, sid)
            if not ok or not turns:
                return full_view(identity, sid, turns, "" if ok or not turns else "Nothing was deleted.")
            note = service.delete_conversation(identity, sid)
            return full_view(identity, service.new_session(identity), [], note)
        except (PermissionDenied, ValueError) as exc:
            return {status: str(exc)}

    new.click(start_new, None, every, api_name="new_conversation")
    conversations.input(open_conversation, [conversations], every, api_name="open_conversation")
    delete.click(
        delete_conversation, [session_id, confirmed], every, js=_CONFIRM_DELETE, api_name="delete_conversation"
    )
    chatbot.clear(delete_conversation, [session_id, confirmed], every, js=_CONFIRM_DELETE, api_visibility="private")

    # -- feedback --------------------------------------------------------------------------------------
    def vote(sid: str, event: gr.LikeData, request: gr.Request):
        """Thumbs up/down (or taking it back) on reply number event.index // 2 of the conversation."""
        index = event.index[0] if isinstance(event.index, (list, tuple)) else event.index
        choice = _VOTES.get(event.liked, "") if isinstance(event.liked, bool) else ""
        try:
            note = service.rate_answer(identity_of(request), sid, int(index) // 2, choice)
        except (PermissionDenied, ValueError) as exc:
            return {status: str(exc)}
        return {
            status: note,
            feedback_turn: int(index) // 2,
            feedback_vote: choice,
            feedback_row: gr.Row(visible=bool(choice)),
            comment: "",
        }

    def send_feedback_comment(sid: str, turn: int, choice: str, text: str, request: gr.Request):
        try:
            note = service.rate_answer(identity_of(request), sid, int(turn), choice, text or "")
        except (PermissionDenied, ValueError) as exc:
            return {status: str(exc)}
        return {status: note, feedback_row: gr.Row(visible=False), comment: ""}

    chatbot.like(
        vote, [session_id], [status, feedback_turn, feedback_vote, feedback_row, comment], api_visibility="private"
    )
    feedback_outputs = [status, feedback_row, comment]
    send_comment.click(
        send_feedback_comment,
        [session_id, feedback_turn, feedback_vote, comment],
        feedback_outputs,
        api_name="feedback_comment",
    )
    comment.submit(
        send_feedback_comment,
        [session_id, feedback_turn, feedback_vote, comment],
        feedback_outputs,
        api_visibility="private",
    )
    copy.click(None, [copy_text], None, js=_COPY)

    def restore(request: gr.Request):
        """Page load: the caller's current conversation, and the panels for its last reply."""
        try:
            identity = identity_of(request)
            sid, turns = service.current_conversation(identity)
            return full_view(identity, sid, turns)
        except PermissionDenied as exc:
            return refused(exc)

    def ready():
        """After the page load: the message box, "Ask" and "New conversation" take input."""
        return gr.Textbox(interactive=True), gr.Button(interactive=True), gr.Button(interactive=True)

    # A turn sent before the load's `restore` had set `session_id` went to a conversation of its
    # own, and `restore`'s late output then put the page on another one, so the next reply (the
    # pick of a clarifying option) missed the question it answered. So nothing that chooses the
    # conversation takes input until the load has finished (`.then`: whether or not it failed).
    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(restore, None, every, api_visibility="private").then(
            ready, None, [message, send, new], api_visibility="private", queue=False
        ).then(None, None, None, js=_FOCUS_MESSAGE)
    return ChatTab(session_id=session_id, file_claim=file_claim)
