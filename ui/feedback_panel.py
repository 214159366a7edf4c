"""The Insights tab's feedback panel (reviewers, admins): votes on answers over time, the
down-voted replies with their comments, and a CSV export. No voter is ever shown.

Handlers are thin: `service.governance.feedback` checks the role on every call.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import gradio as gr
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from governance.feedback import FeedbackEntry, votes_by_day
from governance.identity import Identity, PermissionDenied
from ui.service import WarrantService

_DOWN_HEADERS = ["when", "question", "comment", "reply", "decision", "σ"]


def votes_plot(entries: list[FeedbackEntry]):
    """Votes per day, thumbs up stacked on thumbs down, with the share of helpful answers on top."""
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=90)
    ax.set_title("Votes on answers per day (share helpful above)", fontsize=11)
    days = votes_by_day(entries)
    if not days:
        ax.text(0.5, 0.5, "no votes yet", ha="center", va="center", transform=ax.transAxes, color="grey")
        ax.set_xticks([])
        ax.set_yticks([])
        return fig
    labels = list(days)
    up = [days[d]["up"] for d in labels]
    down = [days[d]["down"] for d in labels]
    ax.bar(labels, up, color="#2da44e", width=0.6, label="helpful")
    bars = ax.bar(labels, down, bottom=up, color="#cf222e", width=0.6, label="not helpful")
    for bar, u, d in zip(bars, up, down, strict=True):
        top = bar.get_y() + bar.get_height()
        ax.annotate(
            f"{u / (u + d):.0%}", (bar.get_x() + bar.get_width() / 2, top), ha="center", va="bottom", fontsize=8
        )
    ax.set_ylim(0, max(u + d for u, d in zip(up, down, strict=True)) * 1.25)
    ax.set_xlim(-1, len(labels))  # a single day is one bar, not the whole width
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8, loc="upper left")
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    return fig


def feedback_summary(entries: list[FeedbackEntry]) -> str:
    if not entries:
        return "No votes on answers yet."
    up = sum(e.vote == "up" for e in entries)
    commented = sum(bool(e.comment) for e in entries)
    return (
        f"{len(entries)} vote(s) on answers: **{up / len(entries):.0%} helpful** ({up} up, "
        f"{len(entries) - up} down); {commented} with a comment."
    )


def down_rows(entries: list[FeedbackEntry]) -> list[list]:
    return [
        [e.when, e.question, e.comment, e.answer, e.decision, "" if e.sigma is None else round(e.sigma, 3)]
        for e in entries
        if e.vote == "down"
    ]


def build_feedback_panel(
    service: WarrantService,
    identity_of: Callable[[gr.Request], Identity],
    tab: gr.Tab | None = None,
    refresh: gr.Button | None = None,
) -> None:
    """Build inside the Insights tab; refreshed when `tab` is opened and when `refresh` is clicked."""
    feedback = service.governance.feedback
    gr.Markdown(
        "### Feedback on answers\nThumbs up or down from users, with their comments (never their names).",
        elem_id="warrant-feedback-heading",
    )
    summary = gr.Markdown("", elem_id="warrant-feedback-summary")
    plot = gr.Plot(label="Votes over time")
    down = gr.Dataframe(
        headers=_DOWN_HEADERS, interactive=False, wrap=True, label="Down-voted replies", elem_id="warrant-feedback-down"
    )
    export = gr.Button("Export feedback as CSV", size="sm", elem_id="warrant-feedback-export")
    csv_file = gr.File(label="Feedback CSV", interactive=False, elem_id="warrant-feedback-csv")

    def show(request: gr.Request):
        try:
            entries = feedback.entries(identity_of(request))
        except PermissionDenied as exc:
            return str(exc), None, gr.update()
        figure = votes_plot(entries)
        plt.close("all")
        return feedback_summary(entries), figure, down_rows(entries) or [[""] * len(_DOWN_HEADERS)]

    def export_csv(request: gr.Request):
        try:
            identity = identity_of(request)
            path = Path(tempfile.mkdtemp(prefix="warrant-feedback-")) / "feedback.csv"
            count = feedback.write_csv(identity, path)
        except PermissionDenied as exc:
            return str(exc), None
        return f"{count} vote(s) exported.", str(path)

    outputs = [summary, plot, down]
    if tab is not None:
        tab.select(show, None, outputs, api_visibility="private")
    if refresh is not None:
        refresh.click(show, None, outputs, api_visibility="private")
    export.click(export_csv, None, [summary, csv_file], api_name="insights_feedback_csv")
