"""`python -m pipeline.eval --outside squad|policy-dev|golden-dev [--ablate RULE ...] [--ablation]`.

The gate's configurations side by side on one index, in one run: `system` (as configured, less any
`--ablate`d rule), `rules` (the word-rule gate with the τ and λ tuned for it before the model) and
`ungated` (same retrieval and synthesis, no gate); or, with `--ablation`, the system with each
hand rule (pipeline.gate.support.RULES) switched in turn — off where in force, on where not.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from pipeline.evaluation import outside
from pipeline.evaluation.harness import build_engine, print_error
from pipeline.evaluation.outside import OutsideItem, ask_items, gate_settings, metrics
from pipeline.evaluation.squad import SQUAD_FILE
from pipeline.ground.config import ALL_RULES, RULES_IN_FORCE, RULES_LAMBDAS, RULES_TAU, load_config


def rules_settings() -> dict:
    """Today's word-rule gate, as tuned before the model (config RULES_TAU / RULES_LAMBDAS)."""
    return {
        "coverage_source": "rules",
        "tau": RULES_TAU,
        "lambda_sim": RULES_LAMBDAS[0],
        "lambda_coverage": RULES_LAMBDAS[1],
        "lambda_consistency": RULES_LAMBDAS[2],
        "rules": frozenset(RULES_IN_FORCE),
    }


def compare(engine, items: list[OutsideItem], ablate: tuple[str, ...] = ()) -> dict:
    """system / rules / ungated on the same index, in the same run."""
    table = {}
    system_rules = frozenset(engine.postprocessor.rules) - set(ablate)
    with gate_settings(engine, rules=system_rules):
        table["system"] = metrics(items, ask_items(engine, items))
    if engine.postprocessor.coverage_source == "model":
        with gate_settings(engine, **rules_settings()):
            table["rules"] = metrics(items, ask_items(engine, items))
    table["ungated"] = metrics(items, ask_items(engine, items, gated=False))
    return table


def ablation(engine, items: list[OutsideItem]) -> dict:
    """The system with each rule switched (off where in force, on where not): its effect."""
    base = metrics(items, ask_items(engine, items))
    table = {"system": base}
    in_force = frozenset(engine.postprocessor.rules)
    for rule in ALL_RULES:
        switched = in_force - {rule} if rule in in_force else in_force | {rule}
        label = f"-{rule}" if rule in in_force else f"+{rule}"
        with gate_settings(engine, rules=switched):
            table[label] = metrics(items, ask_items(engine, items))
    return table


def run_outside(name: str, ablate: tuple[str, ...], do_ablation: bool, json_out: Path | None) -> int:
    unknown = [r for r in ablate if r not in ALL_RULES]
    if unknown:
        print_error(f"error: unknown rule(s) {unknown}; known: {', '.join(ALL_RULES)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="warrant-outside-") as tmp:
        if name == "squad":
            if not SQUAD_FILE.is_file():
                print_error(f"error: {SQUAD_FILE} not found")
                return 2
            docs = Path(tmp) / "docs"
            items = outside.squad_corpus(docs, "heldout")
        elif name == "policy-dev":
            docs, items = outside.POLICY_DEV / "docs", outside.policy_dev_items()
        else:
            docs, items = load_config().docs_dir, outside.golden_items("dev")
        engine, _ = build_engine(docs, Path(tmp) / "home")
        table = ablation(engine, items) if do_ablation else compare(engine, items, ablate)
    title = (
        f"{name}: τ={engine.tau}, λ=({engine.postprocessor.lambda_sim}, {engine.postprocessor.lambda_coverage}, "
        f"{engine.postprocessor.lambda_consistency}), rules in force: {sorted(engine.postprocessor.rules)}"
        + (f", ablated: {list(ablate)}" if ablate else "")
    )
    outside.print_table(title, table)
    if json_out:
        json_out.write_text(json.dumps({"corpus": name, "ablate": list(ablate), "table": table}, indent=2))
    return 0
