"""`python -m pipeline ingest [DIR]` and `python -m pipeline ask "question"`.

With WARRANT_LLM_BASE_URL and WARRANT_LLM_MODEL set, `ask` has the LLM write the answer (after the
gate) and prints what was removed and why; otherwise the answer is extractive.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.ground.config import load_config, set_offline_environment


def _print_answer(answer) -> None:
    print(answer.text)
    print()
    for c in answer.citations:
        print(f"[{c.n}] {c.title} - {c.section} ({c.chunk_id})")
        print(f'    "{c.quote}"')
    s = answer.support
    if s:
        print(
            f"\ndecision: {answer.decision}   σ={s.sigma:.3f} (τ={s.tau:.2f})   "
            f"sim={s.sim:.3f} coverage={s.coverage:.3f} consistency={s.consistency:.3f}"
        )
    print(f"reason: {answer.reason}")
    generation = answer.generation
    if generation:
        print(
            f"written by: {'the language model' if generation['mode'] == 'generated' else 'extraction'} "
            f"({generation['model']}){'; ' + generation['notice'] if generation['notice'] else ''}"
        )
        for removed in generation["removed"]:
            print(f'removed: "{removed["sentence"]}" ({removed["reason"]})')
    print("timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in answer.timings_ms.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="index a folder of .md/.txt policies (incremental)")
    ingest.add_argument("folder", nargs="?", help="default: data/policies (or WARRANT_DOCS)")
    ask = sub.add_parser("ask", help="ask one question and print the cited answer and σ")
    ask.add_argument("question")
    ask.add_argument(
        "--groups", default="", help="answer as a member of these groups (hr,finance); default: everyone's documents"
    )
    args = parser.parse_args(argv)

    set_offline_environment()
    config = load_config()
    from pipeline.engine import AnswerEngine

    engine = AnswerEngine(config)
    if engine.generator is not None:
        print(
            f"answers written by {config.llm_model} at {config.llm_base_url}, each sentence verified", file=sys.stderr
        )
    if args.command == "ingest":
        folder = Path(args.folder) if args.folder else config.docs_dir
        if not folder.is_dir():
            print(f"error: {folder} is not a folder", file=sys.stderr)
            return 2
        report = engine.ingest(folder)
        print(report.summary())
        print(f"index: {engine.index.count()} chunks in {config.chroma_dir}")
        return 1 if report.errors and not report.documents else 0
    if engine.index.count() == 0:
        print("The index is empty; ingesting data/policies first.", file=sys.stderr)
        print(engine.ingest(config.docs_dir).summary(), file=sys.stderr)
    from pipeline.ground.audience import Audience, normalise_groups

    try:
        audience = Audience(frozenset(normalise_groups(args.groups)))
    except ValueError as exc:
        print(f"error: --groups: {exc}", file=sys.stderr)
        return 2
    _print_answer(engine.ask(args.question, audience=audience))
    return 0


if __name__ == "__main__":
    sys.exit(main())
