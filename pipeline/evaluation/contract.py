"""The evaluation contract (outside tools rely on it; keep it exactly):

    python -m pipeline.eval --docs DIR --questions Q.jsonl --out OUT.jsonl

builds a fresh index of every .md/.txt under DIR in a temporary state directory and writes one
JSON line per input line, in input order: id, decision, answer, citations (doc, chunk_id, quote),
support, tau, latency_ms.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from pipeline.evaluation.harness import build_engine, print_error


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
                print_error(f"{path}:{number}: not valid JSON ({exc.msg}); line skipped")
                items.append((number, None))
                continue
            if not isinstance(item, dict) or "id" not in item:
                print_error(f'{path}:{number}: expected an object with "id" and "question"; line skipped')
                items.append((number, None))
                continue
            items.append((number, item))
    return items


def run_contract(docs: Path, questions: Path, out: Path) -> int:
    if not docs.is_dir():
        print_error(f"error: --docs {docs} is not a folder")
        return 2
    if not questions.is_file():
        print_error(f"error: --questions {questions} does not exist")
        return 2
    items = read_questions(questions)
    with tempfile.TemporaryDirectory(prefix="warrant-eval-") as home:
        engine, report = build_engine(docs.resolve(), Path(home))
        if report.documents == 0:
            print_error(f"error: no readable .md or .txt documents under {docs}")
            return 2
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            for number, item in items:
                if item is None:
                    continue
                question = item.get("question")
                started = time.perf_counter()
                if not isinstance(question, str) or not question.strip():
                    print_error(
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
