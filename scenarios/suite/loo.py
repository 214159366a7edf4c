"""Leave-one-out check (knowornot's method): without its gold evidence, does the system abstain?

For each answerable golden item, its gold chunks are marked deprecated in a temporary index (the
same way an approved ticket retires a chunk, so retrieval's `status == "active"` filter skips
them), the question is asked again, and the chunks are restored. Anything but an abstention is a
failure: the answer came from evidence that does not state the fact.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.ground.config import REPO_ROOT

GOLDEN_DIR = REPO_ROOT / "data" / "golden"
ANSWERABLE = ("answerable", "multi_section")


def load_answerable(golden_dir: Path = GOLDEN_DIR) -> list[dict]:
    """dev.jsonl + test.jsonl when present, else the per-writer parts."""
    files = [p for p in (golden_dir / "dev.jsonl", golden_dir / "test.jsonl") if p.exists()]
    if not files:
        files = sorted((golden_dir / "parts").glob("*.jsonl"))
    items = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                if item.get("type") in ANSWERABLE and item.get("gold"):
                    items.append(item)
    return items


def _matches(gold: str, numbers: list[str]) -> bool:
    return any(n == gold or n.startswith(gold + ".") or gold.startswith(n + ".") for n in numbers)


def gold_chunk_ids(engine, item: dict) -> list[str]:
    ids = []
    for node in engine.index.get_nodes(where={"status": "active"}):
        meta = node.metadata
        numbers = [n for n in str(meta.get("section_numbers", "")).split(",") if n]
        if any(meta.get("doc_id") == g["doc_id"] and _matches(str(g["section"]), numbers) for g in item["gold"]):
            ids.append(node.node_id)
    return ids


def leave_one_out(engine, items: list[dict]) -> dict:
    """{"abstention_rate", "items", "failures": [{id, question, decision, key_facts_present, cited, text}]}.

    `key_facts_present` marks an answer that still states every key fact: the corpus repeats it in
    another section (a shared number), so that answer is redundant evidence rather than a guess.

    `engine` must own a throw-away index: statuses are changed and restored in place.
    """
    failures, abstained, asked = [], 0, 0
    for item in items:
        ids = gold_chunk_ids(engine, item)
        if not ids:
            failures.append(
                {
                    "id": item["id"],
                    "question": item["question"],
                    "decision": "skipped",
                    "reason": "no chunk found for the gold section",
                }
            )
            continue
        engine.index.update_metadata(ids, status="deprecated")
        engine.refresh()
        try:
            answer = engine.ask(item["question"], log=False)
        finally:
            engine.index.update_metadata(ids, status="active")
            engine.refresh()
        asked += 1
        if answer.decision != "answer":
            abstained += 1
        else:
            facts = item.get("key_facts") or []
            present = bool(facts) and all(f.lower() in answer.text.lower() for f in facts)
            failures.append(
                {
                    "id": item["id"],
                    "question": item["question"],
                    "decision": answer.decision,
                    "key_facts_present": present,
                    "sigma": round(answer.support.sigma, 4) if answer.support else None,
                    "cited": sorted({f"{c.doc_id} {c.section}" for c in answer.citations}),
                    "text": answer.text[:300],
                }
            )
    return {"abstention_rate": round(abstained / asked, 4) if asked else None, "items": asked, "failures": failures}
