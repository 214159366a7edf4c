"""Scale: one index grown with synthetic chunks through the benchmark's sizes, measured at each.

Up to `perturb_above` chunks are embedded with the model (a real ingest speed, sentence vectors
included); beyond it chunks get stand-in vectors built from real embeddings (`perturbed_vector`,
`_sentence_rows`), so the 100k size measures retrieval, `ask`, index size, memory and cold start.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pipeline.ground.config import Config
from scenarios.bench.cold_start import measure_cold_start
from scenarios.bench.engines import make_baseline, make_engine
from scenarios.bench.report import PERTURB_ABOVE
from scenarios.bench.stats import disk_usage_mb, peak_rss_mb, summarise


def _log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _sentence_rows(
    chunk_id: str, text: str, sources: list[int], sentence_vectors: np.ndarray
) -> tuple[str, int, int, bytes]:
    """A stored sentence-vector row for a synthetic chunk: one row per sentence of its text, the
    real vector of the source sentence at that position (the last one if the split differs)."""
    from pipeline.language.text import split_sentences

    count = max(1, len(split_sentences(text)))
    rows = sentence_vectors[[sources[min(j, len(sources) - 1)] for j in range(count)]]
    return chunk_id, count, rows.shape[1], rows.astype(np.float16).tobytes()


def add_synthetic(
    engine, material, count: int, start: int, seed: int = 8, batch: int = 2000, sentence_vectors=None
) -> float:
    """Index `count` synthetic chunks (Chunk → chunk_to_node → ChunkIndex.add_nodes); seconds.

    With `sentence_vectors` (real embeddings of `material.sentences`), chunks get perturbed real
    vectors instead of being embedded by the model, and each chunk's stored sentence vectors (what
    `ask` reads to pick answer sentences) are the real vectors of the sentences it was built from;
    the seconds then cover indexing only.
    """
    from pipeline.ingest.index import chunk_to_node
    from scenarios.bench.synthetic import perturbed_vector, synthetic_chunks_with_sources

    seconds = 0.0
    for offset in range(start, start + count, batch):
        n = min(batch, start + count - offset)
        nodes, node_sources = [], []
        for i, (chunk, sources) in enumerate(synthetic_chunks_with_sources(n, material, seed=seed, start=offset)):
            node = chunk_to_node(chunk)
            if sentence_vectors is not None:
                node.embedding = perturbed_vector(sources, sentence_vectors, offset + i, seed=seed)
            nodes.append(node)
            node_sources.append(sources)
        t = time.perf_counter()
        if sentence_vectors is not None and hasattr(engine.index, "sentence_vectors"):
            # Stand-in sentence vectors too: embedding 90k chunks' sentences would take hours.
            engine.index.add_nodes(nodes, sentence_vectors=False)
            engine.index.sentence_vectors.put_rows(
                [
                    _sentence_rows(node.node_id, node.get_content(), sources, sentence_vectors)
                    for node, sources in zip(nodes, node_sources, strict=False)
                ]
            )
        else:
            engine.index.add_nodes(nodes)
        seconds += time.perf_counter() - t
        done = offset + n - start
        _log(f"  synthetic {offset + n:,} chunks indexed ({done / seconds:.0f} chunks/s)")
    return seconds


def measure_scale(
    config: Config,
    embed_model,
    sizes: list[int],
    questions: list[str],
    repeat: int = 1,
    cold_runs: int = 0,
    perturb_above: int = PERTURB_ABOVE,
) -> dict:
    """Grow one index (policies + synthetic chunks) through `sizes`, measuring at each size.

    Sizes up to `perturb_above` are embedded with the model (their chunks/s is a real ingest
    speed); the chunks added to reach a larger size get perturbed real vectors, so that size
    measures retrieval, `ask`, index size, memory and cold start, not ingest.
    """
    from scenarios.bench.synthetic import load_material

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
            # One array up front: converting the list per chunk cost ~30 ms a chunk.
            sentence_vectors = np.asarray(embed_model.get_text_embedding_batch(material.sentences))
            _log(f"scale: embedded {len(material.sentences)} source sentences in {time.perf_counter() - t:.1f}s")
        _log(
            f"scale: adding {add:,} synthetic chunks to reach {size:,} "
            f"({'perturbed real vectors' if perturbed else 'embedded with the model'})"
        )
        seconds = add_synthetic(
            engine, material, add, start=have, sentence_vectors=sentence_vectors if perturbed else None
        )
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
            "chunks": engine.index.count(),
            "synthetic_chunks": size,
            "vectors": "perturbed" if perturbed else "embedded",
            # With perturbed vectors this is Chroma + LlamaIndex insertion only, not an ingest speed.
            "ingest_seconds": round(seconds, 1),
            ("index_chunks_per_s" if perturbed else "ingest_chunks_per_s"): round(add / seconds, 1),
            "refresh_term_stats_s": round(refresh_s, 2),
            "retrieve_ms": summarise(retrieve_ms),
            "ask_ms": summarise(ask_ms),
            "baseline_ms": summarise(base_ms),
            "index_mb": disk_usage_mb(config.chroma_dir),
            "peak_rss_mb": peak_rss_mb(),
        }
        entry["ask_p95_vs_baseline"] = round(entry["ask_ms"]["p95"] / entry["baseline_ms"]["p95"], 2)
        if cold_runs:
            entry["cold_start"] = measure_cold_start(config.home, questions[0], cold_runs)
            if size == max(sizes):
                # The same start without the stored term statistics: what it cost before they were kept.
                entry["cold_start_recount_stats"] = measure_cold_start(
                    config.home, questions[0], 1, drop_term_stats=True
                )
        results[str(size)] = entry
        _log(f"scale {size:,}: ask p95 {entry['ask_ms']['p95']} ms, index {entry['index_mb']} MB")
    return results
