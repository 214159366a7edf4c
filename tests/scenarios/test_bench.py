"""A tiny run of the benchmark's parts: keys present and numbers sane (no timing thresholds)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.ground.config import load_config
from scenarios.bench import gpu as bench_gpu
from scenarios.bench import measure as bench
from scenarios.bench.concurrency_service import measure_concurrency_service
from scenarios.bench.stats import percentile
from scenarios.bench.synthetic import load_material, perturbed_vector, synthetic_chunks, synthetic_chunks_with_sources
from tests.scenarios.test_bench_parts import GPU_RESULT

QUESTIONS = [
    "What is the revaluation fee?",
    "How many books can an undergraduate borrow?",
    "When must I apply for revaluation?",
    "What is the fine for an overdue book?",
    "What is the capital of France?",
]


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert math.isnan(percentile([], 95))


def test_golden_questions_load_without_duplicates():
    questions = bench.load_questions()
    assert len(questions) >= 5
    assert len(questions) == len(set(questions))


def test_synthetic_corpus_is_deterministic_and_varied(tiny_docs: Path):
    material = load_material(tiny_docs)
    first = synthetic_chunks(50, material, seed=3)
    assert first == synthetic_chunks(50, material, seed=3)
    assert synthetic_chunks(5, material, seed=3, start=10) == first[10:15]
    assert len({c.chunk_id for c in first}) == 50
    assert len({c.text for c in first}) > 40
    assert first != synthetic_chunks(50, material, seed=4)


def test_perturbed_vectors_are_deterministic_unit_and_near_their_sentences(tiny_docs: Path):
    import numpy as np

    material = load_material(tiny_docs)
    rng = np.random.default_rng(0)
    sentence_vectors = rng.normal(size=(len(material.sentences), 384))
    sentence_vectors /= np.linalg.norm(sentence_vectors, axis=1, keepdims=True)
    ((chunk, sources),) = synthetic_chunks_with_sources(1, material, seed=3, start=7)
    assert chunk == synthetic_chunks(1, material, seed=3, start=7)[0]
    assert sources and all(material.sentences[i].split()[0] in chunk.text for i in sources)

    vector = perturbed_vector(sources, sentence_vectors, 7, seed=3)
    assert vector == perturbed_vector(sources, sentence_vectors, 7, seed=3)
    assert vector != perturbed_vector(sources, sentence_vectors, 8, seed=3)
    assert abs(np.linalg.norm(vector) - 1.0) < 1e-9
    mean = sentence_vectors[sources].mean(axis=0)
    assert np.dot(vector, mean / np.linalg.norm(mean)) > 0.9


def test_small_bench_reports_every_headline_key(
    tmp_path: Path, tiny_docs: Path, embed_model, monkeypatch: pytest.MonkeyPatch
):
    config = load_config().with_home(tmp_path / "home")
    config = replace(config, docs_dir=tiny_docs)
    monkeypatch.setattr(bench, "load_questions", lambda *a: QUESTIONS)
    monkeypatch.setattr(bench, "load_config", lambda: config)
    monkeypatch.setattr(
        bench,
        "measure_cold_start",
        lambda home, q, runs=3: {"runs": 0, "median_s": 1.0, "max_s": 1.0, "all_s": [], "peak_rss_mb": 321.0},
    )
    # The running app is exercised in test_bench_http.py; here its result is only wired into the report.
    http = {
        "mode": "http",
        "users": 3,
        "turns_per_user": 2,
        "latency_ms": {"n": 6, "p50": 80.0, "p95": 90.0},
        "errors": 0,
        "lost_turns": 0,
        "app_start_s": 9.0,
        "warmup": 1,
        "sessions_per_user_max": 1,
        "turns_per_s": 10.0,
    }
    monkeypatch.setattr(bench, "measure_concurrency_http", lambda *a, **k: http)
    # The processes and the Chroma server are exercised in test_bench_multi.py; here only the report.
    multi = {
        **http,
        "mode": "http-multi",
        "processes": 2,
        "latency_ms": {"n": 6, "p50": 85.0, "p95": 99.0},
        "sessions_per_user_max": 2,
    }
    monkeypatch.setattr(bench, "measure_concurrency_multi", lambda *a, **k: multi)
    (tmp_path / "bench_gpu.json").write_text(json.dumps(GPU_RESULT))
    monkeypatch.setattr(bench_gpu, "REPORT", tmp_path / "bench_gpu.json")

    results = bench.run_bench(
        sizes=[40, 120],
        repeat=1,
        users=3,
        turns=2,
        cold_runs=1,
        out_dir=tmp_path / "reports",
        work_dir=tmp_path / "work",
        embed_model=embed_model,
        perturb_above=40,
        concurrency="both",
    )

    flat = json.loads((tmp_path / "reports" / "bench.json").read_text())
    for key in (
        "ask_ms_p50",
        "ask_ms_p95",
        "baseline_ask_ms_p95",
        "cold_start_s",
        "ingest_chunks_per_s",
        "ask_ms_p95_100k",
        "concurrent_ms_p95",
        "concurrent_errors",
        "concurrent_lost_turns",
        "peak_rss_mb",
    ):
        assert key in flat
    assert 0 < flat["ask_ms_p50"] <= flat["ask_ms_p95"]
    assert flat["baseline_ask_ms_p95"] > 0
    assert flat["ingest_chunks_per_s"] > 0 and flat["peak_rss_mb"] > 0
    assert flat["concurrent_mode"] == "http" and flat["concurrent_ms_p95"] == 90.0
    assert flat["concurrent_errors"] == 0 and flat["concurrent_lost_turns"] == 0
    assert flat["service_concurrent_errors"] == 0 and flat["service_concurrent_lost_turns"] == 0
    assert flat["service_concurrent_ms_p95"] > 0
    assert flat["multi_concurrent_ms_p95"] == 99.0 and flat["multi_concurrent_errors"] == 0
    assert flat["multi_concurrent_lost_turns"] == 0 and flat["multi_concurrent_processes"] == 2
    assert flat["cold_start_peak_rss_mb"] == 321.0 and flat["embed_batch_size"] == embed_model.embed_batch_size
    assert flat["gpu_embed_chunks_per_s"] == 2990.0 and flat["gpu_device"] == GPU_RESULT["device"]
    assert flat["ask_ms_p95_100k"] is None  # only 120 synthetic chunks were run
    assert flat["ask_ms_p95_120"] > 0 and flat["ingest_chunks_per_s_40"] > 0
    embedded, perturbed = results["scale"]["40"], results["scale"]["120"]
    assert embedded["vectors"] == "embedded" and embedded["ingest_chunks_per_s"] > 0
    assert perturbed["vectors"] == "perturbed" and "ingest_chunks_per_s" not in perturbed
    assert flat["ingest_chunks_per_s_synthetic"] == embedded["ingest_chunks_per_s"]
    assert perturbed["chunks"] == 120 + results["ingest_policies"]["chunks"]
    assert perturbed["index_mb"] > 0 and perturbed["ask_ms"]["n"] == len(QUESTIONS)
    assert results["warm"]["breakdown"]["embed"]["n"] == len(QUESTIONS)
    md = (tmp_path / "reports" / "bench.md").read_text()
    assert "| warm ask p95" in md and "perturbed real vectors" in md
    assert "POST /login" in md and "Service-level concurrency" in md
    assert "2 processes + Chroma server" in md and "Several processes" in md
    assert "## GPU embedding throughput (lent NVIDIA H100 80GB HBM3, not the 2-core CPU target)" in md


def test_concurrency_counts_every_turn_persisted(tmp_path: Path, tiny_docs: Path, embed_model):
    from ui.service import WarrantService

    config = load_config().with_home(tmp_path / "home")
    config = replace(config, docs_dir=tiny_docs)
    service = WarrantService(config, embed_model=embed_model)
    result = measure_concurrency_service(service, QUESTIONS, users=4, turns=3, deadline_s=120)
    assert result["errors"] == 0 and result["lost_turns"] == 0
    assert result["latency_ms"]["n"] == 12 and result["not_run_before_deadline"] == 0
