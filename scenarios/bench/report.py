"""The benchmark's report: the flat headline keys of bench.json, target verdicts, bench.md."""

from __future__ import annotations

import json
import math
from pathlib import Path

from scenarios.bench import gpu as bench_gpu
from scenarios.bench.stats import peak_rss_mb

TIMING_KEYS = ("embed", "retrieve", "support", "synthesise", "verify", "log", "total")
PERTURB_ABOVE = 10_000
TARGETS = {  # key: (limit, "<=" or ">=")
    "ask_ms_p95": (250.0, "<="),
    "ask_p95_vs_reranker_baseline": (1.25, "<="),
    "ask_ms_p95_100k": (400.0, "<="),
    "ingest_chunks_per_s_synthetic": (150.0, ">="),
    "ingest_vs_encoder": (0.5, ">="),
    "cold_start_s": (20.0, "<="),
    "cold_start_s_100k": (20.0, "<="),
    "concurrent_errors": (0, "<="),
    "concurrent_lost_turns": (0, "<="),
    "concurrent_ms_p95": (1500.0, "<="),
}


def size_label(size: int | str) -> str:
    """ "100k" for 100000; sizes under 1,000 (tests, development runs) keep their number."""
    size = int(size)
    return f"{size // 1000}k" if size >= 1000 else str(size)


def headline(results: dict) -> dict:
    """The flat keys others read from bench.json."""
    warm, ingest = results["warm"], results["ingest_policies"]
    out = {
        "ask_ms_p50": warm["ask"]["p50"],
        "ask_ms_p95": warm["ask"]["p95"],
        "baseline_ask_ms_p50": warm["baseline"]["p50"],
        "baseline_ask_ms_p95": warm["baseline"]["p95"],
        "ask_p95_vs_baseline": warm["p95_vs_baseline"],
        "reranker_baseline_ask_ms_p50": warm.get("reranker_baseline", {}).get("p50"),
        "reranker_baseline_ask_ms_p95": warm.get("reranker_baseline", {}).get("p95"),
        "ask_p95_vs_reranker_baseline": warm.get("p95_vs_reranker_baseline"),
        "cold_start_s": results["cold_start"]["median_s"],
        "cold_start_peak_rss_mb": results["cold_start"].get("peak_rss_mb"),
        "ingest_chunks_per_s": ingest["chunks_per_s"],
        "ingest_encoder_chunks_per_s": ingest.get("encoder_chunks_per_s"),
        "upload_chunks_per_s": ingest.get("upload_chunks_per_s"),
        "ingest_vs_encoder": (
            round(ingest["chunks_per_s"] / ingest["encoder_chunks_per_s"], 2)
            if ingest.get("encoder_chunks_per_s")
            else None
        ),
        "embed_batch_size": ingest.get("embed_batch_size"),
    }
    scale = results.get("scale", {})
    for size, entry in scale.items():
        label = size_label(size)
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
            out[f"cold_start_peak_rss_mb_{label}"] = entry["cold_start"].get("peak_rss_mb")
        if "cold_start_recount_stats" in entry:
            out[f"cold_start_s_{label}_recount_stats"] = entry["cold_start_recount_stats"]["median_s"]
    out.setdefault("ask_ms_p95_100k", None)  # present (null) when the 100k size was not run
    # concurrent_*: through HTTP against the running app; service_concurrent_*: WarrantService.chat.
    # multi_concurrent_*: through HTTP against several app processes and a Chroma server.
    for prefix, conc in (
        ("concurrent", results.get("concurrency", {})),
        ("multi_concurrent", results.get("concurrency_multi", {})),
        ("service_concurrent", results.get("concurrency_service", {})),
    ):
        out[f"{prefix}_ms_p50"] = conc.get("latency_ms", {}).get("p50")
        out[f"{prefix}_ms_p95"] = conc.get("latency_ms", {}).get("p95")
        out[f"{prefix}_errors"] = conc.get("errors")
        out[f"{prefix}_lost_turns"] = conc.get("lost_turns")
    out["concurrent_mode"] = results.get("concurrency", {}).get("mode")
    out["multi_concurrent_processes"] = results.get("concurrency_multi", {}).get("processes")
    if results.get("gpu_embed"):
        out.update(bench_gpu.headline_keys(results["gpu_embed"]))
    out["peak_rss_mb"] = peak_rss_mb()  # the bench process itself (the cold starts: cold_start_peak_rss_mb*)
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
    add(
        "reranker baseline (RetrieverQueryEngine + SentenceTransformerRerank) p50",
        "reranker_baseline_ask_ms_p50",
        " ms",
    )
    add("reranker baseline p95", "reranker_baseline_ask_ms_p95", " ms")
    add("ask p95 / reranker baseline p95", "ask_p95_vs_reranker_baseline", "x")
    for k in TIMING_KEYS[:-1]:
        b = warm["breakdown"][k]
        rows.append((f"  breakdown {k} p50 / p95", f"{b['p50']} / {b['p95']} ms (n={b['n']})", ""))
    add("cold start (python -m pipeline ask)", "cold_start_s", " s")
    add("cold start: peak RSS of that process", "cold_start_peak_rss_mb", " MB")
    add("ingest, policy corpus", "ingest_chunks_per_s", " chunks/s")
    add("upload through the document library, same files", "upload_chunks_per_s", " chunks/s")
    add(
        "bare encoder (SentenceTransformer.encode), same chunk texts and batch",
        "ingest_encoder_chunks_per_s",
        " chunks/s",
    )
    add("ingest / bare encoder (target >= 0.5)", "ingest_vs_encoder", "x")
    for size, entry in results.get("scale", {}).items():
        label = size_label(size)
        if "ingest_chunks_per_s" in entry:
            rows.append(
                (
                    f"{label}: ingest (embedded with MiniLM)",
                    f"{entry['ingest_chunks_per_s']} chunks/s",
                    verdicts.get("ingest_chunks_per_s_synthetic", ""),
                )
            )
        else:
            rows.append(
                (
                    f"{label}: indexing only (perturbed vectors, not an ingest speed)",
                    f"{entry['index_chunks_per_s']} chunks/s",
                    "",
                )
            )
        rows.append(
            (f"{label}: retrieve p50 / p95", f"{entry['retrieve_ms']['p50']} / {entry['retrieve_ms']['p95']} ms", "")
        )
        rows.append(
            (
                f"{label}: ask p50 / p95",
                f"{entry['ask_ms']['p50']} / {entry['ask_ms']['p95']} ms",
                verdicts.get(f"ask_ms_p95_{label}", ""),
            )
        )
        rows.append(
            (
                f"{label}: baseline p50 / p95 (ratio)",
                f"{entry['baseline_ms']['p50']} / {entry['baseline_ms']['p95']} ms ({entry['ask_p95_vs_baseline']}x)",
                "",
            )
        )
        rows.append((f"{label}: index on disk", f"{entry['index_mb']} MB", ""))
        rows.append((f"{label}: peak RSS (bench process, so far)", f"{entry['peak_rss_mb']} MB", ""))
        if "cold_start" in entry:
            rows.append(
                (
                    f"{label}: cold start (stored term stats)",
                    f"{entry['cold_start']['median_s']} s",
                    verdicts.get(f"cold_start_s_{label}", ""),
                )
            )
            rows.append(
                (f"{label}: cold start, peak RSS of that process", f"{entry['cold_start'].get('peak_rss_mb')} MB", "")
            )
        if "cold_start_recount_stats" in entry:
            rows.append(
                (
                    f"{label}: cold start, term stats recounted (before)",
                    f"{entry['cold_start_recount_stats']['median_s']} s",
                    "",
                )
            )
    for prefix, key in (
        ("concurrent", "concurrency"),
        ("multi_concurrent", "concurrency_multi"),
        ("service_concurrent", "concurrency_service"),
    ):
        conc = results.get(key)
        if conc:
            shape = f", {conc['processes']} processes + Chroma server" if conc.get("processes") else ""
            label = f"concurrency ({conc['mode']}{shape}, {conc['users']}x{conc['turns_per_user']})"
            add(f"{label} p50", f"{prefix}_ms_p50", " ms")
            add(f"{label} p95", f"{prefix}_ms_p95", " ms")
            add(f"{label} errors", f"{prefix}_errors")
            add(f"{label} lost turns", f"{prefix}_lost_turns")
    add("peak RSS (bench process)", "peak_rss_mb", " MB")
    gpu = results.get("gpu_embed")
    if gpu:
        for key, best in gpu.get("best", {}).items():
            rows.append(
                (
                    f"GPU ({gpu['device']}, separate run): embed {key.replace('_', ', ', 1)}",
                    f"{best['chunks_per_s']} chunks/s (batch {best['batch_size']})",
                    "",
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["| " + " | ".join(r[i].ljust(widths[i]) for i in range(3)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def write_reports(results: dict, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench.json").write_text(
        json.dumps(results["headline"] | {"detail": results}, indent=2), encoding="utf-8"
    )
    env = results["environment"]
    md = [
        f"# Warrant benchmark ({env['when']})",
        "",
        f"{env['cpus']} CPUs, Python {env['python']}, {env['platform']}; questions: "
        f"{results['warm']['questions']} golden x {results['warm']['repeat']} passes after a warm-up; "
        f"sizes: {env['sizes']}; synthetic chunks fed as Chunk records to ChunkIndex.add_nodes. "
        f"GPU: {env.get('gpu', 'none')}.",
        "",
        *([f"**Partial results: {env['pending']}.**", ""] if env.get("pending") else []),
        render_table(results),
        "",
        "Baseline: LlamaIndex `RetrieverQueryEngine.from_args(retriever, response_synthesizer="
        'get_response_synthesizer(response_mode="no_text"))` over the same Chroma index, retriever '
        "and MiniLM embedding, in the same run, interleaved with Warrant's `ask` per question.",
        "",
    ]
    if results.get("scale"):
        perturb_above = env.get("perturb_above", PERTURB_ABOVE)
        md.append(
            "How the scale sizes are built: ingest chunks/s is measured with real MiniLM embeddings "
            f"only (the policy corpus, and synthetic sizes up to {perturb_above:,} chunks). Embedding "
            "100k chunks with the model on this CPU would take most of an hour, so the chunks added "
            f"beyond {perturb_above:,} get perturbed real vectors: the mean of the real MiniLM embeddings "
            "of the sentences each synthetic chunk was built from, plus seeded Gaussian noise "
            "(σ = 0.015 per dimension, cosine to the mean ≈ 0.96), renormalised, and as stored sentence "
            "vectors the real embeddings of those sentences. The 100k index is therefore real in size and "
            "structure (Chroma HNSW, metadata, stored node JSON, sentence vectors, term statistics) and is "
            "used for retrieval and `ask` latency, index size, memory and cold start; its chunks/s row is "
            "insertion only and is not an ingest speed."
        )
        md.append("")
        md.append(
            "Cold start before/after: `cold start, term stats recounted` deletes `term_stats.json` "
            "first, so the process reads every active chunk back to count term frequencies (the "
            "behaviour before they were stored); `cold start (stored term stats)` loads them."
        )
        md.append("")
    md.append(
        "Cold-start peak RSS is the `python -m pipeline ask` process's own: it runs as the only "
        "child of a small wrapper process, because a child started from the bench itself would "
        "report the bench's peak (Linux keeps `ru_maxrss` across fork and exec)."
    )
    md.append("")
    conc = results.get("concurrency", {})
    if conc.get("mode") == "http":
        md.append(
            f"Concurrency: `python app.py` on 127.0.0.1 with a temporary state directory (index "
            f"ingested and {conc['users']} accounts created before it starts; it was serving after "
            f"{conc['app_start_s']} s); each user logs in with `POST /login`, then all ask at once "
            "through Gradio's queue API as the page does (`queue/join`, result from the "
            "`queue/data` event stream, one Gradio session per user, the stored conversation "
            f"shown back each turn), after {conc.get('warmup', 0)} warm-up turns by another account. Lost "
            "turns: answered over HTTP but missing from the user's stored history, read back after "
            f"the app stopped (at most {conc.get('sessions_per_user_max')} conversation per user). "
            f"Throughput {conc['turns_per_s']} turns/s; the simulated browsers themselves used "
            f"{conc.get('client_cpu_share', 0):.0%} of the CPUs the app runs on."
        )
        md.append("")
    multi = results.get("concurrency_multi", {})
    if multi:
        md.append(
            f"Several processes: the same load against {multi['processes']} `python app.py` processes "
            "over one state directory, the index on a Chroma server (`chroma run` on 127.0.0.1, the "
            "index copied from the run above, nothing embedded again); each user logs in on the "
            "first process and alternates between the processes turn by turn with that cookie, as "
            "behind a reverse proxy without sticky sessions. Lost turns as above (one Gradio session "
            f"per user and process). Throughput {multi['turns_per_s']} turns/s; both processes and "
            "the Chroma server share the same CPUs as the single process above."
        )
        md.append("")
    if results.get("concurrency_service"):
        md.append(
            "Service-level concurrency (secondary): the same number of threads call "
            "`WarrantService.chat` (what the Gradio handler calls) in the bench process, without "
            "HTTP or Gradio in front."
        )
        md.append("")
    if env.get("gpu", "none") == "none":
        md.append(
            "This run had no GPU: every embedding figure above is MiniLM on the CPU"
            + (
                " (the GPU rows come from a separate run on a lent GPU machine, below)."
                if results.get("gpu_embed")
                else "; there is no GPU embedding-throughput row."
            )
        )
        md.append("")
    if results.get("gpu_embed"):
        md.extend(bench_gpu.markdown_section(results["gpu_embed"]))
    (out_dir / "bench.md").write_text("\n".join(md) + "\n", encoding="utf-8")
