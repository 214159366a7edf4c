"""The Insights tab (reviewers, admins): plots from the query log, the operator's numbers (error
rate, latency by stage over time, why Warrant abstained), the knowledge gaps, open or resolved, and
the open conflicts between documents, and the feedback users gave on answers (`ui.feedback_panel`).

Questions are shown without who asked them. Hidden from other roles, which is presentation
only: `Insights` checks the role itself on every call.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import gradio as gr
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from governance.identity import Identity, PermissionDenied
from governance.insights import write_gaps_csv
from ui.feedback_panel import build_feedback_panel
from ui.service import WarrantService

_DECISIONS = ("answer", "clarify", "abstain", "out_of_scope", "memory", "error")
_GAP_HEADERS = ["group", "size", "example questions", "nearest section", "status"]
_CONFLICT_HEADERS = ["sections", "what differs", "sentences", "seen in answers", "last seen", "ticket"]
_STAGE_COLOURS = {"retrieval": "#4a9d7f", "answer": "#6b7bd6", "llm": "#d68b4a", "total": "#555555"}


def _figure(title: str):
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=90)
    ax.set_title(title, fontsize=11)
    return fig, ax


def _empty(ax) -> None:
    ax.text(0.5, 0.5, "no data yet", ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_xticks([])
    ax.set_yticks([])


def rates_plot(data: dict):
    fig, ax = _figure("Decisions per day (share of turns)")
    days = data["days"]
    if not days:
        _empty(ax)
        return fig
    totals = [max(1, sum(data["by_day"][d].values())) for d in days]
    bottom = [0.0] * len(days)
    for decision in _DECISIONS:
        shares = [data["by_day"][d].get(decision, 0) / t for d, t in zip(days, totals, strict=False)]
        if any(shares):
            ax.bar(days, shares, bottom=bottom, label=decision, width=0.6)
            bottom = [b + s for b, s in zip(bottom, shares, strict=False)]
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    return fig


def sigma_plot(data: dict):
    fig, ax = _figure("Support score σ, with τ")
    if not data["sigmas"]:
        _empty(ax)
        return fig
    ax.hist(data["sigmas"], bins=20, range=(0, 1), color="#6b7bd6")
    if data["tau"] is not None:
        ax.axvline(data["tau"], color="#c0392b", linestyle="--", label=f"τ = {data['tau']:.2f}")
        ax.legend(fontsize=8)
    ax.set_xlabel("σ")
    fig.tight_layout()
    return fig


def _bar_plot(title: str, pairs: list[tuple[str, int]]):
    fig, ax = _figure(title)
    if not pairs:
        _empty(ax)
        return fig
    labels = [str(k)[:48] for k, _ in pairs][::-1]
    ax.barh(labels, [v for _, v in pairs][::-1], color="#4a9d7f")
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    return fig


def latency_plot(ops: dict):
    """p50 (solid) and p95 (dashed) per day of each stage that has timings."""
    fig, ax = _figure("Latency per day (ms): p50 solid, p95 dashed")
    days = ops["days"]
    drawn = False
    for stage, colour in _STAGE_COLOURS.items():
        for key, style in (("p50", "-"), ("p95", "--")):
            points = [(d, ops["latency"][stage][d][key]) for d in days if ops["latency"][stage][d][key] is not None]
            if points:
                label = stage if key == "p50" else None
                ax.plot([d for d, _ in points], [v for _, v in points], style, marker="o", color=colour, label=label)
                drawn = True
    if not drawn:
        _empty(ax)
        return fig
    ax.legend(fontsize=8)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    return fig


def _latency_text(data: dict, ops: dict | None = None) -> str:
    text = f"{data['turns']} turns logged"
    if data["latency_p50"] is not None:
        text += f" · latency p50 **{data['latency_p50']:.0f} ms**, p95 **{data['latency_p95']:.0f} ms**"
    if ops and ops["error_rate"] is not None:
        classes = ", ".join(f"{name} {count}" for name, count in ops["error_classes"][:3])
        text += f" · errors **{ops['error_rate']:.1%}**" + (f" ({classes})" if classes else "")
    return text + "."


def build_insights_tab(
    service: WarrantService, identity_of: Callable[[gr.Request], Identity], tab: gr.Tab | None = None
) -> None:
    """Build inside the caller's open `gr.Tab(...)` (`tab`: refreshed each time it is selected)."""
    insights = service.governance.insights
    with gr.Row():
        refresh = gr.Button("Refresh", size="sm", elem_id="warrant-insights-refresh")
        summary = gr.Markdown("", elem_id="warrant-insights-summary")
    with gr.Row():
        rates = gr.Plot(label="Decision rates")
        sigmas = gr.Plot(label="σ distribution")
    with gr.Row():
        cited = gr.Plot(label="Most-cited sections")
        claims = gr.Plot(label="Claims")
    with gr.Row():
        latency = gr.Plot(label="Latency by stage")
        reasons = gr.Plot(label="Why it abstained")
    gr.Markdown(
        "### Knowledge gaps\nQuestions the policies did not answer, grouped by topic (largest first), "
        "with the nearest section: what the policy owners should write next. Each is asked again of "
        "today's library: one a later document or approval answers is marked resolved."
    )
    gaps = gr.Dataframe(headers=_GAP_HEADERS, interactive=False, wrap=True, elem_id="warrant-gaps")
    export = gr.Button("Export gaps as CSV", size="sm", elem_id="warrant-gaps-export")
    csv_file = gr.File(label="CSV", interactive=False, elem_id="warrant-gaps-csv")
    gr.Markdown(
        "### Open conflicts\nActive sections that state one thing with different facts: seen in answers "
        "(the answer told the reader), or filed as a ticket when a document was added. Resolve them in the "
        "Review tab."
    )
    conflicts = gr.Dataframe(headers=_CONFLICT_HEADERS, interactive=False, wrap=True, elem_id="warrant-conflicts")

    def on_refresh(request: gr.Request):
        try:
            identity = identity_of(request)
            data = insights.overview(identity)
            ops = insights.operations(identity)
            groups = insights.gaps(identity)
            standing = insights.conflicts(identity)
        except (PermissionDenied, ValueError) as exc:
            return str(exc), None, None, None, None, None, None, gr.update(), gr.update()
        rows = [
            [g.group_id, g.size, " · ".join(q.question for q in g.questions[:3]), g.nearest_section, g.status]
            for g in groups
        ]
        conflict_rows = [
            [c["where"], c["what"], " / ".join(c["sentences"]), c["seen_in_answers"], c["last_seen"], c["ticket"]]
            for c in standing
        ]
        claim_pairs = sorted(data["claims"].items(), key=lambda kv: -kv[1])
        figures = (
            rates_plot(data),
            sigma_plot(data),
            _bar_plot("Most-cited sections", data["top_sections"]),
            _bar_plot("Claims filed, by outcome", claim_pairs),
            latency_plot(ops),
            _bar_plot("Why it abstained (grouped reasons)", ops["abstention_reasons"]),
        )
        plt.close("all")
        return (_latency_text(data, ops), *figures, rows, conflict_rows)

    def on_export(request: gr.Request):
        try:
            groups = insights.gaps(identity_of(request))
        except (PermissionDenied, ValueError) as exc:
            return str(exc), None
        path = Path(tempfile.mkdtemp(prefix="warrant-gaps-")) / "knowledge_gaps.csv"
        count = write_gaps_csv(groups, path)
        return f"{count} questions in {len(groups)} groups.", str(path)

    outputs = [summary, rates, sigmas, cited, claims, latency, reasons, gaps, conflicts]
    refresh.click(on_refresh, None, outputs, api_name="insights_refresh")
    if tab is not None:
        tab.select(on_refresh, None, outputs, api_visibility="private")
    export.click(on_export, None, [summary, csv_file], api_name="insights_gaps_csv")
    build_feedback_panel(service, identity_of, tab, refresh)
