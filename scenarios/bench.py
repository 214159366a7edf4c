"""`python -m scenarios.bench`: latency, cold start, ingest, scale and concurrency, against a baseline.

Every latency is the median (p50) and p95 over repeated passes after a warm-up; every speed is also
given as a ratio to LlamaIndex's standard `RetrieverQueryEngine` over the same Chroma index and the
same embedding model, measured in the same run with an LLM-free synthesiser (`no_text`), so both
sides embed, retrieve and build a response object but neither calls an LLM.

Results go to `scenarios/reports/bench.json` (keys documented in README) and `bench.md`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from pipeline.config import REPO_ROOT, Config, load_config, set_offline_environment

REPORTS = Path(__file__).resolve().parent / "reports"
GOLDEN = REPO_ROOT / "data" / "golden"
# Above this many synthetic chunks, vectors are perturbed real embeddings (see `perturbed_vector`):
# embedding 100k chunks with MiniLM on a 2-core CPU takes most of an hour.
PERTURB_ABOVE = 10_000
TIMING_KEYS = ("embed", "retrieve", "support", "synthesise", "verify", "log", "total")
TARGETS = {  # key: (limit, "<=" or ">=")
    "ask_ms_p95": (150.0, "<="),
    "ask_p95_vs_baseline": (1.5, "<="),
    "ask_ms_p95_100k": (400.0, "<="),
    "ingest_chunks_per_s_synthetic": (150.0, ">="),
    "cold_start_s": (20.0, "<="),
    "cold_start_s_100k": (20.0, "<="),
    "concurrent_errors": (0, "<="),
    "concurrent_lost_turns": (0, "<="),
    "concurrent_ms_p95": (1500.0, "<="),
}


# -- small helpers --------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarise(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "mean": float("nan")}
    return {"n": len(values), "p50": round(statistics.median(values), 2),
            "p95": round(percentile(values, 95), 2), "mean": round(statistics.fmean(values), 2)}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def disk_usage_mb(folder: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return round(total / 1024 / 1024, 1)


def load_questions(golden_dir: Path = GOLDEN) -> list[str]:
    """Golden questions from dev.jsonl + test.jsonl, else from parts/*.jsonl (deduplicated, in order)."""
    files = [golden_dir / "dev.jsonl", golden_dir / "test.jsonl"]
    files = [f for f in files if f.is_file()] or sorted((golden_dir / "parts").glob("*.jsonl"))
    seen: dict[str, None] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                question = json.loads(line).get("question", "").strip()
                if question:
                    seen.setdefault(question, None)
    if not seen:
        raise FileNotFoundError(f"no golden questions under {golden_dir}")
    return list(seen)


def _log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the two engines ------------------------------------------------------------------------------
def make_engine(config: Config, embed_model):
    from pipeline.engine import AnswerEngine

    return AnswerEngine(config, embed_model=embed_model)


def make_baseline(engine):
    """LlamaIndex's standard query engine over the same index, retriever and embedding; no LLM."""
    from llama_index.core import get_response_synthesizer
    from llama_index.core.query_engine import RetrieverQueryEngine

    return RetrieverQueryEngine.from_args(
        engine.index.retriever(engine.top_k),
        response_synthesizer=get_response_synthesizer(response_mode="no_text"),
    )


def measure_warm(engine, questions: list[str], repeat: int = 3, warmup: int = 5) -> dict:
    """Warm `ask` and baseline `query` latency, interleaved per question so load noise hits both."""
    baseline = make_baseline(engine)
    for q in questions[:warmup]:
        engine.ask(q, log=False)
        baseline.query(q)
    ask_ms: list[float] = []
    base_ms: list[float] = []
    parts: dict[str, list[float]] = {k: [] for k in TIMING_KEYS}
    decisions: dict[str, int] = {}
    for r in range(repeat):
        for i, q in enumerate(questions):
            # Alternate which side goes first, so neither always benefits from a warm cache.
            order = (0, 1) if (i + r) % 2 == 0 else (1, 0)
            for side in order:
                t = time.perf_counter()
                if side == 0:
                    answer = engine.ask(q, actor="bench", session="bench")
                    ask_ms.append((time.perf_counter() - t) * 1000)
                    for k in TIMING_KEYS:
                        if k in answer.timings_ms:
                            parts[k].append(answer.timings_ms[k])
                    decisions[answer.decision] = decisions.get(answer.decision, 0) + 1
                else:
                    baseline.query(q)
                    base_ms.append((time.perf_counter() - t) * 1000)
    ask, base = summarise(ask_ms), summarise(base_ms)
    return {"ask": ask, "baseline": base, "breakdown": {k: summarise(v) for k, v in parts.items()},
            "decisions": decisions, "questions": len(questions), "repeat": repeat,
            "p50_vs_baseline": round(ask["p50"] / base["p50"], 2),
            "p95_vs_baseline": round(ask["p95"] / base["p95"], 2)}


# -- ingest and scale -----------------------------------------------------------------------------
def measure_policy_ingest(config: Config, embed_model) -> tuple[object, dict]:
    """Fresh home: ingest the policy folder; returns the engine (reused for the warm runs)."""
    engine = make_engine(config, embed_model)
    started = time.perf_counter()
    report = engine.ingest(config.docs_dir)
    seconds = time.perf_counter() - started
    return engine, {"documents": report.documents, "chunks": report.chunks_added,
                    "seconds": round(seconds, 2),
                    "chunks_per_s": round(report.chunks_added / seconds, 1) if seconds else 0.0,
                    "index_mb": disk_usage_mb(config.chroma_dir)}


def add_synthetic(engine, material, count: int, start: int, seed: int = 8, batch: int = 2000,
                  sentence_vectors=None) -> float:
    """Index `count` synthetic chunks (Chunk → chunk_to_node → ChunkIndex.add_nodes); seconds.

    With `sentence_vectors` (real embeddings of `material.sentences`), chunks get perturbed real
    vectors instead of being embedded by the model; the seconds then cover indexing only.
    """
    from pipeline.index import chunk_to_node
    from scenarios.synthetic import perturbed_vector, synthetic_chunks_with_sources

    seconds = 0.0
    for offset in range(start, start + count, batch):
        n = min(batch, start + count - offset)
        nodes = []
        for i, (chunk, sources) in enumerate(synthetic_chunks_with_sources(n, material, seed=seed, start=offset)):
            node = chunk_to_node(chunk)
            if sentence_vectors is not None:
                node.embedding = perturbed_vector(sources, sentence_vectors, offset + i, seed=seed)
            nodes.append(node)
        t = time.perf_counter()
        engine.index.add_nodes(nodes)
        seconds += time.perf_counter() - t
        done = offset + n - start
        _log(f"  synthetic {offset + n:,} chunks indexed ({done / seconds:.0f} chunks/s)")
    return seconds


def measure_scale(config: Config, embed_model, sizes: list[int], questions: list[str],
                  repeat: int = 1, cold_runs: int = 0, perturb_above: int = PERTURB_ABOVE) -> dict:
    """Grow one index (policies + synthetic chunks) through `sizes`, measuring at each size.

    Sizes up to `perturb_above` are embedded with the model (their chunks/s is a real ingest
    speed); the chunks added to reach a larger size get perturbed real vectors, so that size
    measures retrieval, `ask`, index size, memory and cold start, not ingest.
    """
    from scenarios.synthetic import load_material

    material = load_material(config.docs_dir, config.chunk_min_words, config.chunk_max_words)
    engine = make_engine(config, embed_model)
    engine.ingest(config.docs_dir)
    results: dict[str, dict] = {}
    sentence_vectors = None
    have = 0
    for size in sorted(sizes):
        add = size - have
        perturbed = size > perturb_above
        if perturbed and sentence_vectors is None:
            t = time.perf_counter()
            import numpy as np

            # One array up front: converting the list per chunk cost ~30 ms a chunk.
            sentence_vectors = np.asarray(embed_model.get_text_embedding_batch(material.sentences))
            _log(f"scale: embedded {len(material.sentences)} source sentences in {time.perf_counter() - t:.1f}s")
        _log(f"scale: adding {add:,} synthetic chunks to reach {size:,} "
             f"({'perturbed real vectors' if perturbed else 'embedded with the model'})")
        seconds = add_synthetic(engine, material, add, start=have,
                                sentence_vectors=sentence_vectors if perturbed else None)
        have = size
        t = time.perf_counter()
        engine.refresh()
        refresh_s = time.perf_counter() - t
        baseline = make_baseline(engine)
        for q in questions[:5]:
            engine.ask(q, log=False)
        retrieve_ms, ask_ms, base_ms = [], [], []
        for _ in range(repeat):
            for q in questions:
                answer = engine.ask(q, actor="bench", session="bench-scale")
                ask_ms.append(answer.timings_ms["total"])
                retrieve_ms.append(answer.timings_ms.get("embed", 0.0) + answer.timings_ms.get("retrieve", 0.0))
                t = time.perf_counter()
                baseline.query(q)
                base_ms.append((time.perf_counter() - t) * 1000)
        entry = {
            "chunks": engine.index.count(), "synthetic_chunks": size,
            "vectors": "perturbed" if perturbed else "embedded",
            # With perturbed vectors this is Chroma + LlamaIndex insertion only, not an ingest speed.
            "ingest_seconds": round(seconds, 1),
            ("index_chunks_per_s" if perturbed else "ingest_chunks_per_s"): round(add / seconds, 1),
            "refresh_term_stats_s": round(refresh_s, 2),
            "retrieve_ms": summarise(retrieve_ms), "ask_ms": summarise(ask_ms),
            "baseline_ms": summarise(base_ms), "index_mb": disk_usage_mb(config.chroma_dir),
            "peak_rss_mb": peak_rss_mb(),
        }
        entry["ask_p95_vs_baseline"] = round(entry["ask_ms"]["p95"] / entry["baseline_ms"]["p95"], 2)
        if cold_runs:
            entry["cold_start"] = measure_cold_start(config.home, questions[0], cold_runs)
            if size == max(sizes):
                # The same start without the stored term statistics: what it cost before they were kept.
                entry["cold_start_recount_stats"] = measure_cold_start(config.home, questions[0], 1,
                                                                       drop_term_stats=True)
        results[str(size)] = entry
        _log(f"scale {size:,}: ask p95 {entry['ask_ms']['p95']} ms, index {entry['index_mb']} MB")
    return results


# -- cold start -----------------------------------------------------------------------------------
def measure_cold_start(home: Path, question: str, runs: int = 3, drop_term_stats: bool = False) -> dict:
    """Wall time of `python -m pipeline ask` (process start to its answer) on an existing index.

    `drop_term_stats` deletes `<home>/term_stats.json` before each run, so the process counts the
    term statistics from every chunk's text again (the behaviour before they were stored).
    """
    env = dict(os.environ, WARRANT_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=str(REPO_ROOT))
    times = []
    for _ in range(runs):
        if drop_term_stats:
            (Path(home) / "term_stats.json").unlink(missing_ok=True)
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pipeline", "ask", question], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        times.append(time.perf_counter() - t)
        if done.returncode != 0 or "decision:" not in done.stdout:
            raise RuntimeError(f"cold-start run failed ({done.returncode}): {done.stderr[-500:]}")
    return {"runs": runs, "median_s": round(statistics.median(times), 2), "max_s": round(max(times), 2),
            "all_s": [round(x, 2) for x in times],
            # Largest child so far (Linux: KiB): the cold-start processes are the bench's only children.
            "children_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)}


# -- concurrency ----------------------------------------------------------------------------------
def bench_identities(users: int):
    from governance.identity import Identity

    return [Identity(user_id=f"local:bench{i:02d}", username=f"bench{i:02d}", role="user",
                     display_name=f"Bench user {i}") for i in range(users)]


def measure_concurrency_service(service, questions: list[str], users: int = 20, turns: int = 10,
                                deadline_s: float = 600.0) -> dict:
    """`users` threads, each one user with one session asking `turns` questions through
    `WarrantService.chat`; then every user's history is checked for all of its turns.

    Service-level: the same code path the Gradio handlers call, without HTTP in front.
    """
    identities = bench_identities(users)
    latencies: list[float] = []
    errors: list[str] = []
    sessions: dict[str, str] = {}
    completed: dict[str, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + deadline_s
    barrier = threading.Barrier(users)

    def run_user(n: int) -> None:
        identity = identities[n]
        session_id = service.memory.new_session(identity)
        sessions[identity.user_id] = session_id
        barrier.wait()
        for turn in range(turns):
            if time.monotonic() > stop_at:
                return
            question = questions[(n * turns + turn) % len(questions)]
            t = time.perf_counter()
            try:
                service.chat(identity, question, session_id)
            except Exception as exc:  # a benchmark counts failures; it does not stop on them
                with lock:
                    errors.append(f"{identity.username} turn {turn}: {type(exc).__name__}: {exc}")
                continue
            with lock:
                latencies.append((time.perf_counter() - t) * 1000)
                completed[identity.user_id] = completed.get(identity.user_id, 0) + 1

    started = time.perf_counter()
    threads = [threading.Thread(target=run_user, args=(n,), daemon=True) for n in range(users)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=max(1.0, stop_at - time.monotonic() + 30))
    wall = time.perf_counter() - started
    lost = 0
    for identity in identities:
        persisted = len(service.memory.history(identity, sessions.get(identity.user_id, "")))
        lost += max(0, completed.get(identity.user_id, 0) - persisted)
    not_run = users * turns - len(latencies) - len(errors)
    return {"mode": "service-level", "users": users, "turns_per_user": turns,
            "latency_ms": summarise(latencies), "errors": len(errors), "error_samples": errors[:5],
            "lost_turns": lost, "not_run_before_deadline": not_run, "wall_s": round(wall, 1),
            "turns_per_s": round(len(latencies) / wall, 1) if wall else 0.0}


# -- report ---------------------------------------------------------------------------------------
def headline(results: dict) -> dict:
    """The flat keys others read from bench.json."""
    warm, ingest = results["warm"], results["ingest_policies"]
    out = {
        "ask_ms_p50": warm["ask"]["p50"], "ask_ms_p95": warm["ask"]["p95"],
        "baseline_ask_ms_p50": warm["baseline"]["p50"], "baseline_ask_ms_p95": warm["baseline"]["p95"],
        "ask_p95_vs_baseline": warm["p95_vs_baseline"],
        "cold_start_s": results["cold_start"]["median_s"],
        "ingest_chunks_per_s": ingest["chunks_per_s"],
    }
    scale = results.get("scale", {})
    for size, entry in scale.items():
        label = f"{int(size) // 1000}k"
        out[f"ask_ms_p50_{label}"] = entry["ask_ms"]["p50"]
        out[f"ask_ms_p95_{label}"] = entry["ask_ms"]["p95"]
        out[f"retrieve_ms_p95_{label}"] = entry["retrieve_ms"]["p95"]
        if "ingest_chunks_per_s" in entry:
            out[f"ingest_chunks_per_s_{label}"] = entry["ingest_chunks_per_s"]
            out["ingest_chunks_per_s_synthetic"] = entry["ingest_chunks_per_s"]  # largest embedded size
        else:
            out[f"index_chunks_per_s_{label}"] = entry["index_chunks_per_s"]
        out[f"vectors_{label}"] = entry.get("vectors", "embedded")
        out[f"index_mb_{label}"] = entry["index_mb"]
        out[f"peak_rss_mb_{label}"] = entry["peak_rss_mb"]
        if "cold_start" in entry:
            out[f"cold_start_s_{label}"] = entry["cold_start"]["median_s"]
            out[f"cold_start_peak_rss_mb_{label}"] = entry["cold_start"].get("children_peak_rss_mb")
        if "cold_start_recount_stats" in entry:
            out[f"cold_start_s_{label}_recount_stats"] = entry["cold_start_recount_stats"]["median_s"]
    out.setdefault("ask_ms_p95_100k", None)  # present (null) when the 100k size was not run
    conc = results.get("concurrency", {})
    out["concurrent_ms_p50"] = conc.get("latency_ms", {}).get("p50")
    out["concurrent_ms_p95"] = conc.get("latency_ms", {}).get("p95")
    out["concurrent_errors"] = conc.get("errors")
    out["concurrent_lost_turns"] = conc.get("lost_turns")
    out["concurrent_mode"] = conc.get("mode")
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def check_targets(flat: dict) -> dict[str, str]:
    verdicts = {}
    for key, (limit, op) in TARGETS.items():
        value = flat.get(key)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            verdicts[key] = "not measured"
        else:
            ok = value <= limit if op == "<=" else value >= limit
            verdicts[key] = f"{'PASS' if ok else 'MISS'} ({op} {limit})"
    return verdicts


def render_table(results: dict) -> str:
    flat, verdicts = results["headline"], results["targets"]
    warm = results["warm"]
    rows = [("measure", "value", "target")]
    def add(label: str, key: str, unit: str = "") -> None:
        value = flat.get(key)
        rows.append((label, "-" if value is None else f"{value}{unit}", verdicts.get(key, "")))
    add("warm ask p50", "ask_ms_p50", " ms")
    add("warm ask p95", "ask_ms_p95", " ms")
    add("baseline (RetrieverQueryEngine) p50", "baseline_ask_ms_p50", " ms")
    add("baseline (RetrieverQueryEngine) p95", "baseline_ask_ms_p95", " ms")
    add("ask p95 / baseline p95", "ask_p95_vs_baseline", "x")
    for k in TIMING_KEYS[:-1]:
        b = warm["breakdown"][k]
        rows.append((f"  breakdown {k} p50 / p95", f"{b['p50']} / {b['p95']} ms (n={b['n']})", ""))
    add("cold start (python -m pipeline ask)", "cold_start_s", " s")
    add("ingest, policy corpus", "ingest_chunks_per_s", " chunks/s")
    for size, entry in results.get("scale", {}).items():
        label = f"{int(size) // 1000}k"
        if "ingest_chunks_per_s" in entry:
            rows.append((f"{label}: ingest (embedded with MiniLM)", f"{entry['ingest_chunks_per_s']} chunks/s",
                         verdicts.get("ingest_chunks_per_s_synthetic", "")))
        else:
            rows.append((f"{label}: indexing only (perturbed vectors, not an ingest speed)",
                         f"{entry['index_chunks_per_s']} chunks/s", ""))
        rows.append((f"{label}: retrieve p50 / p95", f"{entry['retrieve_ms']['p50']} / {entry['retrieve_ms']['p95']} ms", ""))
        rows.append((f"{label}: ask p50 / p95", f"{entry['ask_ms']['p50']} / {entry['ask_ms']['p95']} ms",
                     verdicts.get(f"ask_ms_p95_{label}", "")))
        rows.append((f"{label}: baseline p50 / p95 (ratio)", f"{entry['baseline_ms']['p50']} / "
                     f"{entry['baseline_ms']['p95']} ms ({entry['ask_p95_vs_baseline']}x)", ""))
        rows.append((f"{label}: index on disk", f"{entry['index_mb']} MB", ""))
        rows.append((f"{label}: peak RSS (bench process, so far)", f"{entry['peak_rss_mb']} MB", ""))
        if "cold_start" in entry:
            rows.append((f"{label}: cold start (stored term stats)", f"{entry['cold_start']['median_s']} s",
                         verdicts.get(f"cold_start_s_{label}", "")))
        if "cold_start_recount_stats" in entry:
            rows.append((f"{label}: cold start, term stats recounted (before)",
                         f"{entry['cold_start_recount_stats']['median_s']} s", ""))
    conc = results.get("concurrency")
    if conc:
        label = f"concurrency ({conc['mode']}, {conc['users']}x{conc['turns_per_user']})"
        add(f"{label} p50", "concurrent_ms_p50", " ms")
        add(f"{label} p95", "concurrent_ms_p95", " ms")
        add("concurrency errors", "concurrent_errors")
        add("concurrency lost turns", "concurrent_lost_turns")
    add("peak RSS (bench process)", "peak_rss_mb", " MB")
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["| " + " | ".join(r[i].ljust(widths[i]) for i in range(3)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def write_reports(results: dict, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench.json").write_text(json.dumps(results["headline"] | {"detail": results}, indent=2),
                                        encoding="utf-8")
    env = results["environment"]
    md = [f"# Warrant benchmark ({env['when']})", "",
          f"{env['cpus']} CPUs, Python {env['python']}, {env['platform']}; questions: "
          f"{results['warm']['questions']} golden x {results['warm']['repeat']} passes after a warm-up; "
          f"sizes: {env['sizes']}; synthetic chunks fed as Chunk records to ChunkIndex.add_nodes. "
          f"GPU: {env.get('gpu', 'none')}.", "",
          *([f"**Partial results: {env['pending']}.**", ""] if env.get("pending") else []),
          render_table(results), "",
          "Baseline: LlamaIndex `RetrieverQueryEngine.from_args(retriever, response_synthesizer="
          "get_response_synthesizer(response_mode=\"no_text\"))` over the same Chroma index, retriever "
          "and MiniLM embedding, in the same run, interleaved with Warrant's `ask` per question.", ""]
    perturb_above = env.get("perturb_above", PERTURB_ABOVE)
    md.append(
        "How the scale sizes are built: ingest chunks/s is measured with real MiniLM embeddings "
        f"only (the policy corpus, and synthetic sizes up to {perturb_above:,} chunks). Embedding "
        "100k chunks with the model on this CPU would take most of an hour, so the chunks added "
        f"beyond {perturb_above:,} get perturbed real vectors: the mean of the real MiniLM embeddings "
        "of the sentences each synthetic chunk was built from, plus seeded Gaussian noise "
        "(σ = 0.015 per dimension, cosine to the mean ≈ 0.96), renormalised. The 100k index is "
        "therefore real in size and structure (Chroma HNSW, metadata, stored node JSON, term "
        "statistics) and is used for retrieval and `ask` latency, index size, memory and cold "
        "start; its chunks/s row is insertion only and is not an ingest speed.")
    md.append("")
    md.append("Cold start before/after: `cold start, term stats recounted` deletes `term_stats.json` "
              "first, so the process reads every active chunk back to count term frequencies (the "
              "behaviour before they were stored); `cold start (stored term stats)` loads them.")
    md.append("")
    if env.get("gpu", "none") == "none":
        md.append("No GPU was available to this run: every embedding figure is MiniLM on the CPU above; "
                  "there is no GPU embedding-throughput row.")
        md.append("")
    if results.get("concurrency", {}).get("mode") == "service-level":
        md.append("Concurrency is service-level: 20 threads call `WarrantService.chat` (the path the "
                  "Gradio handlers call) without HTTP in front; lost turns are checked in each user's "
                  "history.")
    (out_dir / "bench.md").write_text("\n".join(md) + "\n", encoding="utf-8")


# -- entry point ----------------------------------------------------------------------------------
def run_bench(sizes: list[int], repeat: int, users: int, turns: int, cold_runs: int,
              out_dir: Path | None, work_dir: Path, embed_model=None, max_questions: int = 0,
              scale_cold_runs: int = 0, concurrency: bool = True, perturb_above: int = PERTURB_ABOVE) -> dict:
    """Run every part in temporary homes under `work_dir`; returns the results (and writes reports)."""
    set_offline_environment()
    if embed_model is None:
        from pipeline.embedding import MiniLMEmbedding

        embed_model = MiniLMEmbedding()
    questions = load_questions()
    if max_questions:
        questions = questions[:max_questions]
    base = load_config()
    results: dict = {"environment": {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
        "python": platform.python_version(), "platform": platform.platform(), "sizes": sizes,
        "perturb_above": perturb_above, "gpu": _gpu_name()}}

    home = work_dir / "policies"
    _log("ingest: policy corpus into a fresh home")
    engine, results["ingest_policies"] = measure_policy_ingest(base.with_home(home), embed_model)
    _log(f"warm ask: {len(questions)} questions x {repeat}")
    results["warm"] = measure_warm(engine, questions, repeat=repeat)
    _log(f"cold start: {cold_runs} runs of python -m pipeline ask")
    results["cold_start"] = measure_cold_start(home, questions[0], runs=cold_runs)
    if concurrency:
        from ui.service import WarrantService

        _log(f"concurrency: {users} users x {turns} turns (service-level)")
        service = WarrantService(base.with_home(work_dir / "concurrency"), embed_model=embed_model)
        results["concurrency"] = measure_concurrency_service(service, questions, users, turns)
    if sizes:
        # Reports are written before the long scale phase too, so a partial run still leaves numbers.
        _checkpoint(results, out_dir, pending=f"scale {sizes} still running")
        results["scale"] = measure_scale(base.with_home(work_dir / "scale"), embed_model, sizes, questions,
                                         repeat=1, cold_runs=scale_cold_runs, perturb_above=perturb_above)
    _checkpoint(results, out_dir)
    return results


def _gpu_name() -> str:
    """The CUDA device the embedding model could use, or "none"."""
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    except Exception:  # no torch, or a broken driver: either way no GPU for this run
        return "none"


def _checkpoint(results: dict, out_dir: Path | None, pending: str = "") -> None:
    results["environment"]["pending"] = pending
    results["headline"] = headline(results)
    results["targets"] = check_targets(results["headline"])
    if out_dir is not None:
        write_reports(results, out_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="synthetic corpus sizes, comma-separated")
    parser.add_argument("--quick", action="store_true", help="development run: one size of 2000, fewer repeats")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the golden questions (warm ask)")
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--scale-cold-runs", type=int, default=1,
                        help="cold-start runs at each synthetic size (0 to skip)")
    parser.add_argument("--no-concurrency", action="store_true")
    parser.add_argument("--perturb-above", type=int, default=PERTURB_ABOVE,
                        help="synthetic sizes above this get perturbed real vectors instead of model "
                             "embeddings (latency/size/memory only; ingest speed stays real)")
    parser.add_argument("--out", default=str(REPORTS), help="folder for bench.json and bench.md")
    parser.add_argument("--keep", action="store_true", help="keep the temporary state folders")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()] if args.sizes else []
    repeat, cold_runs = args.repeat, args.cold_runs
    if args.quick:
        sizes, repeat, cold_runs = [2000], 1, 1
    work_dir = Path(tempfile.mkdtemp(prefix="warrant-bench-"))
    try:
        results = run_bench(sizes, repeat, args.users, args.turns, cold_runs, Path(args.out), work_dir,
                            scale_cold_runs=args.scale_cold_runs, concurrency=not args.no_concurrency,
                            perturb_above=args.perturb_above)
    finally:
        if args.keep:
            _log(f"state kept in {work_dir}")
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    print(render_table(results))
    print(f"\nwrote {Path(args.out) / 'bench.json'} and {Path(args.out) / 'bench.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
