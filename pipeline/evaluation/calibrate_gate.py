"""`python -m pipeline.eval --calibrate`: choose λ and τ for the learned gate, with a stated risk.

Calibration data: SQuAD 2.0's `calibration` articles (pipeline.evaluation.squad's seeded split: not
trained on, not held out) and our golden dev split. The unanswerable side is what any corpus gives
for free: each answerable question asked again with its answering passage withheld from retrieval
(the best remaining evidence must not pass), plus golden dev's unanswerable and out-of-domain
questions. SQuAD's adversarial near-misses are left to the held-out measurement: they are the
hardest case, reported beside the rest (docs/evaluation.md). For each question σ's parts are computed once
through the real pipeline (retrieval, evidence window, answerability model); coverage's combiner
(logistic regression over the model's logit and the best sentence cosine) is fitted, λ is the grid point
whose σ ranks answerable above unanswerable best (AUROC over both sets together), and τ the lowest
threshold whose exact binomial upper bound on answering an unanswerable question is ≤ α with 90 %
confidence (pipeline.gate.calibration). Writes `models/calibration.json`, which config reads as the
defaults.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import tempfile
from pathlib import Path

import numpy as np

from pipeline.evaluation.golden import ANSWERABLE, load_golden, section_match
from pipeline.evaluation.harness import build_engine
from pipeline.evaluation.outside import gate_settings, squad_corpus
from pipeline.gate.calibration import auroc, calibrate_tau
from pipeline.ground.config import CALIBRATION_FILE, load_config


def _parts(engine, question: str, answerable: bool, withheld: set[str] | None = None) -> tuple:
    """(answerable, sim, model P, best sentence cosine, consistency, vetoed) for one question through
    the real retrieval, evidence window and answerability model. With `withheld`, those chunks are
    left out of the retrieved set: the question's answering passage removed, a free negative."""
    from llama_index.core.schema import QueryBundle

    from pipeline.language.question import analyse_question

    post = engine.postprocessor
    embedding = engine.embed_model.get_query_embedding(question)
    nodes = engine.index.retriever(engine.top_k + (4 if withheld else 0)).retrieve(
        QueryBundle(query_str=question, embedding=embedding)
    )
    if withheld:
        nodes = [n for n in nodes if n.node.node_id not in withheld][: engine.top_k]
    asked = analyse_question(question)
    with gate_settings(engine, coverage_source="rules"):
        support, evidence = post.score(asked, nodes, embedding)
    nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
    result = post._answerability(question, embedding, nodes)
    vetoed = (
        bool(post.rules & {"answer_type", "apart"})
        and bool(support.missing_terms)
        and post._focus_unmet(asked, evidence)
    )
    return (answerable, support.sim, result.probability, result.best_sentence_cosine, support.consistency, vetoed)


def _squad_rows(engine, items) -> list[tuple]:
    """Answerable questions with their paragraph (positive) and without it (negative)."""
    chunks = engine.index.get_nodes(where={"status": "active"})
    rows = []
    for item in items:
        if not item.answerable:
            continue
        head = item.context[:80]
        withheld = {c.node_id for c in chunks if head in c.get_content()}
        rows.append(_parts(engine, item.question, True))
        rows.append(_parts(engine, item.question, False, withheld))
    return rows


def _golden_rows(engine) -> list[tuple]:
    """Golden dev: answerable with and without their gold chunks; unanswerable as they are."""
    chunks = engine.index.get_nodes(where={"status": "active"})

    def gold_ids(item: dict) -> set[str]:
        return {
            c.node_id
            for c in chunks
            for g in item["gold"]
            if c.metadata.get("doc_id") == g["doc_id"]
            and any(
                section_match(str(g["section"]), n) for n in str(c.metadata.get("section_numbers", "")).split(",") if n
            )
        }

    rows = []
    for item in load_golden("dev"):
        if item["type"] in ANSWERABLE:
            rows.append(_parts(engine, item["question"], True))
            rows.append(_parts(engine, item["question"], False, gold_ids(item)))
        elif item["type"] in ("unanswerable", "out_of_domain"):
            rows.append(_parts(engine, item["question"], False))
    return rows


def _grid() -> list[tuple[float, float, float]]:
    out = []
    for l1, l3 in itertools.product([x / 20 for x in range(0, 11)], [0.0, 0.05]):
        l2 = round(1.0 - l1 - l3, 4)
        if l2 >= 0.4:
            out.append((l1, l2, l3))
    return out


def run_calibration(alpha: float | None, json_out: Path | None = None) -> int:
    config = load_config()
    if config.coverage_source != "model":
        print("error: --calibrate chooses τ for the learned gate; unset WARRANT_COVERAGE=rules")
        return 2
    alpha = config.alpha if alpha is None else alpha
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory(prefix="warrant-calibrate-") as tmp:
        docs = Path(tmp) / "squad"
        items = squad_corpus(docs, "calibration", per_side=0)
        engine, _ = build_engine(docs, Path(tmp) / "home-squad")
        rows += [("squad", *r) for r in _squad_rows(engine, items)]
        engine, _ = build_engine(config.docs_dir, Path(tmp) / "home-golden")
        rows += [("golden-dev", *r) for r in _golden_rows(engine)]
        rules = sorted(engine.postprocessor.rules)
    from sklearn.linear_model import LogisticRegression

    from pipeline.gate.answerability import CoverageCombiner

    labels = np.array([r[1] for r in rows])
    features = np.array([CoverageCombiner.features(r[3], r[4]) for r in rows])
    fitted = LogisticRegression(C=1.0, max_iter=1000).fit(features, labels)
    combiner = CoverageCombiner(float(fitted.coef_[0][0]), float(fitted.coef_[0][1]), float(fitted.intercept_[0]))
    coverage = np.array([0.0 if r[6] else combiner(r[3], r[4]) for r in rows])
    parts = np.column_stack([[r[2] for r in rows], coverage, [r[5] for r in rows]]).astype(float)
    best = None
    for lambdas in _grid():
        sigma = parts @ np.array(lambdas)
        score = auroc(sigma[labels], sigma[~labels]) or 0.0
        if best is None or score > best[0] + 1e-9:
            best = (score, lambdas)
    assert best is not None
    lambdas = best[1]
    sigma = parts @ np.array(lambdas)
    chosen = calibrate_tau(sigma[labels], sigma[~labels], alpha)
    per_source = {}
    for source in ("squad", "golden-dev"):
        mask = np.array([r[0] == source for r in rows])
        pos, neg = sigma[mask & labels], sigma[mask & ~labels]
        per_source[source] = {
            "answerable": len(pos),
            "unanswerable": len(neg),
            "auroc": round(auroc(pos, neg) or 0.0, 4),
            "answer_rate_at_tau": round(float((pos >= chosen.tau).mean()), 4) if len(pos) else None,
            "unanswerable_answered_at_tau": round(float((neg >= chosen.tau).mean()), 4) if len(neg) else None,
        }
    result = {
        "alpha": alpha,
        "tau": chosen.tau,
        "lambdas": list(lambdas),
        "rules": rules,
        "combiner": {
            "weight_logit_p": round(combiner.weight_logit_p, 4),
            "weight_sentence_cosine": round(combiner.weight_sentence_cosine, 4),
            "bias": round(combiner.bias, 4),
        },
        "confidence": chosen.confidence,
        "risk_bound": chosen.risk_bound,
        "unanswerable": chosen.unanswerable,
        "answered_unanswerable": chosen.answered_unanswerable,
        "answer_rate": chosen.answer_rate,
        "answerable": chosen.answerable,
        "auroc": round(best[0], 4),
        "by_source": per_source,
        "data": (
            "SQuAD 2.0 calibration articles: answerable questions with and without their paragraph; "
            "data/golden/dev.jsonl: answerable with and without their gold chunks, unanswerable and "
            "out-of-domain as they are"
        ),
        "date": dt.date.today().isoformat(),
    }
    print(
        f"λ = {lambdas} (pooled AUROC {best[0]:.3f}); τ = {chosen.tau} answers "
        f"{chosen.answered_unanswerable}/{chosen.unanswerable} unanswerable (upper bound "
        f"{chosen.risk_bound:.3f} ≤ α {alpha} at 90% confidence) and costs an answer rate of "
        f"{chosen.answer_rate:.3f} on {chosen.answerable} answerable questions"
    )
    for source, values in per_source.items():
        print(f"  {source}: {values}")
    CALIBRATION_FILE.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = CALIBRATION_FILE.with_suffix(".tmp")
    tmp_file.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp_file.replace(CALIBRATION_FILE)
    print(f"wrote {CALIBRATION_FILE}")
    if json_out:
        json_out.write_text(json.dumps(result, indent=2))
    return 0
