"""The HTTP concurrency benchmark, tiny: the real `python app.py` on loopback, 2 users x 2 questions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pipeline.ground.config import load_config
from scenarios.bench.concurrency_http import measure_concurrency_http

QUESTIONS = [
    "What is the revaluation fee?",
    "How many books can an undergraduate borrow?",
    "and the fine for an overdue book?",
]


def test_two_users_chat_through_the_running_app_and_every_turn_is_kept(tmp_path: Path, tiny_docs: Path, embed_model):
    from ui.service import WarrantService

    service = WarrantService(
        replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs), embed_model=embed_model
    )
    result = measure_concurrency_http(service, QUESTIONS, users=2, turns=2, warmup=1, deadline_s=120, turn_timeout_s=60)
    assert result["mode"] == "http"
    assert result["errors"] == 0, result["error_samples"]
    assert result["lost_turns"] == 0 and result["not_run_before_deadline"] == 0
    assert result["latency_ms"]["n"] == 4 and 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["p95"]
    assert result["sessions_per_user_max"] == 1  # the conversation id carried over in gr.State
    assert result["app_start_s"] > 0
