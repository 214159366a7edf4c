"""The golden report: `python -m pipeline.eval --golden dev|test [--tune]`.

Asks every question of a golden split (data/golden/) through a fresh index of the configured
documents and prints answer rate, abstention precision/recall, clarify rate, citation accuracy,
key-fact recall and the share of unsupported answer sentences, beside the ungated baseline from
the same run; `--tune` grid-searches λ and τ instead. The golden items and the scoring helpers
(`load_golden`, `section_match`, `unsupported_sentences`) are shared with the other measurements.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.answer.parts import uncovered_note
from pipeline.evaluation.harness import build_engine, print_error
from pipeline.ground.config import REPO_ROOT, load_config

GOLDEN_DIR = REPO_ROOT / "data" / "golden"
ANSWERABLE = ("answerable", "multi_section")
UNANSWERABLE = ("unanswerable", "out_of_domain")


def load_golden(split: str) -> list[dict]:
    path = GOLDEN_DIR / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def section_match(gold: str, cited: str) -> bool:
    """A cited section number matches the gold one, or one contains the other ("4" and "4.2")."""
    return cited == gold or cited.startswith(gold + ".") or gold.startswith(cited + ".")


def cites_gold(citations, gold: list[dict], chunk_meta: dict[str, dict]) -> bool:
    for c in citations:
        meta = chunk_meta.get(c.chunk_id, {})
        numbers = [n for n in str(meta.get("section_numbers", "")).split(",") if n]
        for g in gold:
            if meta.get("doc_id") == g["doc_id"] and any(section_match(str(g["section"]), n) for n in numbers):
                return True
    return False


def answer_sentences_text(answer) -> str:
    """The answer's own sentences: without the notice added when the user stated a policy change
    (it quotes the section the claim conflicts with and offers a ticket; it answers nothing), nor
    the notice that two cited sentences disagree (it quotes them; pipeline.answer.conflicts), nor
    the line naming the parts of the message no evidence covers (pipeline.answer.parts)."""
    text = answer.text
    notes = ((answer.policy_claim or {}).get("note", ""), answer.conflict_note, uncovered_note(answer.uncovered_parts))
    for note in notes:
        text = text.replace(note, "").strip() if note else text
    return text


def unsupported_sentences(answer, chunk_text: dict[str, str]) -> tuple[int, int]:
    """(sentences, unsupported) of an answer, each checked against the chunk its marker cites."""
    from pipeline.answer.verify import check_sentence

    by_n = {c.n: c.chunk_id for c in answer.citations}
    total = bad = 0
    for line in answer_sentences_text(answer).splitlines():
        for sentence, marker in re.findall(r"(.+?)\s*\[(\d+)\](?:\s+|$)", line.lstrip("- ")):
            total += 1
            if not check_sentence(sentence, chunk_text.get(by_n.get(int(marker), ""), ""))[0]:
                bad += 1
    return total, bad


def score(items: list[dict], answers: list, engine) -> dict:
    ids = {c.chunk_id for a in answers for c in a.citations}
    nodes = engine.index.get_nodes(list(ids))
    meta = {n.node_id: n.metadata for n in nodes}
    text = {n.node_id: n.get_content() for n in nodes}
    answerable = [(i, a) for i, a in zip(items, answers, strict=False) if i["type"] in ANSWERABLE]
    should_abstain = [(i, a) for i, a in zip(items, answers, strict=False) if i["type"] in UNANSWERABLE]
    ambiguous = [(i, a) for i, a in zip(items, answers, strict=False) if i["type"] == "ambiguous"]
    gated = answerable + should_abstain
    abstained = [(i, a) for i, a in gated if a.decision != "answer"]
    answered = [(i, a) for i, a in answerable if a.decision == "answer"]
    facts = [(f, a) for i, a in answered for f in i.get("key_facts", [])]
    sentences = [unsupported_sentences(a, text) for _, a in zip(items, answers, strict=False) if a.decision == "answer"]
    total_sentences = sum(s[0] for s in sentences)

    def rate(num, den):
        return round(num / den, 4) if den else None

    return {
        "answer_rate_answerable": rate(len(answered), len(answerable)),
        "abstention_precision": rate(sum(i["type"] in UNANSWERABLE for i, _ in abstained), len(abstained)),
        "abstention_recall": rate(sum(a.decision != "answer" for _, a in should_abstain), len(should_abstain)),
        "clarify_rate_ambiguous": rate(sum(a.decision == "clarify" for _, a in ambiguous), len(ambiguous)),
        "citation_accuracy": rate(sum(cites_gold(a.citations, i["gold"], meta) for i, a in answered), len(answered)),
        "key_fact_recall": rate(sum(f.lower() in a.text.lower() for f, a in facts), len(facts)),
        "unsupported_sentence_share": rate(sum(s[1] for s in sentences), total_sentences),
        "items": len(items),
    }


def ask_all(engine, items: list[dict], gated: bool = True) -> list:
    return [engine.ask(item["question"], log=False, gated=gated) for item in items]


def tune(engine, items: list[dict]) -> dict:
    """Grid search of λ (pipeline.evaluation.weights' grid) and τ on the given items, from σ's
    parts computed once per item: the weaker of answer rate and abstention recall first, then their
    sum; abstention precision below 0.95 disqualifies. (`--calibrate` is the standing method; this
    shows what golden dev alone would choose.)"""
    from pipeline.evaluation.weights import PARTS, lambda_grid

    rows = []
    for item in items:
        if item["type"] in ANSWERABLE + UNANSWERABLE:
            gate = engine.judge(item["question"])
            s = gate.support
            parts = np.array([s.sim, s.reader, s.coverage, s.consistency])
            rows.append((item["type"] in ANSWERABLE, parts, gate.decision == "clarify"))
    labels = np.array([r[0] for r in rows])
    vague = np.array([r[2] for r in rows])
    matrix = np.array([r[1] for r in rows])
    best = None
    for lambdas in lambda_grid():
        sigma = matrix @ np.array(lambdas)
        for tau in [x / 100 for x in range(20, 96)]:
            answered = (sigma >= tau) & ~vague
            abstained = ~answered
            precision = (abstained & ~labels).sum() / abstained.sum() if abstained.sum() else 1.0
            recall = (abstained & ~labels).sum() / (~labels).sum() if (~labels).sum() else 1.0
            answer_rate = (answered & labels).sum() / labels.sum() if labels.sum() else 1.0
            objective = (precision >= 0.95, round(min(answer_rate, recall), 4), answer_rate + recall)
            if best is None or objective > best[0]:
                best = (objective, lambdas, tau, answer_rate, precision, recall)
    assert best is not None  # the grid is fixed and not empty
    _, lambdas, tau, answer_rate, precision, recall = best
    return {
        **{f"lambda_{part}": weight for part, weight in zip(PARTS, lambdas, strict=True)},
        "tau": tau,
        "answer_rate": round(float(answer_rate), 4),
        "abstention_precision": round(float(precision), 4),
        "abstention_recall": round(float(recall), 4),
    }


def run_golden(split: str, do_tune: bool) -> int:
    try:
        items = load_golden(split)
    except FileNotFoundError as exc:
        print_error(f"error: {exc}")
        return 2
    with tempfile.TemporaryDirectory(prefix="warrant-golden-") as home:
        engine, _ = build_engine(load_config().docs_dir, Path(home))
        if do_tune:
            print(json.dumps(tune(engine, items), indent=2))
            return 0
        started = time.perf_counter()
        answers = ask_all(engine, items, gated=True)
        system = score(items, answers, engine)
        baseline = score(items, ask_all(engine, items, gated=False), engine)
        elapsed = time.perf_counter() - started
    print(
        f"golden split: {split} ({len(items)} items; τ={engine.tau:.3f}, λ(sim, reader, coverage, consistency)="
        f"({engine.postprocessor.lambda_sim}, {engine.postprocessor.lambda_reader}, "
        f"{engine.postprocessor.lambda_coverage}, {engine.postprocessor.lambda_consistency}))"
    )
    print(f"{'metric':32} {'system':>8} {'baseline':>9}")
    for key in system:
        if key == "items":
            continue

        def fmt(v):
            return "   n/a" if v is None else f"{v:8.3f}"

        print(f"{key:32} {fmt(system[key])} {fmt(baseline[key]):>9}")
    print(f"({elapsed:.1f}s for both runs)")
    if engine.generator is not None:  # WARRANT_LLM_* set: the system's answers were LLM-written
        from pipeline.answer.generate import generation_summary

        print("generative mode (" + engine.config.llm_model + "): " + json.dumps(generation_summary(answers)))
    print(json.dumps({"split": split, "system": system, "baseline": baseline}))
    return 0
