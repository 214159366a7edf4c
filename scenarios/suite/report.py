"""Writes latest.json, latest.md and the two PNG plots of a scenario run."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from scenarios.suite.metrics import DEFINITIONS, METRIC_KEYS, PAPER, Outcome, not_evaluable

LOWER_IS_BETTER = {"hallucination_rate", "policy_claim_false_alarm_rate", "latency_ms_p50", "latency_ms_p95"}


def by_category(outcomes: list[Outcome]) -> dict[str, dict]:
    """Pass rate per scenario category (evaluable turns and actions only)."""
    table: dict[str, dict] = {}
    for o in outcomes:
        if not o.evaluable or o.kind == "isolation_audit":
            continue
        row = table.setdefault(o.category, {"turns": 0, "passed": 0})
        row["turns"] += 1
        row["passed"] += o.passed
    return {k: {**v, "rate": round(v["passed"] / v["turns"], 4)} for k, v in sorted(table.items())}


def build_report(
    metrics: dict,
    baseline: dict,
    sessions: int,
    turns: int,
    loo: dict | None,
    tau: float,
    system: list[Outcome],
    extra: dict | None = None,
    baseline_outcomes: list[Outcome] | None = None,
) -> dict:
    return {
        "metrics": metrics,
        "baseline": baseline,
        "paper": PAPER,
        "sessions": sessions,
        "turns": turns,
        "tau": tau,
        "loo_abstention_rate": loo["abstention_rate"] if loo else None,
        "loo_items": loo["items"] if loo else 0,
        "loo_failures": loo["failures"] if loo else [],
        "not_evaluable": [
            {"session": o.session, "index": o.index, "say": o.say, "why": o.note} for o in not_evaluable(system)
        ],
        "categories": {"system": by_category(system), "baseline": by_category(baseline_outcomes or [])},
        "failed_turns": [
            {
                "session": o.session,
                "index": o.index,
                "category": o.category,
                "say": o.say,
                "decision": o.decision,
                "failed": [k for k, v in o.checks.items() if not v],
                "text": o.text[:240],
            }
            for o in system
            if o.evaluable and not o.passed
        ],
        **(extra or {}),
    }


def _fmt(value) -> str:
    if value is None:
        return "n/a"
    return (
        f"{value:.1f}"
        if isinstance(value, float) and value > 1.5
        else f"{value:.4f}"
        if isinstance(value, float)
        else str(value)
    )


def write_markdown(report: dict, path: Path) -> None:
    lines = [
        "# Scenario benchmark",
        "",
        f"{report['sessions']} sessions, {report['turns']} turns (chat turns and ticket actions), τ = {report['tau']:.2f}. "
        "System = `WarrantService.chat` (memory, support gate, verifier, governance); baseline = standard RAG "
        "on the same index (`engine.ask(gated=False)`: same retrieval and synthesiser, no gate, no verifier, "
        "no memory). Paper = the reference paper's Table II (refusal correctness shown beside abstention precision).",
        "",
        "| metric | system | baseline | paper |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key in METRIC_KEYS:
        lines.append(
            f"| {key} | {_fmt(report['metrics'].get(key))} | {_fmt(report['baseline'].get(key))} | "
            f"{_fmt(report['paper'].get(key))} |"
        )
    lines += [
        "",
        f"Leave-one-out abstention rate: **{_fmt(report['loo_abstention_rate'])}** over "
        f"{report.get('loo_items', 0)} answerable golden items (target ≥ 0.9).",
        "",
    ]
    if report["loo_failures"]:
        redundant = sum(bool(f.get("key_facts_present")) for f in report["loo_failures"])
        lines += [
            f"LOO failures (answered although the gold chunks were removed); {redundant} of them still state "
            "every key fact, found in another section that repeats it (marked ★):",
            "",
        ]
        lines += [
            f"- `{f['id']}`{' ★' if f.get('key_facts_present') else ''}: {f['question']} → {f['decision']} "
            f"{f.get('cited', '')}"
            for f in report["loo_failures"]
        ]
        lines.append("")
    library = report.get("library_contradictions") or {}
    if library:
        start = library.get("start", {})
        lines += [
            "## Contradicting chunk pairs in the active library",
            "",
            f"Pairs of active chunks that state one thing with different facts (governance.conflicts): "
            f"**{start.get('pairs', 'n/a')}** before the first turn"
            + "".join(
                f"; **{a['pairs']}** after the approval of `{a['ticket']}`" for a in library.get("after_approvals", [])
            )
            + ".",
            "",
        ]
        conflicts = (library.get("after_approvals") or [start])[-1].get("conflicts", [])
        lines += [f"- {c}" for c in conflicts] + ([""] if conflicts else [])
    cats = report.get("categories", {})
    if cats.get("system"):
        lines += [
            "## Pass rate by category",
            "",
            "| category | turns | system | baseline |",
            "| --- | ---: | ---: | ---: |",
        ]
        for name, row in cats["system"].items():
            base = cats.get("baseline", {}).get(name)
            lines.append(
                f"| {name} | {row['turns']} | {row['rate']:.2f} | {base['rate']:.2f} |"
                if base
                else f"| {name} | {row['turns']} | {row['rate']:.2f} | n/a |"
            )
        lines.append("")
    lines += ["## Definitions", ""] + [f"- **{k}**: {v}" for k, v in DEFINITIONS.items()] + [""]
    if report["not_evaluable"]:
        lines += [f"## Not evaluable ({len(report['not_evaluable'])})", ""]
        lines += [f"- {n['session']} #{n['index']} `{n['say']}`: {n['why']}" for n in report["not_evaluable"]] + [""]
    if report["failed_turns"]:
        lines += [f"## System turns that missed an expectation ({len(report['failed_turns'])})", ""]
        lines += [
            f'- {f["session"]} #{f["index"]} [{f["category"]}] "{f["say"][:90]}" → {f["decision"]}; '
            f"failed: {', '.join(f['failed'])}"
            for f in report["failed_turns"]
        ] + [""]
    lines += [
        "Plots: `sigma.png` (σ for answerable vs unanswerable turns, τ marked), `metrics.png` "
        "(system vs baseline vs paper).",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def plot_sigma(system: list[Outcome], tau: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    answerable = [
        o.sigma for o in system if o.kind == "chat" and o.sigma is not None and o.expect.get("decision") == "answer"
    ]
    unanswerable = [
        o.sigma for o in system if o.kind == "chat" and o.sigma is not None and o.expect.get("decision") == "abstain"
    ]
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = [i / 40 for i in range(41)]
    ax.hist(answerable, bins=bins, alpha=0.6, label=f"answerable (n={len(answerable)})", color="tab:green")
    ax.hist(unanswerable, bins=bins, alpha=0.6, label=f"unanswerable (n={len(unanswerable)})", color="tab:red")
    ax.axvline(tau, color="black", linestyle="--", label=f"τ = {tau:.2f}")
    ax.set_xlabel("support score σ")
    ax.set_ylabel("turns")
    ax.set_title("σ by expected outcome (scenario policy turns)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_metrics(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k in METRIC_KEYS if not k.startswith("latency")]
    series = [
        ("system", report["metrics"], "tab:blue"),
        ("baseline", report["baseline"], "tab:gray"),
        ("paper", report["paper"], "tab:orange"),
    ]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.27
    for i, (name, values, color) in enumerate(series):
        xs = [j + (i - 1) * width for j in range(len(keys))]
        ys = [values.get(k) if values.get(k) is not None else 0 for k in keys]
        ax.bar(xs, ys, width, label=name, color=color)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([k.replace("_", " ") for k in keys], rotation=40, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_title("Scenario metrics (missing bars: n/a; hallucination and false-alarm: lower is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(report: dict, system: list[Outcome], baseline: list[Outcome], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "latest.json", out / "latest.md", out / "sigma.png", out / "metrics.png", out / "turns.jsonl"]
    paths[0].write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    write_markdown(report, paths[1])
    plot_sigma(system, report["tau"], paths[2])
    plot_metrics(report, paths[3])
    with open(paths[4], "w", encoding="utf-8") as fh:
        for side, outcomes in (("system", system), ("baseline", baseline)):
            for o in outcomes:
                fh.write(json.dumps({"side": side, **asdict(o), "passed": o.passed}, ensure_ascii=False) + "\n")
    return paths
