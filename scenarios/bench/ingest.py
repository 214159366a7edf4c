"""Ingest speed beside its physical limit: the bare encoder on the same chunk texts, same run.

`python -m scenarios.bench.ingest [--repeat N]` prints one JSON object (with N > 1: the median of
each number over N rounds, and every round under "rounds"). Each round, on fresh state
directories, in one process with the model already loaded and warm:

- `chunks_per_s`: `AnswerEngine.ingest` of the policy folder (read, chunk, embed the chunks and
  their sentences, Chroma writes, term statistics);
- `upload_chunks_per_s`: the same files added through the document library as uploads
  (conversion, chunk audit, duplicate checks, journal, the same indexing, audit records);
- `encoder_chunks_per_s`: `SentenceTransformer.encode` alone on exactly the texts ingest embedded
  for the chunks, with the same batch size: what the CPU can do at best for the chunk vectors;
- `floor_*`: the model alone on everything ingest must embed, the chunk texts and their distinct
  sentences, batched as ingest batches them (`MiniLMEmbedding.embed_many`), with the token count
  of each. No ingest that stores the same vectors can take less, so `limit_vs_encoder`
  (= encoder seconds / floor seconds) is the highest `ingest_vs_encoder` reachable.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pipeline.ground.config import Config, load_config, set_offline_environment


def _bare_encoder(texts: list[str], embed_model) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one `encode` call over all the texts."""
    from pipeline.ingest.embedding import load_sentence_model

    model = load_sentence_model(getattr(embed_model, "device", "cpu"))
    started, cpu = time.perf_counter(), time.process_time()
    model.encode(
        texts,
        batch_size=embed_model.embed_batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return time.perf_counter() - started, time.process_time() - cpu


def encoder_rate(engine, embed_model) -> dict:
    """The bare encoder on exactly the texts `engine` embedded for its active chunks, same batch size."""
    from pipeline.ingest.index import embed_text

    texts = [embed_text(n) for n in engine.index.get_nodes(where={"status": "active"})]
    seconds, cpu = _bare_encoder(texts, embed_model)
    return {
        "encoder_texts": len(texts),
        "encoder_seconds": round(seconds, 2),
        "encoder_cpu_s": round(cpu, 2),
        "encoder_chunks_per_s": round(len(texts) / seconds, 1),
    }


def floor_rate(engine, embed_model) -> dict:
    """The model alone on the chunk texts and their distinct sentences, batched as ingest does."""
    from pipeline.ingest.index import embed_text
    from pipeline.language.text import split_sentences

    nodes = engine.index.get_nodes(where={"status": "active"})
    chunks = list(dict.fromkeys(embed_text(n) for n in nodes))
    known = set(chunks)
    sentences = [s for s in dict.fromkeys(s for n in nodes for s in split_sentences(n.get_content())) if s not in known]
    tokenizer, longest = embed_model._model.tokenizer, embed_model._model.max_seq_length

    def tokens(texts: list[str]) -> int:
        return sum(len(ids) for ids in tokenizer(texts, truncation=True, max_length=longest)["input_ids"])

    started, cpu = time.perf_counter(), time.process_time()
    embed_model.embed_many(chunks + sentences)
    seconds = time.perf_counter() - started
    return {
        "floor_texts": len(chunks) + len(sentences),
        "floor_seconds": round(seconds, 2),
        "floor_cpu_s": round(time.process_time() - cpu, 2),
        "chunk_tokens": tokens(chunks),
        "sentence_tokens": tokens(sentences),
        "distinct_sentences": len(sentences),
    }


def upload_rate(config: Config, embed_model) -> dict:
    """Every file of the policy folder added through the document library, as an admin's upload."""
    from governance.audit import AuditLog
    from governance.identity import Identity
    from governance.library import DocumentLibrary
    from pipeline.engine import AnswerEngine
    from pipeline.ingest.documents import find_documents

    engine = AnswerEngine(config, embed_model=embed_model)
    library = DocumentLibrary(engine, AuditLog(config.audit_path), config)
    files = [(p.read_bytes(), p.name) for p in find_documents(config.docs_dir)]
    started, cpu = time.perf_counter(), time.process_time()
    prepared = [library.prepare(data, name) for data, name in files]
    library.add(Identity("local:admin", "admin", "admin"), prepared)
    seconds = time.perf_counter() - started
    chunks = sum(len(p.chunks) for p in prepared)
    return {
        "upload_chunks": chunks,
        "upload_seconds": round(seconds, 2),
        "upload_cpu_s": round(time.process_time() - cpu, 2),
        "upload_chunks_per_s": round(chunks / seconds, 1),
    }


def measure_ingest(config: Config, embed_model, work_dir: Path) -> dict:
    """Folder ingest, library upload and the bare encoder on the same texts (see the module doc)."""
    from pipeline.engine import AnswerEngine

    embed_model.get_text_embedding_batch(["warm up the encoder", "and its tokenizer"] * 8)
    engine = AnswerEngine(config.with_home(work_dir / "ingest"), embed_model=embed_model)
    started, cpu = time.perf_counter(), time.process_time()
    report = engine.ingest(config.docs_dir)
    seconds = time.perf_counter() - started
    out = {
        "chunks": report.chunks_added,
        "seconds": round(seconds, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
        "chunks_per_s": round(report.chunks_added / seconds, 1),
    }
    out.update(upload_rate(config.with_home(work_dir / "upload"), embed_model))
    out.update(encoder_rate(engine, embed_model))
    out.update(floor_rate(engine, embed_model))
    out["limit_vs_encoder"] = round(out["encoder_seconds"] / out["floor_seconds"], 2)
    out["limit_vs_encoder_cpu"] = round(out["encoder_cpu_s"] / out["floor_cpu_s"], 2)
    out["ingest_vs_floor"] = round(out["floor_seconds"] / out["seconds"], 2)
    out["upload_vs_floor"] = round(out["floor_seconds"] / out["upload_seconds"], 2)
    out["ingest_vs_encoder"] = round(out["chunks_per_s"] / out["encoder_chunks_per_s"], 2)
    out["upload_vs_encoder"] = round(out["upload_chunks_per_s"] / out["encoder_chunks_per_s"], 2)
    # CPU time is steadier than wall time on a machine others are using too.
    out["ingest_vs_encoder_cpu"] = round(
        (out["encoder_cpu_s"] / out["encoder_texts"]) / (out["cpu_s"] / out["chunks"]), 2
    )
    out["embed_batch_size"] = embed_model.embed_batch_size
    return out


def medians(rounds: list[dict]) -> dict:
    """Each number's median over the rounds (the rounds themselves under "rounds")."""
    out = {k: round(statistics.median(r[k] for r in rounds), 2) for k in rounds[0]}
    out.update(repeat=len(rounds), rounds=rounds)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench.ingest", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds, each on fresh state directories; "
        "with more than one, the median of each number is printed (default: 1)",
    )
    args = parser.parse_args(argv)
    set_offline_environment()
    from pipeline.ingest.embedding import MiniLMEmbedding

    config, embed_model = load_config(), MiniLMEmbedding(memo_texts=0)  # each round embeds afresh
    rounds = []
    for _ in range(max(1, args.repeat)):
        work = Path(tempfile.mkdtemp(prefix="warrant-ingest-"))
        try:
            rounds.append(measure_ingest(config, embed_model, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(rounds[0] if len(rounds) == 1 else medians(rounds), indent=1))


if __name__ == "__main__":
    main()
