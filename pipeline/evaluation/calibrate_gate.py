"""`python -m pipeline.eval --calibrate`: choose the gate's λ and τ on tuning data, with a stated risk.

Tuning corpora, each indexed fresh and asked through the real pipeline (`AnswerEngine.judge`); the
measuring sets (`../shared/data/squad2`, `../shared/data/policy-dev`) and golden test are never read:
- golden dev over the demo policies (`data/golden/dev.jsonl`);
- the reader's policy tuning documents (`data/reader/`, the two documents
  pipeline.evaluation.reader_data keeps out of the reader's training) with their questions;
- SQuAD 2.0's three tuning articles (`../shared/data/answerability/`, also kept out of training),
  when that folder is present.
Unanswerable questions are each corpus's own (near-misses, other topics) plus every answerable
question asked again with its answering chunks withheld from retrieval: the knowledge-removed case,
which any corpus gives for free.

λ is the grid point (λ_consistency fixed at 0.05) whose σ ranks answerable above unanswerable best,
AUROC averaged over the corpora so that each counts the same; τ is the lowest threshold whose exact
one-sided upper bound on the rate of answering an unanswerable question is ≤ α at 90 % confidence
over all the corpora's unanswerable questions (pipeline.gate.calibration). Writes
`models/gate.json`, which config reads as the gate's defaults.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.evaluation.golden import ANSWERABLE, UNANSWERABLE, load_golden, section_match
from pipeline.evaluation.harness import build_engine, print_error
from pipeline.evaluation.reader_data import ANSWERABILITY, POLICY, TUNE_POLICY_DOCS, TUNE_SQUAD2_ARTICLES
from pipeline.evaluation.weights import PARTS, lambda_grid
from pipeline.gate.calibration import auroc, calibrate_tau
from pipeline.ground.config import GATE_FILE, load_config


@dataclass(frozen=True)
class TuningItem:
    question: str
    answerable: bool
    answer_text: tuple[str, ...] = ()  # sentences or spans that locate the answering chunks
    gold_sections: tuple[tuple[str, str], ...] = ()  # (doc_id, section number), golden's way


@dataclass(frozen=True)
class Row:
    corpus: str
    answerable: bool
    parts: tuple[float, float, float, float]  # PARTS, in order
    vague: bool


def golden_dev_items() -> list[TuningItem]:
    items = []
    for row in load_golden("dev"):
        if row["type"] in ANSWERABLE + UNANSWERABLE:
            gold = tuple((g["doc_id"], str(g["section"])) for g in row.get("gold", []))
            items.append(TuningItem(row["question"], row["type"] in ANSWERABLE, gold_sections=gold))
    return items


def policy_tuning_corpus(folder: Path, seed: int = 13) -> tuple[list[str], list[TuningItem]]:
    """The documents of data/reader held out of the reader's training, and their questions."""
    documents = sorted(p.name for p in (POLICY / "docs").glob("*.md"))
    held = sorted(random.Random(seed).sample(documents, TUNE_POLICY_DOCS))
    folder.mkdir(parents=True, exist_ok=True)
    for name in held:
        (folder / name).write_text((POLICY / "docs" / name).read_text(encoding="utf-8"), encoding="utf-8")
    items = []
    for line in (POLICY / "questions.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        if row["doc"] in held:
            items.append(TuningItem(row["question"], bool(row["answerable"]), tuple(row["sentences"])))
    return held, items


def squad_tuning_corpus(folder: Path, seed: int = 13) -> list[TuningItem]:
    """SQuAD 2.0's tuning articles as documents (a paragraph a block) and their questions."""
    data = json.loads((ANSWERABILITY / "squad2-train-articles.json").read_text(encoding="utf-8"))["data"]
    titles = sorted(a["title"] for a in data)
    held = set(random.Random(seed).sample(titles, TUNE_SQUAD2_ARTICLES))
    folder.mkdir(parents=True, exist_ok=True)
    items = []
    for article in data:
        if article["title"] not in held:
            continue
        paragraphs = article["paragraphs"]
        text = "\n\n".join(p["context"] for p in paragraphs) + "\n"
        (folder / f"{article['title']}.txt").write_text(text, encoding="utf-8")
        for paragraph in paragraphs:
            for qa in paragraph["qas"]:
                answerable = not qa["is_impossible"]
                items.append(TuningItem(qa["question"], answerable, (paragraph["context"][:80],) if answerable else ()))
    return items


def answering_chunks(engine, item: TuningItem) -> frozenset[str]:
    """The active chunks that hold the item's answer (its gold sections, or its answer text)."""
    chunks = engine.index.get_nodes(where={"status": "active"})
    found = set()
    for chunk in chunks:
        meta, text = chunk.metadata, " ".join(chunk.get_content().split()).lower()
        numbers = [n for n in str(meta.get("section_numbers", "")).split(",") if n]
        for doc_id, section in item.gold_sections:
            if meta.get("doc_id") == doc_id and any(section_match(section, n) for n in numbers):
                found.add(chunk.node_id)
        for answer in item.answer_text:
            probe = " ".join(answer.strip("| ").split()).lower()[:80]
            if probe and probe in text:
                found.add(chunk.node_id)
    return frozenset(found)


def rows_for(corpus: str, engine, items: list[TuningItem]) -> Iterator[Row]:
    """Each item as asked, and each answerable item again with its answer withheld (unanswerable)."""
    for item in items:
        asked = [(item.answerable, frozenset[str]())]
        if item.answerable:
            withheld = answering_chunks(engine, item)
            if withheld:
                asked.append((False, withheld))
        for answerable, exclude in asked:
            gate = engine.judge(item.question, exclude)
            s = gate.support
            yield Row(corpus, answerable, (s.sim, s.reader, s.coverage, s.consistency), gate.decision == "clarify")


def choose_lambdas(rows: list[Row]) -> tuple[tuple[float, float, float, float], dict[str, float]]:
    """The weights whose σ ranks answerable over unanswerable best, each corpus counted the same."""
    corpora = sorted({r.corpus for r in rows})
    parts = {c: np.array([r.parts for r in rows if r.corpus == c]) for c in corpora}
    labels = {c: np.array([r.answerable for r in rows if r.corpus == c]) for c in corpora}
    best: tuple[float, tuple[float, float, float, float]] | None = None
    for lambdas in lambda_grid():
        scores = []
        for c in corpora:
            sigma = parts[c] @ np.array(lambdas)
            scores.append(auroc(sigma[labels[c]], sigma[~labels[c]]) or 0.5)
        mean = float(np.mean(scores))
        if best is None or mean > best[0] + 1e-9:
            best = (mean, lambdas)
    assert best is not None
    lambdas = best[1]
    by_corpus = {}
    for c in corpora:
        sigma = parts[c] @ np.array(lambdas)
        by_corpus[c] = round(auroc(sigma[labels[c]], sigma[~labels[c]]) or 0.5, 4)
    return lambdas, by_corpus


def tuning_rows(config) -> tuple[list[Row], list[str], list[str]]:
    """Every tuning question asked through a fresh engine: (rows, the rules in force, the sources)."""
    rows: list[Row] = []
    sources = []
    with tempfile.TemporaryDirectory(prefix="warrant-calibrate-") as tmp:
        engine, _ = build_engine(config.docs_dir, Path(tmp) / "home-golden")
        rows += rows_for("golden-dev", engine, golden_dev_items())
        rules = sorted(engine.postprocessor.rules)
        sources.append("data/golden/dev.jsonl over the demo policies")
        docs = Path(tmp) / "policy"
        held, items = policy_tuning_corpus(docs)
        engine, _ = build_engine(docs, Path(tmp) / "home-policy")
        rows += rows_for("policy-tune", engine, items)
        sources.append(f"data/reader questions on {', '.join(held)}")
        if (ANSWERABILITY / "squad2-train-articles.json").is_file():
            docs = Path(tmp) / "squad"
            items = squad_tuning_corpus(docs)
            engine, _ = build_engine(docs, Path(tmp) / "home-squad")
            rows += rows_for("squad2-tune", engine, items)
            sources.append("SQuAD 2.0 tuning articles of ../shared/data/answerability")
        else:
            print_error(f"warning: {ANSWERABILITY} not found; calibrating without the SQuAD tuning articles")
    return rows, rules, sources


def run_calibration(alpha: float | None, json_out: Path | None = None, rows_file: Path | None = None) -> int:
    config = load_config()
    alpha = config.alpha if alpha is None else alpha
    if rows_file is not None and rows_file.is_file():
        saved = json.loads(rows_file.read_text(encoding="utf-8"))
        rows = [Row(r["corpus"], r["answerable"], tuple(r["parts"]), r["vague"]) for r in saved["rows"]]
        rules, sources = saved["rules"], saved["sources"]
    else:
        rows, rules, sources = tuning_rows(config)
        if rows_file is not None:
            keep = {"rules": rules, "sources": sources, "rows": [r.__dict__ for r in rows]}
            rows_file.write_text(json.dumps(keep), encoding="utf-8")
    lambdas, by_corpus = choose_lambdas(rows)
    sigma = np.array([r.parts for r in rows]) @ np.array(lambdas)
    answers = np.array([r.answerable and not r.vague for r in rows])
    labels = np.array([r.answerable for r in rows])
    chosen = calibrate_tau(sigma[labels], sigma[~labels], alpha)
    per_corpus = {}
    for corpus, value in by_corpus.items():
        mask = np.array([r.corpus == corpus for r in rows])
        pos, neg = sigma[mask & labels], sigma[mask & ~labels]
        per_corpus[corpus] = {
            "answerable": len(pos),
            "unanswerable": len(neg),
            "auroc": value,
            "answer_rate_at_tau": round(float((pos >= chosen.tau).mean()), 4) if len(pos) else None,
            "unanswerable_answered_at_tau": round(float((neg >= chosen.tau).mean()), 4) if len(neg) else None,
        }
    result = {
        "tau": chosen.tau,
        "alpha": alpha,
        "lambdas": dict(zip(PARTS, lambdas, strict=True)),
        "rules": rules,
        "confidence": chosen.confidence,
        "risk_bound": chosen.risk_bound,
        "unanswerable": chosen.unanswerable,
        "answered_unanswerable": chosen.answered_unanswerable,
        "answerable": chosen.answerable,
        "answer_rate": chosen.answer_rate,
        "clarified_answerable": int((labels & ~answers).sum()),
        "by_corpus": per_corpus,
        "data": "; ".join(sources)
        + "; each answerable question also asked with its answering chunks withheld (unanswerable)",
        "date": dt.date.today().isoformat(),
    }
    print(
        f"λ = {result['lambdas']} (AUROC by corpus {by_corpus}); τ = {chosen.tau} answers "
        f"{chosen.answered_unanswerable}/{chosen.unanswerable} unanswerable (upper bound "
        f"{chosen.risk_bound:.3f} ≤ α {alpha} at 90% confidence) at an answer rate of "
        f"{chosen.answer_rate:.3f} on {chosen.answerable} answerable questions"
    )
    for corpus, values in per_corpus.items():
        print(f"  {corpus}: {values}")
    GATE_FILE.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = GATE_FILE.with_suffix(".tmp")
    tmp_file.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp_file.replace(GATE_FILE)
    print(f"wrote {GATE_FILE}")
    if json_out:
        json_out.write_text(json.dumps(result, indent=2))
    return 0
