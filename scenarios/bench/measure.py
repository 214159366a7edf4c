"""`python -m scenarios.bench`: latency, cold start, ingest, scale and concurrency, against a baseline.

Every latency is the median (p50) and p95 over repeated passes after a warm-up; every speed is also
given as a ratio to LlamaIndex's standard `RetrieverQueryEngine` over the same Chroma index and the
same embedding model, measured in the same run with an LLM-free synthesiser (`no_text`), so both
sides embed, retrieve and build a response object but neither calls an LLM.

Results go to `scenarios/reports/bench.json` (keys in docs/benchmarks.md) and `bench.md`. The parts
live in small modules beside this one: `engines` (the two engines), `cold_start`, `ingest`, `scale`
(synthetic sizes), `concurrency_http` (the running app under concurrent users), `concurrency_multi`
(several app processes and a Chroma server), `concurrency_service` (the same at the service layer),
`gpu` (a lent GPU's embedding throughput, merged from a saved result), `report` (headline keys,
targets, bench.md) and `stats` (percentiles, memory, disk).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pipeline.ground.config import REPO_ROOT, Config, load_config, set_offline_environment
from scenarios.bench import gpu as bench_gpu
from scenarios.bench.cold_start import measure_cold_start
from scenarios.bench.concurrency_http import measure_concurrency_http
from scenarios.bench.concurrency_multi import measure_concurrency_multi
from scenarios.bench.concurrency_service import measure_concurrency_service
from scenarios.bench.engines import make_baseline, make_engine, make_reranker_baseline
from scenarios.bench.ingest import encoder_rate, upload_rate
from scenarios.bench.report import PERTURB_ABOVE, TIMING_KEYS, check_targets, headline, render_table, write_reports
from scenarios.bench.scale import measure_scale
from scenarios.bench.stats import disk_usage_mb, summarise

REPORTS = Path(__file__).resolve().parents[1] / "reports"
GOLDEN = REPO_ROOT / "data" / "golden"
CONCURRENCY_MODES = ("both", "http", "service", "none")  # "both": HTTP headline + service-level secondary


# -- small helpers --------------------------------------------------------------------------------
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


# -- warm ask ------------------------------------------------------------------------------------
def measure_warm(engine, questions: list[str], repeat: int = 3, warmup: int = 5) -> dict:
    """Warm `ask` latency beside two LlamaIndex baselines on the same index: the plain
    `RetrieverQueryEngine` and the same with `SentenceTransformerRerank` (a cross-encoder over the
    top-k). Interleaved per question, rotating who goes first, so load noise hits all three."""
    sides = [("ask", None), ("baseline", make_baseline(engine)), ("reranker", make_reranker_baseline(engine))]
    for q in questions[:warmup]:
        engine.ask(q, log=False)
        for _, other in sides[1:]:
            other.query(q)
    times: dict[str, list[float]] = {name: [] for name, _ in sides}
    parts: dict[str, list[float]] = {k: [] for k in TIMING_KEYS}
    decisions: dict[str, int] = {}
    for r in range(repeat):
        for i, q in enumerate(questions):
            shift = (i + r) % len(sides)
            for name, other in sides[shift:] + sides[:shift]:
                t = time.perf_counter()
                if other is None:
                    answer = engine.ask(q, actor="bench", session="bench")
                    times[name].append((time.perf_counter() - t) * 1000)
                    for k in TIMING_KEYS:
                        if k in answer.timings_ms:
                            parts[k].append(answer.timings_ms[k])
                    decisions[answer.decision] = decisions.get(answer.decision, 0) + 1
                else:
                    other.query(q)
                    times[name].append((time.perf_counter() - t) * 1000)
    ask, base, rerank = summarise(times["ask"]), summarise(times["baseline"]), summarise(times["reranker"])
    return {
        "ask": ask,
        "baseline": base,
        "reranker_baseline": rerank,
        "breakdown": {k: summarise(v) for k, v in parts.items()},
        "decisions": decisions,
        "questions": len(questions),
        "repeat": repeat,
        "p50_vs_baseline": round(ask["p50"] / base["p50"], 2),
        "p95_vs_baseline": round(ask["p95"] / base["p95"], 2),
        "p95_vs_reranker_baseline": round(ask["p95"] / rerank["p95"], 2),
    }


# -- ingest ---------------------------------------------------------------------------------
def measure_policy_ingest(config: Config, embed_model) -> tuple[object, dict]:
    """Fresh home: ingest the policy folder; returns the engine (reused for the warm runs)."""
    engine = make_engine(config, embed_model)
    started = time.perf_counter()
    report = engine.ingest(config.docs_dir)
    seconds = time.perf_counter() - started
    return engine, {
        "documents": report.documents,
        "chunks": report.chunks_added,
        "seconds": round(seconds, 2),
        "chunks_per_s": round(report.chunks_added / seconds, 1) if seconds else 0.0,
        "embed_batch_size": getattr(embed_model, "embed_batch_size", None),
        "index_mb": disk_usage_mb(config.chroma_dir),
    }


# -- entry point ----------------------------------------------------------------------------------
def run_bench(
    sizes: list[int],
    repeat: int,
    users: int,
    turns: int,
    cold_runs: int,
    out_dir: Path | None,
    work_dir: Path,
    embed_model=None,
    max_questions: int = 0,
    scale_cold_runs: int = 0,
    concurrency: str = "both",
    perturb_above: int = PERTURB_ABOVE,
    warmup: int = 5,
    processes: int = 2,
) -> dict:
    """Run every part in temporary homes under `work_dir`; returns the results (and writes reports).

    `concurrency`: "http" (the running app, the headline `concurrent_*` keys), "service"
    (`WarrantService.chat` in this process, `service_concurrent_*`), "both" or "none". With HTTP
    and `processes` >= 2, the same load also runs against that many app processes over one state
    directory and a Chroma server (`multi_concurrent_*`).
    """
    if concurrency not in CONCURRENCY_MODES:
        raise ValueError(f"concurrency must be one of {CONCURRENCY_MODES}")
    set_offline_environment()
    if embed_model is None:
        from pipeline.ingest.embedding import MiniLMEmbedding

        embed_model = MiniLMEmbedding(memo_texts=0)  # every ingest measured embeds, none recalls
    questions = load_questions()
    if max_questions:
        questions = questions[:max_questions]
    base = load_config()
    results: dict = {
        "environment": {
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sizes": sizes,
            "perturb_above": perturb_above,
            "gpu": _gpu_name(),
        }
    }

    home = work_dir / "policies"
    _log("ingest: policy corpus into a fresh home")
    engine, results["ingest_policies"] = measure_policy_ingest(base.with_home(home), embed_model)
    _log("ingest: the same files as uploads, and the bare encoder on the same chunk texts")
    results["ingest_policies"].update(upload_rate(base.with_home(work_dir / "upload"), embed_model))
    results["ingest_policies"].update(encoder_rate(engine, embed_model))
    _log(f"warm ask: {len(questions)} questions x {repeat}")
    results["warm"] = measure_warm(engine, questions, repeat=repeat)
    _log(f"cold start: {cold_runs} runs of python -m pipeline ask")
    results["cold_start"] = measure_cold_start(home, questions[0], runs=cold_runs)
    if concurrency != "none":
        from ui.service import WarrantService

        # One state directory for both: ingested here, then served by the app, then used in-process.
        service = WarrantService(base.with_home(work_dir / "concurrency"), embed_model=embed_model)
        if concurrency in ("http", "both"):
            _log(f"concurrency: {users} users x {turns} turns through HTTP (python app.py on loopback)")
            results["concurrency"] = measure_concurrency_http(service, questions, users, turns, warmup=warmup)
            if processes >= 2:
                _log(
                    f"concurrency: {users} users x {turns} turns through HTTP, {processes} app processes "
                    "over one state directory and a Chroma server"
                )
                results["concurrency_multi"] = measure_concurrency_multi(
                    service, questions, users, turns, processes=processes, warmup=warmup
                )
        if concurrency in ("service", "both"):
            _log(f"concurrency: {users} users x {turns} turns (service-level)")
            results["concurrency_service"] = measure_concurrency_service(service, questions, users, turns)
    bench_gpu.merge_into_results(results)  # a lent GPU's saved row, if one was measured
    if sizes:
        # Reports are written before the long scale phase too, so a partial run still leaves numbers.
        _checkpoint(results, out_dir, pending=f"scale {sizes} still running")
        results["scale"] = measure_scale(
            base.with_home(work_dir / "scale"),
            embed_model,
            sizes,
            questions,
            repeat=1,
            cold_runs=scale_cold_runs,
            perturb_above=perturb_above,
        )
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
    parser.add_argument(
        "--scale-cold-runs", type=int, default=1, help="cold-start runs at each synthetic size (0 to skip)"
    )
    parser.add_argument(
        "--concurrency",
        choices=CONCURRENCY_MODES,
        default="both",
        help="http: the running app (headline); service: WarrantService.chat; both",
    )
    parser.add_argument("--no-concurrency", action="store_true", help="same as --concurrency none")
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="app processes for the multi-process HTTP row (Chroma server; below 2: skipped)",
    )
    parser.add_argument(
        "--perturb-above",
        type=int,
        default=PERTURB_ABOVE,
        help="synthetic sizes above this get perturbed real vectors instead of model "
        "embeddings (latency/size/memory only; ingest speed stays real)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help=f"folder for bench.json and bench.md (default {REPORTS}; with --quick, a "
        "temporary folder, so a development run never replaces the full results)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary state folders")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()] if args.sizes else []
    repeat, cold_runs = args.repeat, args.cold_runs
    if args.quick:
        sizes, repeat, cold_runs = [2000], 1, 1
    out = (
        Path(args.out) if args.out else (Path(tempfile.gettempdir()) / "warrant-bench-quick" if args.quick else REPORTS)
    )
    work_dir = Path(tempfile.mkdtemp(prefix="warrant-bench-"))
    try:
        results = run_bench(
            sizes,
            repeat,
            args.users,
            args.turns,
            cold_runs,
            out,
            work_dir,
            scale_cold_runs=args.scale_cold_runs,
            concurrency="none" if args.no_concurrency else args.concurrency,
            perturb_above=args.perturb_above,
            processes=args.processes,
        )
    finally:
        if args.keep:
            _log(f"state kept in {work_dir}")
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    print(render_table(results))
    print(f"\nwrote {out / 'bench.json'} and {out / 'bench.md'}")
    return 0
