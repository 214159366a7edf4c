"""`python -m scenarios run [--home DIR] [--out DIR] [--only NAME...] [--no-loo]`.

Runs every scenario session (scenarios/sessions/*.yaml) through the service layer the UI calls,
beside the standard-RAG baseline, runs the leave-one-out check, and writes latest.json,
latest.md, sigma.png, metrics.png and turns.jsonl to --out (default scenarios/reports/).
A temporary state directory is used unless --home names one, which is then kept (audit log included).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from pipeline.config import Config, load_config, set_offline_environment

REPORTS_DIR = Path(__file__).resolve().parent / "reports"


def run(home: Path, out: Path, only: list[str] | None = None, loo: bool = True, loo_limit: int | None = None,
        embed_model=None, quiet: bool = False, config: Config | None = None) -> dict:
    """The whole benchmark on state directory `home`; returns the report dict (also written to `out`).
    `config`: settings to run with (default: the environment's), e.g. an LLM endpoint for the
    generative mode (scenarios/generative.py)."""
    from pipeline.engine import AnswerEngine
    from scenarios.loo import leave_one_out, load_answerable
    from scenarios.metrics import compute
    from scenarios.report import build_report, write_all
    from scenarios.runner import load_sessions, run_sessions
    from ui.service import WarrantService

    if embed_model is None:
        from pipeline.embedding import MiniLMEmbedding

        embed_model = MiniLMEmbedding()
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    sessions = load_sessions(only=only)
    if not sessions:
        raise ValueError(f"no scenario matches {only}")
    config = (config or load_config()).with_home(home)
    started = time.perf_counter()
    service = WarrantService(config, embed_model=embed_model)
    say(f"index ready in {time.perf_counter() - started:.1f}s; running {len(sessions)} sessions")
    result = run_sessions(service, sessions)
    say(f"scenarios done in {time.perf_counter() - started:.1f}s")
    loo_result = None
    if loo:
        items = load_answerable()[:loo_limit] if loo_limit else load_answerable()
        with tempfile.TemporaryDirectory(prefix="warrant-loo-") as loo_home:
            engine = AnswerEngine(config.with_home(loo_home), embed_model=embed_model)
            engine.ingest(config.docs_dir)
            loo_result = leave_one_out(engine, items)
        say(f"leave-one-out done in {time.perf_counter() - started:.1f}s")
    report = build_report(compute(result.system), compute(result.baseline), result.sessions, result.turns,
                          loo_result, service.engine.tau, result.system,
                          extra={"state_dir": str(home), "seconds": round(time.perf_counter() - started, 1)},
                          baseline_outcomes=result.baseline)
    write_all(report, result.system, result.baseline, out)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
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
    from scenarios.report import _fmt

    print(f"{report['sessions']} sessions, {report['turns']} turns; report in {args.out}")
    print(f"{'metric':32} {'system':>9} {'baseline':>9} {'paper':>7}")
    for key, value in report["metrics"].items():
        print(f"{key:32} {_fmt(value):>9} {_fmt(report['baseline'].get(key)):>9} {_fmt(report['paper'].get(key)):>7}")
    print(f"loo_abstention_rate {_fmt(report['loo_abstention_rate'])} ({len(report['loo_failures'])} failures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
