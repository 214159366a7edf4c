"""Measuring the gate on data it was not written from: the items, the asking, the metrics.

- SQuAD 2.0 (`../shared/data/squad2`, CC BY-SA 4.0): all 16 articles, each one `.txt` document
  (paragraphs separated by blank lines), and a seeded, balanced sample of 400 answerable and 400
  adversarial unanswerable questions asked through the whole pipeline, retrieval included.
- policy-dev (`../shared/data/policy-dev`): an outside organisation's handbook with questions in
  employees' words. For measuring only: nothing here is fitted to it.
- golden dev: our own corpus (what the rules were written from).

`metrics` scores one configuration's answers as policy-dev's scorer does, plus σ's AUROC and
`max_cosine`'s (what a plain similarity cutoff would get); pipeline.evaluation.ablation puts the
configurations side by side and pipeline.evaluation.calibrate_gate fits the gate on these items.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import statistics
import string
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.evaluation.golden import ANSWERABLE, UNANSWERABLE, load_golden
from pipeline.evaluation.squad import PER_SIDE, SHARED_DATA, SQUAD_FILE, load_squad
from pipeline.gate.calibration import auroc

POLICY_DEV = SHARED_DATA / "policy-dev"


@dataclass(frozen=True)
class OutsideItem:
    id: str
    question: str
    answerable: bool
    answers: tuple[str, ...] = ()
    context: str = ""


@dataclass
class Outcome:
    """One configuration's answers to one item set."""

    decisions: list[str] = field(default_factory=list)
    sigma: list[float] = field(default_factory=list)
    sim: list[float] = field(default_factory=list)
    best_chunk: list[float] = field(default_factory=list)
    coverage: list[float] = field(default_factory=list)
    consistency: list[float] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    quotes: list[list[str]] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)


def squad_corpus(folder: Path, per_side: int = PER_SIDE, seed: int = 13, squad: Path = SQUAD_FILE) -> list[OutsideItem]:
    """Write every article as a document into `folder`; a balanced, seeded question sample."""
    folder.mkdir(parents=True, exist_ok=True)
    positives: list[OutsideItem] = []
    negatives: list[OutsideItem] = []
    for title, paragraphs in load_squad(squad):
        (folder / f"{title}.txt").write_text("\n\n".join(p["context"] for p in paragraphs) + "\n", encoding="utf-8")
        for p in paragraphs:
            for qa in p["qas"]:
                item = OutsideItem(
                    qa["id"],
                    qa["question"],
                    not qa["is_impossible"],
                    tuple(a["text"] for a in qa.get("answers") or []),
                    p["context"],
                )
                (positives if item.answerable else negatives).append(item)
    rng = random.Random(seed)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    if per_side:
        positives, negatives = positives[:per_side], negatives[:per_side]
    items = positives + negatives
    rng.shuffle(items)
    return items


def policy_dev_items(folder: Path = POLICY_DEV) -> list[OutsideItem]:
    gold = {g["id"]: g for g in map(json.loads, (folder / "gold.jsonl").open(encoding="utf-8"))}
    items = []
    for row in map(json.loads, (folder / "questions.jsonl").open(encoding="utf-8")):
        g = gold[row["id"]]
        items.append(
            OutsideItem(row["id"], row["question"], bool(g["answerable"]), tuple(g["answers"]), g.get("context", ""))
        )
    return items


def golden_items(split: str = "dev") -> list[OutsideItem]:
    return [
        OutsideItem(r["id"], r["question"], r["type"] in ANSWERABLE, tuple(r.get("key_facts", [])))
        for r in load_golden(split)
        if r["type"] in ANSWERABLE + UNANSWERABLE
    ]


@contextlib.contextmanager
def gate_settings(engine, **settings) -> Iterator[None]:
    """Temporarily change the support gate's fields (λ, τ, coverage_source, rules)."""
    post = engine.postprocessor
    before = {name: getattr(post, name) for name in settings}
    for name, value in settings.items():
        setattr(post, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(post, name, value)


def ask_items(engine, items: list[OutsideItem], gated: bool = True) -> Outcome:
    out = Outcome()
    for item in items:
        started = time.perf_counter()
        answer = engine.ask(item.question, log=False, gated=gated)
        out.latency_ms.append((time.perf_counter() - started) * 1000)
        support = answer.support
        out.decisions.append(answer.decision)
        out.sigma.append(support.sigma if support else 0.0)
        out.sim.append(support.sim if support else 0.0)
        out.best_chunk.append(support.best_chunk if support else 0.0)
        out.coverage.append(support.coverage if support else 0.0)
        out.consistency.append(support.consistency if support else 1.0)
        out.texts.append(answer.text if answer.decision == "answer" else "")
        out.quotes.append([quote for c in answer.citations for quote in c.sentence_quotes()])
    return out


_PUNCT = set(string.punctuation)


def _norm(text: str) -> str:
    """policy-dev's score.py normalisation: lower case, no punctuation or articles."""
    text = "".join(ch for ch in (text or "").lower() if ch not in _PUNCT)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def _quote_in(quote: str, context: str) -> bool:
    q, c = _norm(quote), _norm(context)
    if not q:
        return False
    if q in c:
        return True
    words = set(q.split())
    return len(words & set(c.split())) / len(words) >= 0.6


def metrics(items: list[OutsideItem], out: Outcome, sigma: list[float] | None = None) -> dict:
    """policy-dev's scorer's metrics (an abstention is abstain or clarify) plus σ's AUROC."""
    sigma = out.sigma if sigma is None else sigma
    abstained = [d in ("abstain", "clarify") for d in out.decisions]
    pos = [i for i, it in enumerate(items) if it.answerable]
    neg = [i for i, it in enumerate(items) if not it.answerable]
    answered = [i for i in pos if not abstained[i]]
    n_abst = sum(abstained)

    def rate(num: int, den: int) -> float | None:
        return round(num / den, 4) if den else None

    contains = [i for i in answered if any(_norm(a) and _norm(a) in _norm(out.texts[i]) for a in items[i].answers)]
    cited = [i for i in answered if items[i].context and any(_quote_in(q, items[i].context) for q in out.quotes[i])]
    lat = sorted(out.latency_ms)
    result = {
        "answer_rate": rate(len(answered), len(pos)),
        "abstain_precision": rate(sum(abstained[i] for i in neg), n_abst),
        "abstain_recall": rate(sum(abstained[i] for i in neg), len(neg)),
        "answer_contains_gold": rate(len(contains), len(answered)),
        "citation_accuracy": rate(len(cited), len(answered)) if any(it.context for it in items) else None,
        "sigma_auroc": _round(auroc([sigma[i] for i in pos], [sigma[i] for i in neg])),
        "max_cosine_auroc": _round(auroc([out.best_chunk[i] for i in pos], [out.best_chunk[i] for i in neg])),
        "latency_ms_p50": round(statistics.median(lat), 1) if lat else None,
        "latency_ms_p95": round(lat[int(0.95 * (len(lat) - 1))], 1) if lat else None,
        "n_answerable": len(pos),
        "n_unanswerable": len(neg),
    }
    return result


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def print_table(title: str, table: dict) -> None:
    keys = [
        "answer_rate",
        "abstain_precision",
        "abstain_recall",
        "answer_contains_gold",
        "citation_accuracy",
        "sigma_auroc",
        "max_cosine_auroc",
        "latency_ms_p50",
        "latency_ms_p95",
    ]
    print(f"\n{title}")
    print(f"{'metric':22}" + "".join(f"{name:>14}" for name in table))
    for key in keys:
        cells = [
            "n/a" if row.get(key) is None else f"{row[key]:.3f}" if isinstance(row[key], float) else str(row[key])
            for row in table.values()
        ]
        print(f"{key:22}" + "".join(f"{c:>14}" for c in cells))
    first = next(iter(table.values()))
    print(f"(n = {first['n_answerable']} answerable, {first['n_unanswerable']} unanswerable)")
