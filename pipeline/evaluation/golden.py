"""Evaluation entry points.

The contract (outside tools rely on it; keep it exactly):
    python -m pipeline.eval --docs DIR --questions Q.jsonl --out OUT.jsonl
builds a fresh index of every .md/.txt under DIR in a temporary state directory and writes one
JSON line per input line, in input order.

The golden report:
    python -m pipeline.eval --golden dev|test [--tune]
prints answer rate, abstention precision/recall, clarify rate, citation accuracy, key-fact recall
and the share of unsupported answer sentences, beside the ungated baseline from the same run.

Outside data and the threshold's risk (pipeline.outside, pipeline.calibration):
    python -m pipeline.eval --calibrate [--alpha 0.05]      # choose λ and τ on the calibration split
    python -m pipeline.eval --outside squad|policy-dev|golden-dev [--ablate RULE ...] [--ablation]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from pipeline.config import REPO_ROOT, Config, load_config, set_offline_environment

GOLDEN_DIR = REPO_ROOT / "data" / "golden"
ANSWERABLE = ("answerable", "multi_section")
UNANSWERABLE = ("unanswerable", "out_of_domain")


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def build_engine(docs: Path, home: Path, config: Config | None = None, embed_model=None):
    from pipeline.engine import AnswerEngine

    config = (config or load_config()).with_home(home)
    config = replace(config, docs_dir=docs)
    engine = AnswerEngine(config, embed_model=embed_model)
    report = engine.ingest(docs)
    for error in report.errors:
        _err(f"warning: {error}")
    return engine, report


def read_questions(path: Path) -> list[tuple[int, dict | None]]:
    """(line number, item) for each non-blank line; item None where the line is unusable."""
    items: list[tuple[int, dict | None]] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                _err(f"{path}:{number}: not valid JSON ({exc.msg}); line skipped")
                items.append((number, None))
                continue
            if not isinstance(item, dict) or "id" not in item:
                _err(f'{path}:{number}: expected an object with "id" and "question"; line skipped')
                items.append((number, None))
                continue
            items.append((number, item))
    return items


def run_contract(docs: Path, questions: Path, out: Path) -> int:
    if not docs.is_dir():
        _err(f"error: --docs {docs} is not a folder")
        return 2
    if not questions.is_file():
        _err(f"error: --questions {questions} does not exist")
        return 2
    items = read_questions(questions)
    with tempfile.TemporaryDirectory(prefix="warrant-eval-") as home:
        engine, report = build_engine(docs.resolve(), Path(home))
        if report.documents == 0:
            _err(f"error: no readable .md or .txt documents under {docs}")
            return 2
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            for number, item in items:
                if item is None:
                    continue
                question = item.get("question")
                started = time.perf_counter()
                if not isinstance(question, str) or not question.strip():
                    _err(
                        f"{questions}:{number}: id {item['id']!r} has an empty or missing question; "
                        "answered with an abstention"
                    )
                    record = {
                        "id": str(item["id"]),
                        "decision": "abstain",
                        "answer": "The question was empty.",
                        "citations": [],
                        "support": 0.0,
                        "tau": engine.tau,
                        "latency_ms": 0.0,
                    }
                else:
                    answer = engine.ask(question)
                    record = {
                        "id": str(item["id"]),
                        "decision": answer.decision,
                        "answer": answer.text,
                        # One entry per cited sentence: a quote is the one sentence of the chunk an
                        # answer sentence rests on, not the citation's sentences run together.
                        "citations": [
                            {"doc": c.source, "chunk_id": c.chunk_id, "quote": quote}
                            for c in answer.citations
                            for quote in c.sentence_quotes()
                        ],
                        "support": answer.support.sigma if answer.support else 0.0,
                        "tau": engine.tau,
                        "latency_ms": round((time.perf_counter() - started) * 1000, 2),
                    }
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


# -- golden-set report ------------------------------------------------------------------------


def load_golden(split: str) -> list[dict]:
    path = GOLDEN_DIR / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _section_match(gold: str, cited: str) -> bool:
    return cited == gold or cited.startswith(gold + ".") or gold.startswith(cited + ".")


def cites_gold(citations, gold: list[dict], chunk_meta: dict[str, dict]) -> bool:
    for c in citations:
        meta = chunk_meta.get(c.chunk_id, {})
        numbers = [n for n in str(meta.get("section_numbers", "")).split(",") if n]
        for g in gold:
            if meta.get("doc_id") == g["doc_id"] and any(_section_match(str(g["section"]), n) for n in numbers):
                return True
    return False


def answer_sentences_text(answer) -> str:
    """The answer's own sentences: without the notice added when the user stated a policy change
    (it quotes the section the claim conflicts with and offers a ticket; it answers nothing)."""
    note = (answer.policy_claim or {}).get("note", "")
    return answer.text.replace(note, "").strip() if note else answer.text


def unsupported_sentences(answer, chunk_text: dict[str, str]) -> tuple[int, int]:
    """(sentences, unsupported) of an answer, each checked against the chunk its marker cites."""
    from pipeline.verify import check_sentence

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
    """Grid search of λ and τ on the given items, from σ parts computed once per item."""
    from pipeline.question import analyse_question

    parts = []
    for item in items:
        nodes, _, embedding = engine._retrieve(item["question"])
        question = analyse_question(item["question"])
        support, _ = engine.postprocessor.score(question, nodes, embedding)
        vague = engine.postprocessor._is_vague_split(question, nodes, support)
        parts.append((item["type"], support.sim, support.coverage, support.consistency, vague))
    best = None
    for l1, l2 in itertools.product([x / 20 for x in range(4, 17)], repeat=2):
        l3 = round(1 - l1 - l2, 4)
        if l3 < 0 or l3 > 0.3:
            continue
        for tau in [x / 100 for x in range(30, 91)]:
            ans = abst = tp_abst = n_ans = n_un = 0
            for kind, sim, cov, con, vague in parts:
                decided_answer = not vague and (l1 * sim + l2 * cov + l3 * con) >= tau
                if kind in ANSWERABLE:
                    n_ans += 1
                    ans += decided_answer
                    abst += not decided_answer
                elif kind in UNANSWERABLE:
                    n_un += 1
                    abst += not decided_answer
                    tp_abst += not decided_answer
            precision = tp_abst / abst if abst else 1.0
            recall = tp_abst / n_un if n_un else 1.0
            answer_rate = ans / n_ans if n_ans else 1.0
            # Balanced: the weaker of answer rate and abstention recall first, then their sum;
            # abstention precision below 0.95 disqualifies.
            objective = (precision >= 0.95, round(min(answer_rate, recall), 4), answer_rate + recall)
            if best is None or objective > best[0]:
                best = (objective, l1, l2, l3, tau, answer_rate, precision, recall)
    assert best is not None  # the grid is fixed and not empty
    _, l1, l2, l3, tau, answer_rate, precision, recall = best
    return {
        "lambda_sim": l1,
        "lambda_coverage": l2,
        "lambda_consistency": l3,
        "tau": tau,
        "answer_rate": round(answer_rate, 4),
        "abstention_precision": round(precision, 4),
        "abstention_recall": round(recall, 4),
    }


def run_golden(split: str, do_tune: bool) -> int:
    try:
        items = load_golden(split)
    except FileNotFoundError as exc:
        _err(f"error: {exc}")
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
        f"golden split: {split} ({len(items)} items; τ={engine.tau:.2f}, "
        f"λ=({engine.postprocessor.lambda_sim}, {engine.postprocessor.lambda_coverage}, "
        f"{engine.postprocessor.lambda_consistency}))"
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
        from pipeline.generate import generation_summary

        print("generative mode (" + engine.config.llm_model + "): " + json.dumps(generation_summary(answers)))
    print(json.dumps({"split": split, "system": system, "baseline": baseline}))
    return 0


def run_outside(name: str, ablate: tuple[str, ...], do_ablation: bool, json_out: Path | None) -> int:
    from pipeline import outside

    unknown = [r for r in ablate if r not in outside.ALL_RULES]
    if unknown:
        _err(f"error: unknown rule(s) {unknown}; known: {', '.join(outside.ALL_RULES)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="warrant-outside-") as tmp:
        if name == "squad":
            if not outside.SQUAD_FILE.is_file():
                _err(f"error: {outside.SQUAD_FILE} not found")
                return 2
            docs = Path(tmp) / "docs"
            items = outside.squad_corpus(docs, "heldout")
        elif name == "policy-dev":
            docs, items = outside.POLICY_DEV / "docs", outside.policy_dev_items()
        else:
            docs, items = load_config().docs_dir, outside.golden_items("dev")
        engine, _ = build_engine(docs, Path(tmp) / "home")
        table = outside.ablation(engine, items) if do_ablation else outside.compare(engine, items, ablate)
    title = (
        f"{name}: τ={engine.tau}, λ=({engine.postprocessor.lambda_sim}, {engine.postprocessor.lambda_coverage}, "
        f"{engine.postprocessor.lambda_consistency}), rules in force: {sorted(engine.postprocessor.rules)}"
        + (f", ablated: {list(ablate)}" if ablate else "")
    )
    outside.print_table(title, table)
    if json_out:
        json_out.write_text(json.dumps({"corpus": name, "ablate": list(ablate), "table": table}, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.eval", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=Path, help="folder of .md/.txt documents to index")
    parser.add_argument("--questions", type=Path, help='JSONL with {"id", "question"} per line')
    parser.add_argument("--out", type=Path, help="where to write the answers (JSONL)")
    parser.add_argument("--golden", choices=["dev", "test"], help="report on a golden split")
    parser.add_argument("--tune", action="store_true", help="with --golden: grid-search λ and τ")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="choose λ and τ on SQuAD calibration articles + golden dev so that answering an "
        "unanswerable question stays ≤ α (90%% confidence); writes models/calibration.json",
    )
    parser.add_argument("--alpha", type=float, default=None, help="the risk for --calibrate (default WARRANT_ALPHA)")
    parser.add_argument(
        "--outside",
        choices=["squad", "policy-dev", "golden-dev"],
        help="system vs today's rules vs ungated on data the rules were not written from",
    )
    parser.add_argument(
        "--ablate",
        action="append",
        default=[],
        metavar="RULE",
        help="with --outside: the system without this rule (pipeline.support.RULES)",
    )
    parser.add_argument("--ablation", action="store_true", help="with --outside: switch each rule in turn")
    parser.add_argument("--json-out", type=Path, help="with --outside/--calibrate: also write the table as JSON")
    args = parser.parse_args(argv)
    set_offline_environment()
    if args.calibrate:
        from pipeline.calibrate_gate import run_calibration

        return run_calibration(args.alpha, args.json_out)
    if args.outside:
        return run_outside(args.outside, tuple(args.ablate), args.ablation, args.json_out)
    if args.golden:
        return run_golden(args.golden, args.tune)
    if not (args.docs and args.questions and args.out):
        parser.error("give --docs, --questions and --out (or --golden dev|test)")
    return run_contract(args.docs, args.questions, args.out)


if __name__ == "__main__":
    sys.exit(main())
