"""`python -m scenarios run [--home DIR] [--out DIR] [--only NAME...] [--no-loo]`.

Runs every scenario session (scenarios/suite/sessions/*.yaml) through the service layer the UI calls,
beside the standard-RAG baseline, runs the leave-one-out check, and writes latest.json,
latest.md, sigma.png, metrics.png and turns.jsonl to --out (default scenarios/reports/).
A temporary state directory is used unless --home names one, which is then kept (audit log included).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from pipeline.ground.config import set_offline_environment
from scenarios.suite.benchmark import REPORTS_DIR, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("run", help="run the scenario benchmark")
    cmd.add_argument("--home", type=Path, help="state directory to use and keep (default: a temporary one)")
    cmd.add_argument("--out", type=Path, default=REPORTS_DIR, help="report folder (default scenarios/reports)")
    cmd.add_argument("--only", nargs="+", metavar="NAME", help="run only these sessions (name or part of it)")
    cmd.add_argument("--no-loo", action="store_true", help="skip the leave-one-out check")
    args = parser.parse_args(argv)
    set_offline_environment()
    try:
        if args.home:
            args.home.mkdir(parents=True, exist_ok=True)
            report = run(args.home.resolve(), args.out, args.only, loo=not args.no_loo)
        else:
            with tempfile.TemporaryDirectory(prefix="warrant-scenarios-") as home:
                report = run(Path(home), args.out, args.only, loo=not args.no_loo)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from scenarios.suite.report import _fmt

    print(f"{report['sessions']} sessions, {report['turns']} turns; report in {args.out}")
    print(f"{'metric':32} {'system':>9} {'baseline':>9} {'paper':>7}")
    for key, value in report["metrics"].items():
        print(f"{key:32} {_fmt(value):>9} {_fmt(report['baseline'].get(key)):>9} {_fmt(report['paper'].get(key)):>7}")
    print(f"loo_abstention_rate {_fmt(report['loo_abstention_rate'])} ({len(report['loo_failures'])} failures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
