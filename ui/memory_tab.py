"""The "My memory" tab: see, edit and delete what Warrant holds about you; clear history; forget me.

Handlers are thin: each takes the identity from the authenticated request and calls
`service.memory`, which checks the role and reaches only that identity's file. Nothing is kept in
module globals or a shared `gr.State`, so one user's memory can never be rendered for another.
"""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr
from gradio.context import Context

from governance.identity import Identity, PermissionDenied
from ui.service import WarrantService

_FACT_HEADERS = ["what", "value", "learned on", "from what you said"]


def build_memory_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """Build the tab's components inside the caller's open `gr.Tab(...)` context."""
    gr.Markdown(
        "What I remember about you. It only shapes the *form* of answers (length, format, "
        "which programme's rule comes first); it is never used as evidence for a policy answer."
    )
    status = gr.Markdown("")
    refresh = gr.Button("Refresh", size="sm")

    with gr.Group():
        gr.Markdown("### Preferences")
        with gr.Row():
            length = gr.Radio(["brief", "standard", "detailed"], label="Answer length", value="standard")
            fmt = gr.Radio(["prose", "bullets"], label="Format", value="prose")
            quotes = gr.Checkbox(label="Show quotes from the sources", value=True)
        with gr.Row():
            programme = gr.Textbox(label="Programme", placeholder="as your policies name it")
            year = gr.Textbox(label="Year", placeholder="e.g. 3")
            department = gr.Textbox(label="Department", placeholder="as your policies name it")
        save_prefs = gr.Button("Save preferences", variant="primary")

    with gr.Group():
        gr.Markdown("### Facts you told me")
        facts = gr.Dataframe(headers=_FACT_HEADERS, interactive=False, wrap=True)
        with gr.Row():
            fact_key = gr.Dropdown(
                label="Fact", choices=[], allow_custom_value=True, info="Pick one to edit or delete, or type a new name"
            )
            fact_value = gr.Textbox(label="Value")
        with gr.Row():
            save_fact = gr.Button("Save fact")
            delete_fact = gr.Button("Delete fact")

    with gr.Group():
        gr.Markdown("### History and erasure")
        counts = gr.Markdown("")
        clear = gr.Button("Clear conversation history")
        confirm = gr.Checkbox(
            label='I understand that "forget me" deletes everything you hold about me and cannot be undone', value=False
        )
        forget = gr.Button("Forget me", variant="stop")

    view_outputs = [length, fmt, quotes, programme, year, department, facts, fact_key, counts]

    def _render(identity: Identity) -> list:
        view = service.memory.view(identity)
        prefs = view["preferences"]
        rows = [[f["key"], f["value"], f["learned"], f["statement"]] for f in view["facts"]]
        return [
            prefs["length"],
            prefs["format"],
            bool(prefs["show_quotes"]),
            str(prefs["programme"] or ""),
            str(prefs["year"] or ""),
            str(prefs["department"] or ""),
            rows or [["", "", "", ""]],
            gr.Dropdown(choices=[f["key"] for f in view["facts"]], value=None),
            f"{view['turns']} turn(s) in {view['sessions']} conversation(s) stored.",
        ]

    def _run(request: gr.Request, action: Callable[..., str], *args) -> list:
        """Run `action` for the caller and re-render; a refusal becomes a plain message."""
        try:
            identity = identity_of(request)
            message = action(identity, *args)
            return [message, *_render(identity)]
        except (PermissionDenied, ValueError) as exc:
            return [str(exc), *[gr.update() for _ in view_outputs]]

    def _save_prefs(identity: Identity, length_v, fmt_v, quotes_v, programme_v, year_v, department_v) -> str:
        for key, value in (
            ("length", length_v),
            ("format", fmt_v),
            ("show_quotes", bool(quotes_v)),
            ("programme", programme_v or ""),
            ("year", year_v or ""),
            ("department", department_v or ""),
        ):
            service.memory.update_preference(identity, key, value)
        return "Preferences saved."

    def _delete_fact(identity: Identity, key) -> str:
        if not key:
            raise ValueError("Pick a fact to delete first.")
        return f"Deleted: {key}." if service.memory.delete_fact(identity, key) else f"Nothing stored as {key}."

    def _forget(identity: Identity, confirmed) -> str:
        if not confirmed:
            raise ValueError("Tick the box to confirm first: forgetting cannot be undone.")
        result = service.forget_me(identity)
        return (
            f"Done. Your memory file was deleted, {result['log_lines_anonymised']} line(s) of the "
            f"query log were anonymised and {result['votes_removed']} vote(s) on answers removed."
        )

    # Gradio passes the request only to parameters annotated `gr.Request`, so each handler names it.
    def on_load(request: gr.Request):
        return _run(request, lambda identity: "")

    def on_save_prefs(length_v, fmt_v, quotes_v, programme_v, year_v, department_v, request: gr.Request):
        return _run(request, _save_prefs, length_v, fmt_v, quotes_v, programme_v, year_v, department_v)

    def on_save_fact(key, value, request: gr.Request):
        return _run(request, lambda identity: service.memory.update_fact(identity, key or "", value or ""))

    def on_delete_fact(key, request: gr.Request):
        return _run(request, _delete_fact, key)

    def on_clear(request: gr.Request):
        return _run(request, lambda identity: f"Cleared {service.clear_history(identity)} turn(s) of history.")

    def on_forget(confirmed, request: gr.Request):
        return _run(request, _forget, confirmed)

    def on_pick_fact(key, request: gr.Request):
        try:
            facts_now = {f["key"]: f["value"] for f in service.memory.view(identity_of(request))["facts"]}
        except (PermissionDenied, ValueError):
            return gr.update()
        return facts_now.get(key, gr.update())

    outputs = [status, *view_outputs]
    refresh.click(on_load, inputs=None, outputs=outputs)
    save_prefs.click(on_save_prefs, inputs=[length, fmt, quotes, programme, year, department], outputs=outputs)
    save_fact.click(on_save_fact, inputs=[fact_key, fact_value], outputs=outputs)
    delete_fact.click(on_delete_fact, inputs=[fact_key], outputs=outputs)
    clear.click(on_clear, inputs=None, outputs=outputs)
    forget.click(on_forget, inputs=[confirm], outputs=outputs)
    fact_key.input(on_pick_fact, inputs=[fact_key], outputs=[fact_value])
    if Context.block is not None and hasattr(Context.block, "select"):  # re-read when the user opens the tab
        Context.block.select(on_load, inputs=None, outputs=outputs)
    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(on_load, inputs=None, outputs=outputs)
