"""MiniLM embedding throughput on a lent GPU: a separate row of the benchmark, not the CPU target.

Three parts, each run where it belongs:

- `prepare(folder)` (here, on the development machine): a copy of the installed all-MiniLM-L6-v2
  with its weights saved as fp16 safetensors (~45 MB, under the device's 64 MiB carry limit), the
  real policy chunk texts, 10k synthetic chunk texts (`scenarios.bench.synthetic`, seed 8) and the CPU's
  own fp32 vectors of the policy chunks, as the reference for a cosine check.
- `python3 scenarios/bench/gpu.py run FOLDER OUT.json` (on the GPU machine: torch and
  sentence-transformers only, none of this project's packages): chunks/s at several batch sizes,
  fp32 (the fp16 weights cast up) and fp16, and the minimum cosine to the CPU's vectors.
- `merge_into_results(results)` / `python -m scenarios.bench.gpu merge` (here): the saved device
  result (`scenarios/reports/bench_gpu.json`) as the `gpu_embed` section of bench.json and bench.md.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import time
from pathlib import Path

REPORT = Path(__file__).resolve().parents[1] / "reports" / "bench_gpu.json"
BATCH_SIZES = (32, 128, 512)
SYNTHETIC_CHUNKS = 10_000


# -- here: the folder that travels to the device -----------------------------------------------
def policy_chunk_texts(docs_dir: Path, min_words: int = 40, max_words: int = 320) -> list[str]:
    """The texts ingest embeds for `docs_dir` (every metadata key is excluded from embedding)."""
    from pipeline.ingest.chunking import chunk_document
    from pipeline.ingest.documents import find_documents, read_document

    folder = Path(docs_dir).resolve()
    return [
        chunk.text
        for path in find_documents(folder)
        for chunk in chunk_document(read_document(path, folder), min_words, max_words)
    ]


def prepare(folder: Path, synthetic: int = SYNTHETIC_CHUNKS) -> dict:
    """Write the model (fp16 weights), the chunk texts and the CPU reference vectors to `folder`."""
    import torch
    from safetensors.torch import load_file, save_file

    from pipeline.ground.config import load_config
    from pipeline.ingest.embedding import load_sentence_model, model_path
    from scenarios.bench.synthetic import load_material, synthetic_chunks

    config = load_config()
    folder = Path(folder)
    model_dir = folder / "model"
    shutil.rmtree(model_dir, ignore_errors=True)
    shutil.copytree(
        model_path(), model_dir, ignore=shutil.ignore_patterns("model.safetensors", "README.md", ".gitattributes")
    )
    weights = load_file(str(Path(model_path()) / "model.safetensors"))
    save_file(
        {k: v.to(torch.float16) if v.is_floating_point() else v for k, v in weights.items()},
        str(model_dir / "model.safetensors"),
        metadata={"format": "pt"},
    )
    policies = policy_chunk_texts(config.docs_dir, config.chunk_min_words, config.chunk_max_words)
    material = load_material(config.docs_dir, config.chunk_min_words, config.chunk_max_words)
    texts = {
        "policies": policies,
        f"synthetic_{synthetic // 1000}k": [c.text for c in synthetic_chunks(synthetic, material, seed=8)],
    }
    (folder / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    reference = load_sentence_model().encode(policies, normalize_embeddings=True, convert_to_numpy=True)
    (folder / "cpu_reference.json").write_text(json.dumps(reference.round(6).tolist()), encoding="utf-8")
    return {name: len(items) for name, items in texts.items()}


# -- on the device: torch + sentence-transformers only ---------------------------------------
def _chunks_per_s(model, texts: list[str], batch: int, repeats: int) -> tuple[float, list[float]]:
    import torch

    model.encode(texts[: batch * 2], batch_size=batch, normalize_embeddings=True)  # warm-up, this batch size
    rates = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t = time.perf_counter()
        model.encode(texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
        torch.cuda.synchronize()
        rates.append(len(texts) / (time.perf_counter() - t))
    return round(statistics.median(rates), 1), [round(r, 1) for r in rates]


def run_on_device(folder: Path, out: Path, repeats: int = 5) -> dict:
    """Throughput (median of `repeats`, after a warm-up) per dtype, corpus and batch size."""
    import numpy as np
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    folder = Path(folder)
    texts: dict[str, list[str]] = json.loads((folder / "texts.json").read_text(encoding="utf-8"))
    reference = np.asarray(json.loads((folder / "cpu_reference.json").read_text(encoding="utf-8")))
    result: dict = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "repeats": repeats,
        "corpora": {name: len(items) for name, items in texts.items()},
        "note": "fp16 safetensors copy of all-MiniLM-L6-v2 (carry limit); fp32 rows cast those weights up. "
        "Each rate is model.encode end to end (tokenise on CPU, forward on GPU, normalise, to numpy).",
        "rows": [],
    }
    model = SentenceTransformer(str(folder / "model"), device="cuda", local_files_only=True)
    t = time.perf_counter()
    model.tokenize(texts["policies"])
    result["tokenize_policies_s"] = round(time.perf_counter() - t, 4)
    for dtype in ("fp32", "fp16"):
        model = model.float() if dtype == "fp32" else model.half()
        vectors = model.encode(texts["policies"], batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        cosine = (np.asarray(vectors, dtype=np.float64) * reference).sum(axis=1)
        result[f"min_cosine_vs_cpu_{dtype}"] = round(float(cosine.min()), 5)
        for corpus, items in texts.items():
            for batch in BATCH_SIZES:
                median, runs = _chunks_per_s(model, items, batch, repeats)
                result["rows"].append(
                    {
                        "dtype": dtype,
                        "corpus": corpus,
                        "chunks": len(items),
                        "batch_size": batch,
                        "chunks_per_s": median,
                        "runs": runs,
                    }
                )
                print(f"{dtype} {corpus} batch {batch}: {median} chunks/s", flush=True)
    best: dict[str, dict] = {}
    for row in result["rows"]:
        key = f"{row['dtype']}_{row['corpus']}"
        if row["chunks_per_s"] > best.get(key, {}).get("chunks_per_s", 0):
            best[key] = row
    result["best"] = {k: {"chunks_per_s": v["chunks_per_s"], "batch_size": v["batch_size"]} for k, v in best.items()}
    Path(out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


# -- here: the saved result as part of the benchmark report -----------------------------------
def load_result(path: Path | None = None) -> dict | None:
    try:
        return json.loads(Path(path or REPORT).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None


def headline_keys(gpu: dict) -> dict:
    """Flat keys: the best fp32 and fp16 rates per corpus, and the device's name."""
    out = {"gpu_device": gpu["device"]}
    for key, best in gpu.get("best", {}).items():
        out[f"gpu_embed_chunks_per_s_{key}"] = best["chunks_per_s"]
    fp32 = gpu.get("best", {}).get("fp32_policies")
    out["gpu_embed_chunks_per_s"] = fp32["chunks_per_s"] if fp32 else None
    return out


def markdown_section(gpu: dict) -> list[str]:
    lines = [
        f"## GPU embedding throughput (lent {gpu['device']}, not the 2-core CPU target)",
        "",
        f"Measured {gpu['when']} on a GPU machine lent to the session (torch {gpu['torch']}, "
        f"sentence-transformers {gpu['sentence_transformers']}); median of {gpu['repeats']} passes after "
        "a warm-up, `model.encode` end to end (tokenisation on the CPU included). It is a separate row: "
        "every other figure in this report is the 2-core CPU. The weights travelled as an fp16 "
        "safetensors copy (the carry limit is 64 MiB); the fp32 rows cast them back up.",
        "",
        f"Minimum cosine to the CPU's fp32 vectors of the policy chunks: fp32 "
        f"{gpu.get('min_cosine_vs_cpu_fp32')}, fp16 {gpu.get('min_cosine_vs_cpu_fp16')}.",
        "",
        *_tokenize_note(gpu),
        "| dtype | corpus | chunks | batch | chunks/s (median) |",
        "|---|---|---|---|---|",
    ]
    for row in gpu["rows"]:
        lines.append(
            f"| {row['dtype']} | {row['corpus']} | {row['chunks']:,} | {row['batch_size']} | {row['chunks_per_s']:,} |"
        )
    return [*lines, ""]


def _tokenize_note(gpu: dict) -> list[str]:
    seconds, chunks = gpu.get("tokenize_policies_s"), gpu.get("corpora", {}).get("policies")
    if not seconds or not chunks:
        return []
    return [
        f"Tokenising the {chunks} policy chunks alone took {seconds * 1000:.0f} ms on the device's CPU "
        f"(~{chunks / seconds:,.0f} chunks/s): the same order as the end-to-end rates, so these rows are "
        "bound by tokenisation and the Python around the forward pass rather than by the GPU.",
        "",
    ]


def merge_into_results(results: dict, path: Path | None = None) -> None:
    """Attach the saved device result, if any, as `results["gpu_embed"]`."""
    gpu = load_result(path)
    if gpu:
        results["gpu_embed"] = gpu


def merge_into_reports(out_dir: Path, path: Path | None = None) -> bool:
    """Update an existing bench.json and bench.md in `out_dir` with the saved device result."""
    gpu = load_result(path)
    bench_json = Path(out_dir) / "bench.json"
    if not gpu or not bench_json.is_file():
        return False
    flat = json.loads(bench_json.read_text(encoding="utf-8"))
    flat.update(headline_keys(gpu))
    flat.setdefault("detail", {})["gpu_embed"] = gpu
    bench_json.write_text(json.dumps(flat, indent=2), encoding="utf-8")
    bench_md = Path(out_dir) / "bench.md"
    if bench_md.is_file():
        text = bench_md.read_text(encoding="utf-8")
        marker = "## GPU embedding throughput"
        if marker in text:
            text = text[: text.index(marker)].rstrip() + "\n"
        text = text.replace(
            "there is no GPU embedding-throughput row.",
            "the GPU rows below come from a separate run on a lent GPU machine.",
        )
        bench_md.write_text(text.rstrip() + "\n\n" + "\n".join(markdown_section(gpu)), encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m scenarios.bench.gpu prepare FOLDER | run FOLDER OUT.json | merge [REPORTS_DIR]"
    if args[:1] == ["prepare"] and len(args) == 2:
        print(prepare(Path(args[1])))
    elif args[:1] == ["run"] and len(args) == 3:
        run_on_device(Path(args[1]), Path(args[2]))
    elif args[:1] == ["merge"] and len(args) <= 2:
        out_dir = Path(args[1]) if len(args) == 2 else REPORT.parent
        print("merged" if merge_into_reports(out_dir) else f"nothing merged: no {REPORT} or no bench.json")
    else:
        print(usage, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
