"""An admin's upload from check to add, with and without the embedding memo, same run.

`python -m scenarios.bench.upload_check [--repeat N] [--copies K]` prints one JSON object. The
upload is the demo policies joined into one handbook, `copies` times over, every number shifted
(so it disagrees with the library it is checked against, as a revised handbook would). Each
round, on a fresh copy of a library holding the demo policies, the Documents tab's steps run in
its order:

- `conflicts_s`: the conflict scan against the active library (`DocumentLibrary.conflicts`);
- `critique_s`: the critic on the file (`PolicyCritic.critique_uploads`, MiniLM and the flagger);
- `add_s`: adding it (`DocumentLibrary.add`: chunks and sentence vectors embedded and stored);

once with `MiniLMEmbedding(memo_texts=0)` (each step embeds what it needs, as before the memo)
and once with the app's default memo, where the check's sentence vectors are reused by the critic
and by the add. Medians and p95 over the rounds. Run on a quiet machine: wall-clock seconds.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from scenarios.bench.critic import POLICIES, _shifted
from scenarios.bench.stats import summarise


def handbook(copies: int) -> bytes:
    """The demo policies joined, `copies` times, every number shifted by the copy's number + 1."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(POLICIES.glob("*.md"))]
    parts = [_shifted(t, c + 1) for c in range(copies) for t in texts]
    return ("# Staff and student handbook\n\n" + "\n\n".join(parts)).encode("utf-8")


def _library(config, home: Path, embed_model):
    from governance.audit import AuditLog
    from governance.critic.service import PolicyCritic
    from governance.library import DocumentLibrary
    from pipeline.engine import AnswerEngine

    config = config.with_home(home)
    engine = AnswerEngine(config, embed_model=embed_model)
    return DocumentLibrary(engine, AuditLog(config.audit_path), config), PolicyCritic(engine.index, embed_model)


def one_round(config, seeded: Path, work: Path, embed_model, upload: bytes) -> dict[str, float]:
    """The check and the add of `upload` on a fresh copy of the `seeded` library."""
    from governance.identity import Identity

    admin = Identity("local:admin", "admin", "admin")
    home = work / f"run-{time.monotonic_ns()}"
    shutil.copytree(seeded, home)
    library, critic = _library(config, home, embed_model)
    times: dict[str, float] = {}
    started = time.perf_counter()
    prepared = library.prepare(upload, "handbook.md")
    conflicts = library.conflicts([prepared])
    times["conflicts_s"] = time.perf_counter() - started
    started = time.perf_counter()
    critique = critic.critique_uploads(admin, [(upload, "handbook.md")])[0]
    times["critique_s"] = time.perf_counter() - started
    started = time.perf_counter()
    library.add(admin, [prepared])
    times["add_s"] = time.perf_counter() - started
    times["total_s"] = sum(times.values())
    times["conflicts"], times["flagged_sentences"] = len(conflicts), len(critique.flagged())
    del library, critic
    gc.collect()
    return times


def run(repeat: int, copies: int) -> dict:
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config
    from pipeline.ingest.embedding import MiniLMEmbedding

    config = load_config()
    models = {"without_memo": MiniLMEmbedding(memo_texts=0), "with_memo": MiniLMEmbedding()}
    upload = handbook(copies)
    work = Path(tempfile.mkdtemp(prefix="warrant-upload-check-"))
    try:
        seeded = work / "seeded"
        AnswerEngine(config.with_home(seeded), embed_model=models["without_memo"]).ingest(config.docs_dir)
        gc.collect()
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in models}
        for _ in range(repeat):
            for name, model in models.items():  # alternated, so a slow spell of the machine hits both
                model.memo.clear()
                rounds[name].append(one_round(config, seeded, work, model, upload))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out: dict = {"repeat": repeat, "copies": copies, "upload_characters": len(upload)}
    for name, got in rounds.items():
        out[name] = {k: summarise([r[k] for r in got]) for k in got[0] if k.endswith("_s")}
        out[name]["conflicts"], out[name]["flagged_sentences"] = got[0]["conflicts"], got[0]["flagged_sentences"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench.upload_check", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of each mode (default 3)")
    parser.add_argument("--copies", type=int, default=1, help="demo policies joined this many times (default 1)")
    args = parser.parse_args(argv)
    from pipeline.ground.config import set_offline_environment

    set_offline_environment()
    print(json.dumps(run(max(1, args.repeat), max(1, args.copies)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
