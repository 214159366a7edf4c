"""Evaluation entry points.

The contract (outside tools rely on it; keep it exactly):
    python -m pipeline.eval --docs DIR --questions Q.jsonl --out OUT.jsonl
builds a fresh index of every .md/.txt under DIR in a temporary state directory and writes one
JSON line per input line, in input order.

The golden report:
    python -m pipeline.eval --golden dev|test [--tune]
prints answer rate, abstention precision/recall, clarify rate, citation accuracy, key-fact recall
and the share of unsupported answer sentences, beside the ungated baseline from the same run.

Outside data and the threshold's risk (pipeline.evaluation.outside, pipeline.gate.calibration):
    python -m pipeline.eval --calibrate [--alpha 0.05]      # choose λ and τ on the calibration split
    python -m pipeline.eval --outside squad|policy-dev|golden-dev [--ablate RULE ...] [--ablation]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.evaluation.contract import run_contract
from pipeline.evaluation.golden import run_golden
from pipeline.ground.config import set_offline_environment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.eval", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=Path, help="folder of .md/.txt documents to index")
    parser.add_argument("--questions", type=Path, help='JSONL with {"id", "question"} per line')
    parser.add_argument("--out", type=Path, help="where to write the answers (JSONL)")
    parser.add_argument("--golden", choices=["dev", "test"], help="report on a golden split")
    parser.add_argument("--tune", action="store_true", help="with --golden: grid-search λ and τ")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="choose λ and τ on SQuAD calibration articles + golden dev so that answering an "
        "unanswerable question stays ≤ α (90%% confidence); writes models/gate.json",
    )
    parser.add_argument("--alpha", type=float, default=None, help="the risk for --calibrate (default WARRANT_ALPHA)")
    parser.add_argument(
        "--rows",
        type=Path,
        help="with --calibrate: the tuning questions' σ parts are kept in this file and read back when it "
        "exists (choose another α in seconds)",
    )
    parser.add_argument(
        "--outside",
        choices=["squad", "policy-dev", "golden-dev"],
        help="system vs today's rules vs ungated on data the rules were not written from",
    )
    parser.add_argument(
        "--ablate",
        action="append",
        default=[],
        metavar="RULE",
        help="with --outside: the system without this rule (pipeline.gate.support.RULES)",
    )
    parser.add_argument("--ablation", action="store_true", help="with --outside: switch each rule in turn")
    parser.add_argument("--json-out", type=Path, help="with --outside/--calibrate: also write the table as JSON")
    args = parser.parse_args(argv)
    set_offline_environment()
    if args.calibrate:
        from pipeline.evaluation.calibrate_gate import run_calibration

        return run_calibration(args.alpha, args.json_out, args.rows)
    if args.outside:
        from pipeline.evaluation.ablation import run_outside

        return run_outside(args.outside, tuple(args.ablate), args.ablation, args.json_out)
    if args.golden:
        return run_golden(args.golden, args.tune)
    if not (args.docs and args.questions and args.out):
        parser.error("give --docs, --questions and --out (or --golden dev|test)")
    return run_contract(args.docs, args.questions, args.out)
