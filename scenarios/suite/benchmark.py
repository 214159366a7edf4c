"""The scenario benchmark: every scripted session through the service layer, beside a baseline.

`run(home, out)` runs every scenario session (scenarios/suite/sessions/*.yaml) through the service
layer the UI calls, beside the standard-RAG baseline, runs the leave-one-out check, and writes
latest.json, latest.md, sigma.png, metrics.png and turns.jsonl to `out` (scenarios/reports/ by
default). `python -m scenarios run` is its command (scenarios/__main__.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from pipeline.ground.config import Config, load_config

REPORTS_DIR = Path(__file__).resolve().parents[1] / "reports"


def run(
    home: Path,
    out: Path,
    only: list[str] | None = None,
    loo: bool = True,
    loo_limit: int | None = None,
    embed_model=None,
    quiet: bool = False,
    config: Config | None = None,
) -> dict:
    """The whole benchmark on state directory `home`; returns the report dict (also written to `out`).
    `config`: settings to run with (default: the environment's), e.g. an LLM endpoint for the
    generative mode (scenarios/suite/generative.py)."""
    from pipeline.engine import AnswerEngine
    from scenarios.suite.loo import leave_one_out, load_answerable
    from scenarios.suite.metrics import compute
    from scenarios.suite.report import build_report, write_all
    from scenarios.suite.runner import load_sessions, run_sessions
    from ui.service import WarrantService

    if embed_model is None:
        from pipeline.ingest.embedding import MiniLMEmbedding

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
    report = build_report(
        compute(result.system),
        compute(result.baseline),
        result.sessions,
        result.turns,
        loo_result,
        service.engine.tau,
        result.system,
        extra={
            "state_dir": str(home),
            "seconds": round(time.perf_counter() - started, 1),
            "library_contradictions": result.library_contradictions,
        },
        baseline_outcomes=result.baseline,
    )
    write_all(report, result.system, result.baseline, out)
    return report
