"""The Documents tab's critique panel: the policy critic's findings on the files being checked (before
they are added) or on the whole active library, one row per flagged sentence.

Thin over `governance.critic` (the service checks the caller's `ingest` permission itself); a
failure of the critic never blocks the check it accompanies.
"""

from __future__ import annotations

import gradio as gr

from governance.critic.report import TABLE_HEADERS, as_rows, summary
from governance.critic.service import PolicyCritic
from governance.identity import Identity
from ui.render import md_text

NOTE = (
    "Critique of the text: sentences that are vague, name no one to act, set no deadline, state no "
    "consequence, contradict another sentence or refer to a part that is not there. Advice only: "
    "nothing is blocked."
)


def build_critique_panel() -> tuple[gr.Markdown, gr.Dataframe]:
    """The summary line and the findings table; build inside the Documents tab."""
    with gr.Accordion("Critique of the policy text", open=True, elem_id="warrant-doc-critique-panel"):
        gr.Markdown(NOTE)
        note = gr.Markdown("", elem_id="warrant-doc-critique-summary")
        table = gr.Dataframe(
            headers=TABLE_HEADERS,
            interactive=False,
            wrap=True,
            column_widths=["12%", "12%", "34%", "14%", "28%"],
            elem_id="warrant-doc-critique",
        )
    return note, table


def critique_uploads(critic: PolicyCritic, identity: Identity, contents: list[tuple[bytes, str]]) -> tuple[str, list]:
    """(summary lines, rows) for the files being checked; an error becomes one line, never a refusal."""
    try:
        critiques = critic.critique_uploads(identity, contents)
    except (ValueError, OSError) as exc:
        return f"The critic could not read the files: {md_text(exc)}", []
    return _shown(critiques)


def critique_library(critic: PolicyCritic, identity: Identity) -> tuple[str, list]:
    critiques = critic.critique_library(identity)
    if not critiques:
        return "The library has no active documents.", []
    return _shown(critiques)


def _shown(critiques) -> tuple[str, list]:
    lines = "\n".join(f"- {md_text(summary(c))}" for c in critiques)  # names and titles are the uploader's text
    return lines, as_rows(critiques)
