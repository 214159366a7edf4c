"""The multi-process HTTP benchmark, tiny: a real Chroma server, two `python app.py` processes over one
state directory, 2 users x 4 turns alternating between them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pipeline.ground.config import load_config
from scenarios.bench.concurrency_multi import measure_concurrency_multi

QUESTIONS = [
    "What is the revaluation fee?",
    "How many books can an undergraduate borrow?",
    "and the fine for an overdue book?",
    "What is the photocopy fee?",
]


def test_users_alternating_between_two_processes_lose_no_turn(tmp_path: Path, tiny_docs: Path, embed_model):
    from ui.service import WarrantService

    service = WarrantService(
        replace(load_config().with_home(tmp_path / "single" / "home"), docs_dir=tiny_docs), embed_model=embed_model
    )
    result = measure_concurrency_multi(
        service, QUESTIONS, users=2, turns=4, processes=2, warmup=1, deadline_s=180, turn_timeout_s=60
    )
    assert result["mode"] == "http-multi" and result["processes"] == 2
    assert result["chunks"] == service.engine.index.count()
    assert result["errors"] == 0, result["error_samples"]
    assert result["lost_turns"] == 0 and result["not_run_before_deadline"] == 0
    assert result["latency_ms"]["n"] == 8 and 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["p95"]
    assert result["sessions_per_user_max"] == 2  # one conversation per process tab, both in one history file
