"""`python -m pipeline.eval --outside squad|policy-dev|golden-dev [--ablate NAME ...] [--ablation]`.

The gate's configurations side by side on one index, in one run: `system` (as configured, less any
`--ablate`d rule or σ part) and `ungated` (same retrieval and synthesis, no gate); or, with
`--ablation`, the system without each of its hand rules (pipeline.gate.support.RULES) and without
each of σ's parts (its weight moved to the reader's), one at a time: what each still adds on data it
was not written from. The word-rule gate that came before the reader is measured from its own
checkout (docs/evaluation.md).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from pipeline.evaluation import outside
from pipeline.evaluation.harness import build_engine, print_error
from pipeline.evaluation.outside import OutsideItem, ask_items, gate_settings, metrics
from pipeline.evaluation.squad import SQUAD_FILE
from pipeline.ground.config import ALL_RULES, load_config

PARTS = ("sim", "coverage", "consistency")  # σ's parts besides the reader's
ABLATABLE = ALL_RULES + tuple(f"part:{p}" for p in PARTS)


def without(engine, names: tuple[str, ...]) -> dict:
    """The gate settings of the system less some rules and σ parts (a part's λ goes to the reader)."""
    post = engine.postprocessor
    settings: dict = {"rules": frozenset(post.rules) - set(names)}
    for name in names:
        if name.startswith("part:"):
            field = f"lambda_{name.split(':', 1)[1]}"
            settings["lambda_reader"] = round(
                settings.get("lambda_reader", post.lambda_reader) + getattr(post, field), 4
            )
            settings[field] = 0.0
    return settings


def compare(engine, items: list[OutsideItem], ablate: tuple[str, ...] = ()) -> dict:
    """system (less the `ablate`d names) and ungated on the same index, in the same run."""
    with gate_settings(engine, **without(engine, ablate)):
        table = {"system": metrics(items, ask_items(engine, items))}
    table["ungated"] = metrics(items, ask_items(engine, items, gated=False))
    return table


def ablation(engine, items: list[OutsideItem]) -> dict:
    """The system, then the system without each rule in force and each σ part, one at a time."""
    table = {"system": metrics(items, ask_items(engine, items))}
    names = [r for r in ALL_RULES if r in engine.postprocessor.rules]
    names += [f"part:{p}" for p in PARTS if getattr(engine.postprocessor, f"lambda_{p}") > 0]
    for name in names:
        with gate_settings(engine, **without(engine, (name,))):
            table[f"-{name}"] = metrics(items, ask_items(engine, items))
    return table


def run_outside(name: str, ablate: tuple[str, ...], do_ablation: bool, json_out: Path | None) -> int:
    unknown = [r for r in ablate if r not in ABLATABLE]
    if unknown:
        print_error(f"error: unknown name(s) {unknown}; known: {', '.join(ABLATABLE)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="warrant-outside-") as tmp:
        if name == "squad":
            if not SQUAD_FILE.is_file():
                print_error(f"error: {SQUAD_FILE} not found")
                return 2
            docs = Path(tmp) / "docs"
            items = outside.squad_corpus(docs)
        elif name == "policy-dev":
            docs, items = outside.POLICY_DEV / "docs", outside.policy_dev_items()
        else:
            docs, items = load_config().docs_dir, outside.golden_items("dev")
        engine, _ = build_engine(docs, Path(tmp) / "home")
        table = ablation(engine, items) if do_ablation else compare(engine, items, ablate)
    post = engine.postprocessor
    title = (
        f"{name}: τ={engine.tau}, λ(sim, reader, coverage, consistency)=({post.lambda_sim}, {post.lambda_reader}, "
        f"{post.lambda_coverage}, {post.lambda_consistency}), rules in force: {sorted(post.rules)}"
        + (f", ablated: {list(ablate)}" if ablate else "")
    )
    outside.print_table(title, table)
    if json_out:
        json_out.write_text(json.dumps({"corpus": name, "ablate": list(ablate), "table": table}, indent=2))
    return 0
